import { Elysia } from "elysia";
import type { Services } from "../../services.ts";
import { httpCore } from "../core.ts";
import { openApiDocument, type RouteDocs } from "../openapi.ts";
import { activityDocs } from "./activity.ts";
import { aiDocs } from "./ai.ts";
import { analyticsDocs } from "./analytics.ts";
import { apiKeysDocs } from "./api-keys.ts";
import { authConfigDocs } from "./auth-config.ts";
import { authDocs } from "./auth.ts";
import { billingDocs } from "./billing.ts";
import { commentsDocs } from "./comments.ts";
import { conflictsDocs } from "./conflicts.ts";
import { contentDocs } from "./content.ts";
import { exportDocs } from "./export.ts";
import { gitSyncDocs } from "./git-sync.ts";
import { gitWebhookDocs } from "./git-webhook.ts";
import { healthDocs } from "./health.ts";
import { invitationsDocs } from "./invitations.ts";
import { mcpDocs } from "./mcp.ts";
import { membersDocs } from "./members.ts";
import { oauthDocs } from "./oauth.ts";
import { oidcDocs } from "./oidc.ts";
import { onboardingDocs } from "./onboarding.ts";
import { outboundWebhooksDocs } from "./outbound-webhooks.ts";
import { pageViewingDocs } from "./page-viewing.ts";
import { historyDocs } from "./history.ts";
import { passkeysDocs } from "./passkeys.ts";
import { passwordChangeDocs } from "./password-change.ts";
import { passwordResetDocs } from "./password-reset.ts";
import { peopleDocs } from "./people.ts";
import { qualityDocs } from "./quality.ts";
import { searchDocs } from "./search.ts";
import { settingsDocs } from "./settings.ts";
import { shareLinksDocs } from "./share-links.ts";
import { accessDocs } from "./access.ts";
import { siteAdminDocs } from "./site-admin.ts";
import { siteDocs } from "./site.ts";
import { siteMcpDocs } from "./site-mcp.ts";
import { templatesDocs } from "./templates.ts";
import { uploadsDocs } from "./uploads.ts";
import { workspacesDocs } from "./workspaces.ts";

/** This route's own entry: the document documents where it is served. */
const openApiDocs: RouteDocs = {
  "GET /api/openapi.json": { summary: "This document", tag: "infrastructure", auth: "public" },
};

/**
 * Every /api route's OpenAPI entry, each declared beside its route in this folder. A route file
 * that adds a route adds its entry there; test/http/openapi.test.ts names any route without one.
 */
export const API_ROUTES: RouteDocs = {
  ...activityDocs,
  ...aiDocs,
  ...analyticsDocs,
  ...apiKeysDocs,
  ...authConfigDocs,
  ...authDocs,
  ...billingDocs,
  ...commentsDocs,
  ...conflictsDocs,
  ...historyDocs,
  ...contentDocs,
  ...exportDocs,
  ...gitSyncDocs,
  ...gitWebhookDocs,
  ...healthDocs,
  ...invitationsDocs,
  ...mcpDocs,
  ...membersDocs,
  ...oauthDocs,
  ...oidcDocs,
  ...onboardingDocs,
  ...outboundWebhooksDocs,
  ...pageViewingDocs,
  ...passkeysDocs,
  ...passwordChangeDocs,
  ...passwordResetDocs,
  ...peopleDocs,
  ...qualityDocs,
  ...searchDocs,
  ...settingsDocs,
  ...shareLinksDocs,
  ...accessDocs,
  ...siteAdminDocs,
  ...siteDocs,
  ...siteMcpDocs,
  ...templatesDocs,
  ...uploadsDocs,
  ...workspacesDocs,
  ...openApiDocs,
};

/** The OpenAPI 3.1 document of every /api route. */
export function apiDocument(opts: { version: string; baseUrl: string }): Record<string, unknown> {
  return openApiDocument(API_ROUTES, opts);
}

/** GET /api/openapi.json: the OpenAPI 3.1 document of every /api route (public, built once). */
export function openApiRoutes(services: Services) {
  let doc: string | null = null;
  return new Elysia().use(httpCore(services)).get("/api/openapi.json", () => {
    doc ??= JSON.stringify(apiDocument({ version: services.version, baseUrl: services.config.baseUrl }));
    return new Response(doc, { headers: { "content-type": "application/json; charset=utf-8", "cache-control": "public, max-age=300" } });
  });
}
