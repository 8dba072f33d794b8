/**
 * The composition root: every domain's services, built once per process, and the wiring between
 * domains (hooks). Each domain builds its own services in its own folder and registers its closers
 * there; `closeAll()` closes everything in reverse order of construction. The HTTP app (`app.ts`),
 * commands and tests all start from here.
 *
 * What every request or a worker needs is built at start: the database, identity, access, search,
 * realtime, content (the start-up reconcile), git (polling), mail (the outbox) and the instance's
 * upkeep (maintenance, backups, metrics). The rest — external sign-in and passkeys, publishing
 * (renderer, highlighter, KaTeX, Mermaid), analytics, billing, collaboration — is built on first
 * access of one of its properties: its modules are loaded then (`require`, synchronous, so a route
 * reads `services.site` as before), and the hooks that reach into it build it when they fire, or
 * skip it when they only clear a cache it has not filled yet.
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { Config } from "./config.ts";
import { StorageHealth } from "./core/storage-errors.ts";
import type { Logger } from "./core/log.ts";
import { Closers } from "./core/closers.ts";
import { lazy, defineLazy } from "./core/lazy.ts";
import { openDatabase, migrate, type Db } from "./db/database.ts";
import { VERSION } from "./version.ts";
import { EventBus } from "./core/event-bus.ts";
import { WorkspaceRecords } from "./workspaces/workspace-records.ts";
import { Permissions } from "./access/permissions.ts";
import { buildAccessServices, type AccessServices } from "./access/services.ts";
import { buildIdentityServices, type IdentityServices } from "./identity/services.ts";
import type { EmailOutbox } from "./mail/email-outbox.ts";
import { buildMail } from "./mail/services.ts";
import type { SearchService } from "./search/search-service.ts";
import { buildSearch } from "./search/services.ts";
import type { RealtimeHub } from "./realtime/hub.ts";
import { buildRealtime } from "./realtime/services.ts";
import { buildContentServices, type ContentServices } from "./content/services.ts";
import { seedStarterPages } from "./content/starter.ts";
import { attachWorkspaceFolders, liveWorkspaceIds } from "./content/workspace-folders.ts";
import { SharedPages } from "./content/shared-page.ts";
import { agentPagePath } from "./content/paths.ts";
import { buildGitServices, type GitServices } from "./git/services.ts";
import { accessFileHooks } from "./git/access-file.ts";
import { ACCESS_FILE } from "./access/restrictions/access-file.ts";
import { buildHistoryServices, type HistoryServices } from "./history/services.ts";
import { buildOpsServices, type OpsServices } from "./ops/services.ts";
import { MAINTENANCE_INTERVAL_MS } from "./ops/maintenance.ts";
import { RateLimiter } from "./core/rate-limit.ts";
import { Onboarding } from "./identity/onboarding.ts";
import { OutboundWebhooks } from "./webhooks/outbound-webhooks.ts";
import { AssistService } from "./ai/assist-service.ts";
import { SiteService } from "./publish/site-service.ts";
import type { SignInServices } from "./identity/sign-in-services.ts";
import type { CollabServices } from "./collab/services.ts";
import type { PublishServices } from "./publish/services.ts";
import type { BillingServices } from "./billing/services.ts";
import type { Analytics } from "./analytics/analytics.ts";
import type { AccountDeletion } from "./identity/account-deletion.ts";
import type { OAuthServices } from "./oauth/services.ts";

export interface Services
  extends AccessServices,
    IdentityServices,
    SignInServices,
    ContentServices,
    GitServices,
    HistoryServices,
    CollabServices,
    PublishServices,
    BillingServices,
    OAuthServices,
    OpsServices {
  config: Config;
  log: Logger;
  dataDir: string;
  db: Db;
  version: string;
  /** The data directory's storage: refused writes (507/503), their rate-limited warning, free space. */
  storage: StorageHealth;
  workspaces: WorkspaceRecords;
  permissions: Permissions;
  rateLimiter: RateLimiter;
  email: EmailOutbox;
  bus: EventBus;
  search: SearchService;
  realtime: RealtimeHub;
  /** Published sites: models, theme, publishing, versions, custom domains (src/publish/). */
  site: SiteService;
  /** Opening a page share link (docs/decisions/restricted-folders.md, "Share links"). */
  sharedPages: SharedPages;
  /** Page views and search queries, in analytics.db (daily aggregates, bounded). */
  analytics: Analytics;
  /** Deleting one's own account (Cloud). */
  accountDeletion: AccountDeletion;
  /** Outbound webhook definitions (delivery is not active). */
  outboundWebhooks: OutboundWebhooks;
  /** Each person's first-run checklist. */
  onboarding: Onboarding;
  /** Writing assist: the configured model, or instructions for the calling agent. */
  assist: AssistService;
  /** Where each domain registers what must stop or close on shutdown (`closers.push`). */
  closers: Closers;
  /** Stops and closes everything, in reverse order of construction; failures are logged, not thrown. */
  closeAll(): Promise<void>;
}

