import type { Config } from "../config.ts";
import type { Restrictions } from "../access/restrictions/restrictions-service.ts";
import type { Logger } from "../core/log.ts";
import type { Closers } from "../core/closers.ts";
import type { ContentLedger } from "../content/ledger.ts";
import type { Uploads } from "../content/uploads.ts";
import type { Permissions } from "../access/permissions.ts";
import type { WorkspaceRecords } from "../workspaces/workspace-records.ts";
import type { SearchService } from "../search/search-service.ts";
import type { SiteService } from "./site-service.ts";
import { SiteServer } from "./site-server.ts";
import { QualityService } from "./quality/quality-service.ts";
import { SiteExporter } from "./export/exporter.ts";
import { ExportService } from "./export/export-service.ts";
import { siteSourceOf } from "./export/site-source.ts";

/**
 * What is built from the published sites: the /p/ and custom-domain answers, the quality scan, the
 * static export. Built on the first request that needs one (src/services.ts): they hold the
 * renderer, the highlighter, KaTeX and Mermaid. The site service itself (models, settings, custom
 * domains) is built at start: every request asks it whether its host is a site's custom domain.
 */
export interface PublishServices {
  /** Answers /p/ and custom-domain requests. */
  siteServer: SiteServer;
  /** The quality scan of docs/architecture.md §9 (dead links, missing titles, readability, …). */
  quality: QualityService;
  /** The static export (GET|POST …/export, quire export, MCP quire_export's download URL). */
  exporter: ExportService;
}

export function buildPublishServices(deps: {
  config: Config;
  log: Logger;
  closers: Closers;
  site: SiteService;
  ledger: ContentLedger;
  uploads: Uploads;
  search: SearchService;
  workspaces: WorkspaceRecords;
  permissions: Permissions;
  restrictions: Restrictions;
  /** Whether the organization's analytics are reported to its members. */
  analyticsReported: (orgId: string) => boolean;
}): PublishServices {
  const { config, log, site, ledger, workspaces, permissions } = deps;
  const siteServer = new SiteServer({ site, search: deps.search, uploads: deps.uploads, config, log, analyticsReported: deps.analyticsReported });
  const exporter = new ExportService({
    permissions,
    exporter: new SiteExporter({ ledger, site: siteSourceOf(site, workspaces) }),
    baseUrl: config.baseUrl,
  });
  deps.closers.push(() => exporter.close());
  const quality = new QualityService({ permissions, restrictions: deps.restrictions, ledger, versionBases: (id) => site.versions.list(id).map((v) => v.base_path) });
  return { siteServer, quality, exporter };
}
