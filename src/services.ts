/**
 * Every domain service, built once per process and wired together (hooks between domains, the
 * closers run on shutdown). The HTTP app (`app.ts`), commands and tests all start from here.
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { Config } from "./config.ts";
import type { Logger } from "./core/log.ts";
import { openDatabase, migrate, type Db } from "./db/database.ts";
import { ulid } from "./core/ids.ts";
import { loadOrCreateSigningKey } from "./identity/signing-key.ts";
import { AccessTokens } from "./identity/access-tokens.ts";
import { createPasswordHasher, dummyHashInDatabase, type PasswordHasher } from "./identity/passwords.ts";
import { Sessions } from "./identity/sessions.ts";
import { Users } from "./identity/users.ts";
import { Organizations } from "./identity/organizations.ts";
import { AuthService } from "./identity/auth-service.ts";
import { ApiKeys } from "./identity/api-keys.ts";
import { apiKeyPepper, keyWorkspaceOrg } from "./identity/api-key-setup.ts";
import { WorkspaceRecords } from "./workspaces/workspace-records.ts";
import { Permissions } from "./access/permissions.ts";
import { PasswordResets } from "./identity/password-resets.ts";
import { VERSION } from "./version.ts";
import { EmailOutbox } from "./mail/email-outbox.ts";
import { EventBus } from "./core/event-bus.ts";
import { SearchService } from "./search/search-service.ts";
import { RealtimeHub } from "./realtime/hub.ts";
import { Comments } from "./collab/comments.ts";
import { ActivityFeed } from "./collab/activity.ts";
import { Templates } from "./collab/templates.ts";
import { People } from "./collab/people.ts";
import { PasswordChange } from "./identity/password-change.ts";
import { PageViewing } from "./realtime/page-viewing.ts";
import { buildAccessServices, type AccessServices } from "./access/services.ts";
import { ContentLedger } from "./content/ledger.ts";
import { Reconciler } from "./content/reconcile.ts";
import { Uploads } from "./content/uploads.ts";
import { seedStarterPages } from "./content/starter.ts";
import { FileWatcher } from "./content/file-watcher.ts";
import { attachWorkspaceFolders, liveWorkspaceIds } from "./content/workspace-folders.ts";
import { WebhookReceiver } from "./git/webhook-receiver.ts";
import { GitSync } from "./git/sync-service.ts";
import { ConflictService } from "./git/conflict-service.ts";
import { RateLimiter } from "./http/rate-limit.ts";
import { Maintenance } from "./ops/maintenance.ts";
import { openAnalyticsDb } from "./analytics/database.ts";
import { Analytics, consentOf, isAutomated } from "./analytics/analytics.ts";
import { Plans } from "./billing/plans.ts";
import { Billing } from "./billing/billing.ts";
import { AccountDeletion } from "./identity/account-deletion.ts";
import { OutboundWebhooks } from "./webhooks/outbound-webhooks.ts";
import { Onboarding } from "./identity/onboarding.ts";
import { Metrics } from "./ops/metrics.ts";
import { BackupScheduler } from "./ops/backup.ts";
import { AgentPages } from "./content/agent-pages.ts";
import { AssistService } from "./ai/assist-service.ts";
import { QualityService } from "./publish/quality/quality-service.ts";
import { SiteExporter } from "./publish/export/exporter.ts";
import { ExportService } from "./publish/export/export-service.ts";
import { siteSourceOf } from "./publish/export/site-source.ts";
import { SiteService } from "./publish/site-service.ts";
import { SiteServer } from "./publish/site-server.ts";
import { Identities } from "./identity/identities.ts";
import { OidcAccounts } from "./identity/oidc-accounts.ts";
import { OidcService } from "./identity/oidc-service.ts";
import { enabledProviders } from "./identity/oidc-providers.ts";
import { SignInMethods } from "./identity/sign-in-methods.ts";
import { Passkeys } from "./identity/passkeys.ts";
import { buildHistoryServices, type HistoryServices } from "./history/services.ts";

export interface Services extends AccessServices, HistoryServices {
  config: Config;
  log: Logger;
  dataDir: string;
  db: Db;
  instanceId: string;
  version: string;
  users: Users;
  organizations: Organizations;
  sessions: Sessions;
  tokens: AccessTokens;
  passwords: PasswordHasher;
  auth: AuthService;
  passwordResets: PasswordResets;
  apiKeys: ApiKeys;
  workspaces: WorkspaceRecords;
  permissions: Permissions;
  rateLimiter: RateLimiter;
  email: EmailOutbox;
  bus: EventBus;
  search: SearchService;
  realtime: RealtimeHub;
  comments: Comments;
  activity: ActivityFeed;
  templates: Templates;
  people: People;
  passwordChange: PasswordChange;
  pageViewing: PageViewing;
  ledger: ContentLedger;
  reconciler: Reconciler;
  uploads: Uploads;
  /** Reconciles changes made outside Quire; null when QUIRE_WATCH_FILES=false. */
  watcher: FileWatcher | null;
  /** Inbound git push webhooks; the sync engine subscribes with `webhooks.onPush`. */
  webhooks: WebhookReceiver;
  /** Git sync: commits, pushes, pulls, polling (DESIGN.md §6). */
  gitSync: GitSync;
  /** Sync conflicts and the manual sync, for the routes. */
  conflictService: ConflictService;
  /** External sign-in (OpenID Connect issuer, GitHub): start, callback, claim. */
  oidc: OidcService;
  /** The sign-in methods of an account (password, providers, passkeys) and the last-method rule. */
  signInMethods: SignInMethods;
  identities: Identities;
  /** Passkeys (WebAuthn): registration, sign-in, the account's list. */
  passkeys: Passkeys;
  /** Hourly purge of expired sessions, reset links, invitations and old mail. */
  maintenance: Maintenance;
  /** Page views and search queries, in analytics.db (daily aggregates, bounded). */
  analytics: Analytics;
  /** The edition's plans and limits (Cloud); no limits in Community. */
  plans: Plans;
  /** Billing and the other Cloud-only routes (404 in Community). */
  billing: Billing;
  /** Deleting one's own account (Cloud). */
  accountDeletion: AccountDeletion;
  /** Outbound webhook definitions (delivery is not active). */
  outboundWebhooks: OutboundWebhooks;
  /** Each person's first-run checklist. */
  onboarding: Onboarding;
  /** Prometheus counters and gauges (/metrics); fed by the HTTP core, search and git sync. */
  metrics: Metrics;
  /** The daily backup (BACKUP_ENABLED); null when off. */
  backups: BackupScheduler | null;
  /** Page operations shaped for agents (MCP tools): slices, upsert, find/replace edits, context. */
  agentPages: AgentPages;
  /** Writing assist: the configured model, or instructions for the calling agent. */
  assist: AssistService;
  /** The quality scan of DESIGN.md §9 (dead links, missing titles, readability, …). */
  quality: QualityService;
  /** The static export (GET|POST …/export, quire export, MCP quire_export's download URL). */
  exporter: ExportService;
  /** Published sites: models, theme, publishing, versions, custom domains (src/publish/). */
  site: SiteService;
  /** Answers /p/ and custom-domain requests. */
  siteServer: SiteServer;
  /** Closed in reverse order of registration on shutdown. */
  closers: Array<() => Promise<void> | void>;
}