/**
 * Opens the database (WAL, migrations), loads or creates the signing key, builds what every
 * request needs and starts the workers; the rest is built on first use. Nothing listens yet.
 */
export async function buildServices(opts: {
  config: Config;
  dataDir: string;
  log: Logger;
  /** The caller starts the start-up reconcile itself (`reconciler.startBackground()`), when it is ready to. */
  deferStartupReconcile?: boolean;
  /** The data directory's database, already opened and migrated (`quire mcp` opens it before the rest). */
  db?: Db;
}): Promise<Services> {
  const { config, dataDir, log } = opts;
  const closers = new Closers();
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const storage = new StorageHealth(dataDir, log, config.storage.minFreeMb * 1024 * 1024);
  const db = opts.db ?? openDatabase(join(dataDir, "quire.db"));
  // Registered first, so closed last: every other closer may still write.
  closers.push(() => db.close());
  if (!opts.db) migrate(db);
  const workspaces = new WorkspaceRecords(db);
  const permissions = new Permissions(db, workspaces);
  const email = buildMail({ db, config, log, closers });
  const identity = await buildIdentityServices({ db, config, dataDir, email, workspaces, permissions });
  const { users, auth } = identity;
  const bus = new EventBus((error) => log.error("event listener failed", { error: String(error) }));
  // A change the ledger committed wrote a file and the database: the disk takes writes again, so
  // readiness need not wait for the git commit behind it to stop saying `unavailable`.
  bus.onChange(() => storage.writeSucceeded());
  const access = buildAccessServices({ db, config, log, users, organizations: identity.organizations, passwords: identity.passwords, auth, email, workspaces, permissions });
  const search = buildSearch({ db, dataDir, log, closers, bus, permissions, restrictions: access.restrictions, workspaces });
  const realtime = buildRealtime({ db, log, closers, bus, permissions, restrictions: access.restrictions, workspaces, sessions: identity.sessions });
  const content = buildContentServices({ db, config, dataDir, bus, log, closers });
  const { ledger, reconciler, watcher } = content;
  auth.starterWorkspaceHooks.push(async (ws, userId) => {
    await seedStarterPages(ledger, ws, { id: userId, name: users.byId(userId)?.name ?? "" });
  });
  // Files changed while the server was down are reconciled in the background; reads are served meanwhile.
  if (!opts.deferStartupReconcile) reconciler.startBackground();
  const { workspaceService, workspaceSettings } = access;

  // Every workspace is a git work tree: clone or init on create, commit each write, pull and push.
  const git = buildGitServices({ db, config, dataDir, log, closers, bus, ledger, reconciler, workspaces, users, permissions, restrictions: access.restrictions, storage });
  const { gitSync } = git;
  workspaceService.createdHooks.push((ws) => gitSync.onWorkspaceCreated(ws));
  // Creation from a remote clones before the row exists (all-or-nothing).
  workspaceService.prepareRemote = (remote) => gitSync.prepareClone(remote);
  // The starter workspace too, before its pages are seeded: its repository exists when registration answers.
  // (A failure is logged, not fatal to the registration: the first commit initialises it again.)
  auth.starterWorkspaceHooks.unshift((ws) =>
    gitSync.onWorkspaceCreated(ws).catch((error) => log.error("git init of the starter workspace failed", { workspace_id: ws.id, error: String(error) })),
  );
  workspaceService.deletedHooks.push((ws) => gitSync.onWorkspaceDeleted(ws));
  workspaceSettings.changedHooks.push((ws, keys) => gitSync.onSettingsChanged(ws, keys));
  // Restricted folders: the rules travel in .quire/access.yaml; one from git or the disk is checked, and refused in the sync status when invalid.
  const { restrictions } = access;
  restrictions.file = accessFileHooks({ ledger, gitSync, workspaces, log });
  const applyAccessFile = (id: string) => {
    const ws = workspaces.byId(id);
    return ws ? restrictions.applyFile(ws) : null;
  };
  gitSync.pulledHooks.push((id, paths) => (paths.has(ACCESS_FILE) ? applyAccessFile(id) : restrictions.refusal(id)));
  watcher?.onFiles((id, paths) => {
    if (paths.some((p) => p === ACCESS_FILE || p === ".quire" || p === ".quire/")) applyAccessFile(id);
  });
  workspaceService.deletedHooks.push((ws) => restrictions.forget(ws.id));
  // Page share links name a page by id; where it is now is the content layer's to say.
  access.shareLinks.pages = {
    find: (workspaceId, raw) => {
      const row = content.pages.live(workspaceId, agentPagePath(raw));
      return row ? { id: row.id, path: row.path } : null;
    },
    pathOf: (workspaceId, pageId) => {
      const row = content.pages.byId(pageId);
      return row && row.workspace_id === workspaceId && row.deleted_at === null ? row.path : null;
    },
  };
  const sharedPages = new SharedPages({
    shareLinks: access.shareLinks,
    ledger,
    pages: content.pages,
    permissions,
    users,
    restrictions,
    // The renderer loads with the first opened link, not with the server.
    render: (slug, path, body) => (require("./history/rendered.ts") as typeof import("./history/rendered.ts")).renderVersion(slug, path, body),
  });
  gitSync.start();
  // Page history follows every commit git makes or pulls; after git's own created-hook has made the repository.
  const history = buildHistoryServices({ db, log, closers, ledger, gitSync, createdHooks: workspaceService.createdHooks });
  const { createdHooks, deletedHooks } = workspaceService;
  attachWorkspaceFolders({ createdHooks, deletedHooks, starterHooks: auth.starterWorkspaceHooks }, ledger, watcher);
  for (const id of liveWorkspaceIds(db)) watcher?.watch(id);
  // Files beside the pages (assets/, .gitignore, …) changed on disk are committed like pages changed on disk.
  watcher?.onFiles((workspaceId, paths) => gitSync.onDiskFiles(workspaceId, paths));

  const ops = buildOpsServices({ db, config, dataDir, log, closers, sessions: identity.sessions });
  const { metrics } = ops;
  // The same hook analytics uses (one per answered search).
  search.searchedHooks.push(() => metrics.searchQuery());
  gitSync.syncedHooks.push((status) => metrics.gitSync(status));
  metrics.attachGauges({
    pages: () => content.pages.liveCountAll(),
    emailOutboxPending: () => email.pendingCount(),
    wsConnections: () => realtime.connectionCount,
    storageFreeBytes: () => storage.freeBytes(),
  });

  // ---- built on first use ----------------------------------------------------------------------

  const signIn = lazy(() =>
    (require("./identity/sign-in-services.ts") as typeof import("./identity/sign-in-services.ts")).buildSignInServices({
      db,
      config,
      log,
      users,
      auth,
      passwords: identity.passwords,
      invitations: access.invitationAcceptance,
    }),
  );
  const collab = lazy(() =>
    (require("./collab/services.ts") as typeof import("./collab/services.ts")).buildCollabServices({ db, bus, permissions, restrictions: access.restrictions, workspaces, users, sharedPages }),
  );
  const billing = lazy(() => (require("./billing/services.ts") as typeof import("./billing/services.ts")).buildBillingServices({ db, config, permissions }));
  access.invitations.beforeInvite.push(({ orgId, role, emailNormalized }) => billing().plans.requireSeatFor(orgId, role, emailNormalized));
  access.members.beforeRole.push(({ orgId, role, userId }) => billing().plans.requireSeatForUser(orgId, role, userId));

  const analytics = lazy(() =>
    (require("./analytics/services.ts") as typeof import("./analytics/services.ts")).buildAnalytics({
      config,
      dataDir,
      log,
      closers,
      workspaces,
      permissions,
      plans: () => billing().plans,
      storage,
    }),
  );
  search.searchedHooks.push((s) => {
    if (!s.restricted) analytics().recordSearch({ workspaceId: s.workspaceId, query: s.query, results: s.results, source: "app" });
  });
  // A deleted workspace's figures go with it (there is no undelete of a workspace).
  deletedHooks.push((ws) => analytics().forgetWorkspace(ws.id));
  // Figures past their retention are purged when analytics is built and hourly after; an instance
  // whose analytics nothing has needed yet builds it within the hour all the same.
  const purgeAnalytics = setTimeout(() => analytics(), MAINTENANCE_INTERVAL_MS);
  purgeAnalytics.unref?.();
  closers.push(() => clearTimeout(purgeAnalytics));

  // Built at start: every request asks it whether its host is a site's custom domain (its renderer
  // loads with the first render). The site server, the quality scan and the export are built on first use.
  const site = new SiteService({ db, config, log, ledger, bus, workspaces, permissions, users, sessions: identity.sessions, workspaceSettings, restrictions });
  // A rule changed: the site shows or drops the folder at once.
  restrictions.changedHooks.push((id) => site.invalidate(id));
  // A deleted workspace's site is gone at once; a new workspace's slug is not remembered as missing.
  deletedHooks.push((ws) => site.forgetWorkspace(ws.id, ws.slug));
  createdHooks.push((ws) => site.forgetWorkspace(ws.id, ws.slug));
  // A .quire/ manifest edited on disk (an editor, a sync tool) reaches the site without waiting for its periodic check.
  watcher?.onFiles((workspaceId, paths) => {
    if (paths.some((p) => p.startsWith(".quire/"))) site.invalidate(workspaceId);
  });
  const publish = lazy(() => {
    const built = (require("./publish/services.ts") as typeof import("./publish/services.ts")).buildPublishServices({
      config,
      log,
      closers,
      site,
      ledger,
      uploads: content.uploads,
      search,
      workspaces,
      permissions,
      restrictions,
      // Community has no plans (null): every organization's figures are reported.
      analyticsReported: (orgId) => billing().plans.planOf(orgId)?.features.includes("analytics") ?? true,
    });
    // Published sites' page views and searches go to analytics.
    const { recordSiteView } = require("./analytics/services.ts") as typeof import("./analytics/services.ts");
    built.siteServer.viewedHooks.push((v) => recordSiteView(analytics(), v));
    built.siteServer.searchedHooks.push((s) => analytics().recordSearch({ ...s, source: "site" }));
    return built;
  });

  const accountDeletion = lazy(() => {
    const { AccountDeletion } = require("./identity/account-deletion.ts") as typeof import("./identity/account-deletion.ts");
    const deletion = new AccountDeletion({
      db,
      users,
      sessions: identity.sessions,
      passwords: identity.passwords,
      workspaceService,
      dropSearchIndex: (id) => search.drop(id),
      workspaceFolder: (id) => ledger.dir(id).root,
      releaseFolder: (id) => gitSync.release(id),
      endConnections: (userId) => void realtime.closeUser(userId),
      log,
    });
    return { accountDeletion: deletion };
  });

  const oauth = lazy(() =>
    (require("./oauth/services.ts") as typeof import("./oauth/services.ts")).buildOAuthServices({
      db,
      config,
      signingKeys: identity.signingKeys,
      permissions,
      workspaces,
      users,
      // The sites whose MCP endpoints take tokens: published, and for members only.
      membersOnlySite: (slug) => {
        const ws = site.membersOnlySite(slug);
        return ws ? { workspaceId: ws.id, name: ws.name } : null;
      },
    }),
  );

  const services = {
    ...access,
    ...identity,
    ...content,
    ...git,
    ...history,
    ...ops,
    config,
    log,
    dataDir,
    db,
    storage,
    version: VERSION,
    workspaces,
    permissions,
    email,
    bus,
    search,
    realtime,
    site,
    sharedPages,
    rateLimiter: new RateLimiter(),
    assist: new AssistService(config.ai, log),
    outboundWebhooks: new OutboundWebhooks({ db, permissions, allowPrivate: config.webhookAllowPrivate, restrictions: access.restrictions }),
    onboarding: new Onboarding(db),
    closers,
    closeAll: () => closers.closeAll(log),
  } as Services;
  defineLazy(services, signIn, ["identities", "oidc", "signInMethods", "passkeys"]);
  defineLazy(services, collab, ["comments", "activity", "templates", "people", "pageViewing"]);
  defineLazy(services, billing, ["plans", "billing"]);
  defineLazy(services, publish, ["siteServer", "quality", "exporter"]);
  const analyticsGroup = lazy(() => ({ analytics: analytics() }));
  defineLazy(services, analyticsGroup, ["analytics"]);
  defineLazy(services, accountDeletion, ["accountDeletion"]);
  defineLazy(services, oauth, ["oauth"]);
  return services;
}
