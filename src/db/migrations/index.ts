import { sql as identityAccess } from "./001-identity-access.ts";
import { sql as content } from "./002-content.ts";
import { sql as collab } from "./003-collab.ts";
import { sql as gitToken } from "./004-git-token.ts";
import { sql as publishedSites } from "./005-published-sites.ts";
import { sql as externalSignIn } from "./006-external-sign-in-passkeys.ts";
import { sql as webhooksOnboardingBilling } from "./007-webhooks-onboarding-billing.ts";
import { sql as pageHistory } from "./008-page-history.ts";
import { sql as oauth } from "./009-oauth.ts";
import { sql as restrictedAccess } from "./010-restricted-access.ts";
import { sql as webhookTrust } from "./011-webhook-trust.ts";
import { sql as shareLinkPages } from "./012-share-link-pages.ts";
import { sql as pageFileStat } from "./013-page-file-stat.ts";

/**
 * Ordered migrations, embedded in the binary. Append only: a released migration never changes;
 * a change to the schema is a new entry with the next version.
 */
export interface Migration {
  version: number;
  name: string;
  sql: string;
}

export const migrations: Migration[] = [
  { version: 1, name: "identity-access", sql: identityAccess },
  { version: 2, name: "content", sql: content },
  { version: 3, name: "collab", sql: collab },
  { version: 4, name: "git-token", sql: gitToken },
  { version: 5, name: "published-sites", sql: publishedSites },
  { version: 6, name: "external-sign-in-passkeys", sql: externalSignIn },
  { version: 7, name: "webhooks-onboarding-billing", sql: webhooksOnboardingBilling },
  { version: 8, name: "page-history", sql: pageHistory },
  { version: 9, name: "oauth", sql: oauth },
  { version: 10, name: "restricted-access", sql: restrictedAccess },
  { version: 11, name: "webhook-trust", sql: webhookTrust },
  { version: 12, name: "share-link-pages", sql: shareLinkPages },
  { version: 13, name: "page-file-stat", sql: pageFileStat },
];

/** The schema this version writes: its newest migration (a release's manifest.json names it as `schema`). */
export const SCHEMA_VERSION = Math.max(...migrations.map((m) => m.version));