/**
 * Opens the database (WAL, migrations), loads or creates the signing key, and builds every
 * domain service. Nothing listens yet.
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
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const db = opts.db ?? openDatabase(join(dataDir, "quire.db"));
  if (!opts.db) migrate(db);
  const instanceId = instanceIdOf(db);
  const keys = await loadOrCreateSigningKey(config.jwtKeyPath ?? join(dataDir, "jwt-private.pem"));
  const tokens = new AccessTokens(keys, config.baseUrl);
  const passwords = createPasswordHasher(config.argon2, dummyHashInDatabase(db));
  const users = new Users(db);
  const organizations = new Organizations(db);
  const sessions = new Sessions(db);
  sessions.retireIfSigningKeyChanged(keys.kid);
  const workspaces = new WorkspaceRecords(db);
  const permissions = new Permissions(db, workspaces);
  const auth = new AuthService({ db, config, users, organizations, sessions, tokens, passwords, workspaces });
  const apiKeys = new ApiKeys(db, apiKeyPepper(config, dataDir), keyWorkspaceOrg(workspaces, permissions));
  const email = new EmailOutbox(db, config.smtp, log);
  email.start();
  const passwordResets = new PasswordResets({ db, users, sessions, passwords, mailer: email, baseUrl: config.baseUrl });
  const bus = new EventBus((error) => log.error("event listener failed", { error: String(error) }));
  const search = new SearchService({ db, dataDir, bus, permissions, workspaces, log });
  search.start();
  const realtime = new RealtimeHub({ db, bus, permissions, workspaces, sessions, log });
  realtime.start();
  const comments = new Comments({ db, permissions, workspaces, users, bus });
  const activity = new ActivityFeed({ db, permissions });
  const ledger = new ContentLedger({ db, dataDir, bus, log });
  const reconciler = new Reconciler({ db, ledger, bus, log });
  const uploads = new Uploads(ledger);
  auth.starterWorkspaceHooks.push(async (ws, userId) => {
    await seedStarterPages(ledger, ws, { id: userId, name: users.byId(userId)?.name ?? "" });
  });
  // Files changed while the server was down are reconciled in the background; reads are served meanwhile.
  if (!opts.deferStartupReconcile) reconciler.startBackground();
  const access = buildAccessServices({ db, config, log, users, organizations, passwords, auth, email, workspaces, permissions });
  // Every workspace is a git work tree: clone or init on create, commit each write, pull and push.
  const gitSync = new GitSync({ db, config, dataDir, log, ledger, reconciler, bus, workspaces, users });
  access.workspaceService.createdHooks.push((ws) => gitSync.onWorkspaceCreated(ws));
  // Creation from a remote clones before the row exists (all-or-nothing).
  access.workspaceService.prepareRemote = (remote) => gitSync.prepareClone(remote);
  // The starter workspace too, before its pages are seeded: its repository exists when registration answers.
  // (A failure is logged, not fatal to the registration: the first commit initialises it again.)
  auth.starterWorkspaceHooks.unshift((ws) =>
    gitSync.onWorkspaceCreated(ws).catch((error) => log.error("git init of the starter workspace failed", { workspace_id: ws.id, error: String(error) })),
  );
  access.workspaceService.deletedHooks.push((ws) => gitSync.onWorkspaceDeleted(ws));
  access.workspaceSettings.changedHooks.push((ws, keys) => gitSync.onSettingsChanged(ws, keys));
  gitSync.start();
  const { stop: stopHistory, ...historyServices } = buildHistoryServices({ db, log, ledger, gitSync, createdHooks: access.workspaceService.createdHooks });
  const conflictService = new ConflictService({ db, permissions, users, ledger, bus, gitSync });
  const webhooks = new WebhookReceiver({ workspaces, log });
  webhooks.onPush((push) => gitSync.trigger(push.workspaceId, { reason: "webhook", branch: push.branch }).catch(() => {}));
  const watcher = config.watchFiles ? new FileWatcher({ ledger, reconciler, log }) : null;
  const { createdHooks, deletedHooks } = access.workspaceService;
  attachWorkspaceFolders({ createdHooks, deletedHooks, starterHooks: auth.starterWorkspaceHooks }, ledger, watcher);
  for (const id of liveWorkspaceIds(db)) watcher?.watch(id);
  // Files beside the pages (assets/, .gitignore, …) changed on disk are committed like pages changed on disk.
  watcher?.onFiles((workspaceId, paths) => gitSync.onDiskFiles(workspaceId, paths));
  const identities = new Identities(db);
  const oidcAccounts = new OidcAccounts({ db, config, users, identities, auth, invitations: access.invitationAcceptance });
  const oidc = new OidcService({ db, config, log, users, auth, accounts: oidcAccounts, providers: enabledProviders(config) });
  const signInMethods = new SignInMethods({ db, users, identities, passwords, providers: () => oidc.list() });
  const passkeys = new Passkeys({ db, config: config.webauthn, log, users, auth, methods: signInMethods });
  const maintenance = new Maintenance({ db, sessions, log });
  maintenance.start();
  const metrics = new Metrics();
  // The same hook analytics uses (one per answered search).
  search.searchedHooks.push(() => metrics.searchQuery());
  gitSync.syncedHooks.push((status) => metrics.gitSync(status));
  const livePages = db.query<{ n: number }, []>(
    "SELECT COUNT(*) AS n FROM pages p JOIN workspaces w ON w.id = p.workspace_id WHERE p.deleted_at IS NULL AND w.deleted_at IS NULL",
  );
  const pendingMail = db.query<{ n: number }, []>("SELECT COUNT(*) AS n FROM email_outbox WHERE status = 'pending'");
  const backups = config.backup.enabled ? new BackupScheduler({ dataDir, retentionDays: config.backup.retentionDays, log }) : null;
  backups?.start();
  metrics.attachGauges({
    pages: () => livePages.get()?.n ?? 0,
    emailOutboxPending: () => pendingMail.get()?.n ?? 0,
    wsConnections: () => realtime.connectionCount,
  });
  const plans = new Plans({ db, edition: config.edition });
  access.invitations.beforeInvite.push(({ orgId, role, emailNormalized }) => plans.requireSeatFor(orgId, role, emailNormalized));
  access.members.beforeRole.push(({ orgId, role, userId }) => plans.requireSeatForUser(orgId, role, userId));
  const analyticsDb = openAnalyticsDb(join(dataDir, "analytics.db"));
  const analytics = new Analytics({ db: analyticsDb, workspaces, permissions, plans, log, baseUrl: config.baseUrl });
  analytics.start();
  search.searchedHooks.push((s) => analytics.recordSearch({ ...s, source: "app" }));
  // A deleted workspace's figures go with it (there is no undelete of a workspace).
  access.workspaceService.deletedHooks.push((ws) => analytics.forgetWorkspace(ws.id));
  const site = new SiteService({ db, config, log, ledger, bus, workspaces, permissions, users, sessions, workspaceSettings: access.workspaceSettings });
  const siteServer = new SiteServer({
    site,
    search,
    uploads,
    config,
    log,
    // Community has no plans (null): every organization's figures are reported.
    analyticsReported: (orgId) => plans.planOf(orgId)?.features.includes("analytics") ?? true,
  });
  // Published sites' page views and searches go to analytics; a visitor is counted (a salted,
  // daily hash) only with the consent cookie and no opt-out signal.
  siteServer.viewedHooks.push((v) => {
    if (isAutomated(v.headers.get("user-agent"))) return;
    const consent = consentOf(v.headers);
    analytics.recordPageView({
      workspaceId: v.workspaceId,
      path: v.path,
      referrer: v.headers.get("referer"),
      consent,
      ...(consent && v.ip ? { client: { ip: v.ip, userAgent: v.headers.get("user-agent") ?? "" } } : {}),
    });
  });
  siteServer.searchedHooks.push((s) => analytics.recordSearch({ ...s, source: "site" }));
  // A deleted workspace's site is gone at once; a new workspace's slug is not remembered as missing.
  access.workspaceService.deletedHooks.push((ws) => site.forgetWorkspace(ws.id, ws.slug));
  access.workspaceService.createdHooks.push((ws) => site.forgetWorkspace(ws.id, ws.slug));
  // A .quire/ manifest edited on disk (an editor, a sync tool) reaches the site without waiting for its periodic check.
  watcher?.onFiles((workspaceId, paths) => {
    if (paths.some((p) => p.startsWith(".quire/"))) site.invalidate(workspaceId);
  });
  const exporter = new ExportService({
    permissions,
    exporter: new SiteExporter({ ledger, site: siteSourceOf(site, workspaces) }),
    baseUrl: config.baseUrl,
  });
  return {
    ...access,
    ...historyServices,
    bus,
    search,
    realtime,
    comments,
    activity,
    templates: new Templates(),
    people: new People({ db, permissions }),
    passwordChange: new PasswordChange({ db, users, sessions, passwords }),
    pageViewing: new PageViewing({ permissions, bus }),
    ledger,
    agentPages: new AgentPages(ledger),
    assist: new AssistService(config.ai, log),
    reconciler,
    uploads,
    watcher,
    webhooks,
    gitSync,
    conflictService,
    email,
    config,
    log,
    dataDir,
    db,
    instanceId,
    version: VERSION,
    users,
    organizations,
    sessions,
    tokens,
    passwords,
    auth,
    passwordResets,
    apiKeys,
    workspaces,
    permissions,
    rateLimiter: new RateLimiter(),
    oidc,
    signInMethods,
    identities,
    passkeys,
    maintenance,
    metrics,
    backups,
    quality: new QualityService({ permissions, ledger, versionBases: (id) => site.versions.list(id).map((v) => v.base_path) }),
    exporter,
    site,
    siteServer,
    analytics,
    plans,
    billing: new Billing({
      db,
      plans,
      permissions,
      stripe: config.stripe,
      baseUrl: config.baseUrl,
      ...(config.stripeWebhookSecret ? { webhookSecret: config.stripeWebhookSecret } : {}),
    }),
    accountDeletion: new AccountDeletion({
      db,
      users,
      sessions,
      passwords,
      workspaceService: access.workspaceService,
      dropSearchIndex: (id) => search.drop(id),
      workspaceFolder: (id) => ledger.dir(id).root,
      releaseFolder: (id) => gitSync.release(id),
      endConnections: (userId) => void realtime.closeUser(userId),
      log,
    }),
    outboundWebhooks: new OutboundWebhooks({ db, permissions, allowPrivate: config.webhookAllowPrivate }),
    onboarding: new Onboarding(db),
    closers: [() => analyticsDb.close(), () => analytics.stop(), () => db.close(), () => email.stop(), () => search.stop(), () => realtime.stop(), () => ledger.close(), () => reconciler.stop(), () => gitSync.stop(), () => watcher?.close(), () => maintenance.stop(), () => backups?.stop(), () => exporter.close(), stopHistory],
  };
}

function instanceIdOf(db: Db): string {
  const row = db.query<{ value: string }, []>("SELECT value FROM instance WHERE key = 'instance_id'").get();
  if (row) return row.value;
  const id = ulid();
  db.query("INSERT INTO instance (key, value) VALUES ('instance_id', ?)").run(id);
  return id;
}
