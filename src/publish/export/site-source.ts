import type { Db } from "../../db/database.ts";
import type { Restrictions } from "../../access/restrictions/restrictions-service.ts";
import { publishable } from "../site/publishable.ts";
import type { ContentLedger } from "../../content/ledger.ts";
import type { WorkspaceRecords, WorkspaceRow } from "../../workspaces/workspace-records.ts";
import { readSettings } from "../../access/workspace-settings.ts";
import { DocVersions } from "../versions.ts";
import { readManifests } from "../site/manifests.ts";
import { buildSiteModel, type SiteModel } from "../site/model.ts";
import type { SiteSource } from "./exporter.ts";

/** Anything that gives the site model of a workspace's version (the server's cached SiteService does). */
interface ModelProvider {
  model(ws: WorkspaceRow, versionSlug?: string): SiteModel | null;
}

/** Every version's model: the default (or unversioned) site first, then each other live version. */
export function siteSourceOf(provider: ModelProvider, workspaces: WorkspaceRecords): SiteSource {
  return {
    models(workspaceId) {
      const ws = workspaces.byId(workspaceId);
      if (!ws) return [];
      const first = provider.model(ws);
      if (!first) return [];
      const others = first.versions
        .filter((v) => v.slug !== first.version?.slug)
        .map((v) => provider.model(ws, v.slug))
        .filter((m): m is SiteModel => m !== null);
      return [first, ...others];
    },
  };
}

/**
 * Site models read straight from the data directory (records, settings, versions, the `.quire/`
 * manifests), for commands that run without a server: `quire export` and `quire preview`. The
 * server's SiteService builds the same model from the same inputs and caches it.
 */
export function storeModelProvider(deps: { db: Db; ledger: ContentLedger; restrictions: Restrictions }): ModelProvider {
  const versions = new DocVersions(deps.db);
  return {
    model(ws, versionSlug) {
      const settings = readSettings(ws);
      return buildSiteModel(
        {
          workspace: ws,
          theme: settings.theme,
          visibility: settings.visibility,
          rows: publishable(deps.ledger.records.liveIn(ws.id), deps.restrictions.everyoneVisibility(ws)),
          manifests: readManifests(deps.ledger.dir(ws.id).root),
          versions: versions.list(ws.id),
          movedRedirects: new Map(),
        },
        versionSlug,
      );
    },
  };
}
