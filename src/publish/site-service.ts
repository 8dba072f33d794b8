/**
 * The published site's domain service (`services.site`): the site model of each workspace
 * (cached, invalidated by ledger events and settings changes), theme and publish settings,
 * named versions (with snapshots through the ledger), custom domains, redirects left by page
 * moves, and the member pass for `/p/`. HTTP routes and MCP tools call these methods with
 * (principal, workspace, input); the site's request handling lives in site-server.ts.
 */
import type { Restrictions } from "../access/restrictions/restrictions-service.ts";
import { publishable } from "./site/publishable.ts";
import { OPEN } from "../access/restrictions/visibility.ts";
import type { z } from "zod";
import type { Db } from "../db/database.ts";
import type { Logger } from "../core/log.ts";
import type { Config } from "../config.ts";
import { ConflictError, NotFoundError, ValidationError } from "../core/errors.ts";
import { nowIso } from "../core/clock.ts";
import { parseInput } from "../core/validate.ts";
import type { Principal } from "../core/principal.ts";
import type { Permissions } from "../access/permissions.ts";
import type { EffectiveRole } from "../workspaces/roles.ts";
import type { ContentLedger } from "../content/ledger.ts";
import type { Users } from "../identity/users.ts";
import type { Sessions } from "../identity/sessions.ts";
import type { EventBus } from "../core/event-bus.ts";
import type { WorkspaceRecords, WorkspaceRow } from "../workspaces/workspace-records.ts";
import { workspaceRef } from "../workspaces/workspace-records.ts";
import { readSettings, type StoredSettings, type WorkspaceSettings } from "../access/workspace-settings.ts";
import type { Theme, Visibility } from "../workspaces/workspace-schemas.ts";
import { CustomDomains, domainJson, type CustomDomainJson } from "./custom-domains.ts";
import { DocVersions } from "./versions.ts";
import { SiteCookies } from "./site-cookie.ts";
import { RenderCache } from "./render/cache.ts";
import { manifestStamp, readManifests, redirectKey } from "./site/manifests.ts";
import { buildSiteModel, type SiteModel, type SiteVersion } from "./site/model.ts";
import {
  createVersionInput,
  publishWorkspaceInput,
  RESERVED_SITE_SEGMENTS,
  setCustomDomainInput,
  updateThemeInput,
  type livePagesOutput,
  type siteStatusOutput,
  type versionListOutput,
} from "./schemas.ts";

/** Everything the Site screen shows: the documented output schema's type. */
type SiteStatus = z.infer<typeof siteStatusOutput>;

interface CachedModel {
  model: SiteModel;
  stamp: string;
  generation: number;
  /** When the manifests on disk were last compared with `stamp`. */
  checkedAt: number;
}

/** How long a site request may use a remembered workspace row. */
const WORKSPACE_ROW_MS = 1000;

/** How often a cached model looks at the `.quire/` manifests on disk (three stats). */
const MANIFEST_CHECK_MS = 1000;

interface SiteServiceDeps {
  db: Db;
  config: Config;
  log: Logger;
  ledger: ContentLedger;
  bus: EventBus;
  workspaces: WorkspaceRecords;
  permissions: Permissions;
  users: Users;
  sessions: Sessions;
  workspaceSettings: WorkspaceSettings;
  restrictions: Restrictions;
}

export class SiteService {
  readonly versions: DocVersions;
  readonly domains: CustomDomains;
  readonly cookies: SiteCookies;
  /** Rendered page bodies by content hash (the renderer's cache), dropped per workspace on ledger changes. */
  readonly renders = new RenderCache();
  private readonly models = new Map<string, CachedModel>();
  private readonly generations = new Map<string, number>();
  private readonly defaultKeys = new WeakMap<WorkspaceRow, string>();
  private readonly loggedProblems = new Map<string, string>();
  private readonly uploadRefs = new WeakMap<SiteModel, Set<string>>();
  private readonly bySlug = new Map<string, { row: WorkspaceRow | null; at: number }>();
  /** Verified custom domain → workspace id, so a request's Host costs a map lookup. */
  private verified = new Map<string, string>();
  /** Custom domains registered but not (yet) verified: requests naming them are served nothing. */
  private unverified = new Set<string>();
  /** Parsed workspace settings by their stored JSON text (see settingsOf). */
  private readonly parsedSettings = new Map<string, StoredSettings>();

  constructor(private readonly deps: SiteServiceDeps) {
    this.versions = new DocVersions(deps.db);
    this.domains = new CustomDomains(deps.db, deps.config.publish.dnsResolver);
    this.cookies = new SiteCookies(deps.db, deps.sessions, deps.config.baseUrl.startsWith("https:"));
    this.reloadDomains();
    deps.bus.onEvent((e) => this.invalidate(e.workspace_id));
    deps.bus.onChange((c) => this.invalidate(c.workspace_id));
    this.renders.subscribe(deps.bus);
    // A page move leaves a redirect behind, so links to the old address keep working.
    deps.ledger.onCommitted((w) => {
      if (w.kind === "move" && w.old_path) this.recordMove(w.workspace_id, w.old_path, w.path);
      this.invalidate(w.workspace_id);
    });
    deps.workspaceSettings.changedHooks.push((ws, keys) => {
      this.invalidate(ws.id);
      if (keys.includes("custom_domain")) this.syncDomainFromSettings(ws);
    });
  }

  // ---- the model ---------------------------------------------------------------------------

  /**
   * The default version's model key of a workspace row, made once per row object: every page
   * request asks for it, and the same row is handed out for a second (workspaceForSlug).
   */
  private defaultModelKey(ws: WorkspaceRow): string {
    let key = this.defaultKeys.get(ws);
    if (key === undefined) this.defaultKeys.set(ws, (key = `${ws.id}||${ws.updated_at}`));
    return key;
  }

  /** Forgets the cached models of a workspace (the next request rebuilds them). */
  invalidate(workspaceId: string): void {
    this.generations.set(workspaceId, (this.generations.get(workspaceId) ?? 0) + 1);
    for (const [slug, hit] of this.bySlug) if (hit.row?.id === workspaceId) this.bySlug.delete(slug);
  }

  /** Whether readers get a members-only site. */
  effectiveVisibility(ws: WorkspaceRow): Visibility {
    return this.deps.config.publish.requireAuth ? "authenticated" : this.settingsOf(ws).visibility;
  }

  /**
   * The workspace's JSON settings, parsed once per distinct stored text (every site request
   * needs the visibility): a change of the settings is a new text, so nothing stale is served.
   */
  settingsOf(ws: WorkspaceRow): StoredSettings {
    let hit = this.parsedSettings.get(ws.settings);
    if (!hit) {
      if (this.parsedSettings.size >= 1000) this.parsedSettings.clear();
      hit = readSettings(ws);
      this.parsedSettings.set(ws.settings, hit);
    }
    return hit;
  }

  /**
   * The site model of a workspace's version (undefined: the default version). Cached until a
   * ledger event or settings change for the workspace, or an edit of a `.quire/` manifest on disk.
   */
  model(ws: WorkspaceRow, versionSlug?: string | null, now = Date.now()): SiteModel | null {
    const key = versionSlug === undefined ? this.defaultModelKey(ws) : `${ws.id}|${versionSlug === null ? "\u0000current" : versionSlug}|${ws.updated_at}`;
    const generation = this.generations.get(ws.id) ?? 0;
    const hit = this.models.get(key);
    if (hit && hit.generation === generation) {
      // Manifests edited outside the ledger (git, an editor) are noticed within a second.
      if (now - hit.checkedAt < MANIFEST_CHECK_MS) return hit.model;
      const root = this.deps.ledger.dir(ws.id).root;
      if (manifestStamp(root) === hit.stamp) {
        hit.checkedAt = now;
        return hit.model;
      }
    }
    const root = this.deps.ledger.dir(ws.id).root;
    const stamp = manifestStamp(root);
    const manifests = readManifests(root);
    const settings = this.settingsOf(ws);
    const model = buildSiteModel(
      {
        workspace: ws,
        theme: settings.theme,
        visibility: this.effectiveVisibility(ws),
        rows: publishable(this.deps.ledger.records.liveIn(ws.id), this.deps.restrictions.everyoneVisibility(ws)),
        manifests,
        versions: this.versions.list(ws.id),
        movedRedirects: this.movedRedirects(ws.id),
      },
      versionSlug,
    );
    const problems = manifests.problems.join("\n");
    if (problems !== (this.loggedProblems.get(ws.id) ?? "")) {
      this.loggedProblems.set(ws.id, problems);
      for (const p of manifests.problems) this.deps.log.warn("site manifest ignored", { workspace_id: ws.id, problem: p });
    }
    for (const k of this.models.keys()) if (k.startsWith(`${ws.id}|`) && this.models.get(k)!.generation !== generation) this.models.delete(k);
    if (model) {
      if (this.models.size > 2000) this.models.clear();
      this.models.set(key, { model, stamp, generation, checkedAt: now });
    }
    return model;
  }

  /** The page's Markdown without its frontmatter (the `.md` twin, llms-full.txt); null when the file is gone. */
  pageMarkdown(workspaceId: string, path: string): string | null {
    const file = this.deps.ledger.readFile(workspaceId, path);
    return file ? file.split.body : null;
  }

  /**
   * Upload file names (under `assets/`) that the model's pages reference: only these are served
   * by the site, and to anonymous readers of a public site through the API.
   */
  referencedUploads(workspaceId: string, model: SiteModel): Set<string> {
    let names = this.uploadRefs.get(model);
    if (names) return names;
    names = new Set<string>();
    for (const page of model.pages) {
      const md = this.pageMarkdown(workspaceId, page.path);
      if (!md || !(md.includes("assets/") || md.includes("/uploads/"))) continue;
      for (const m of md.matchAll(/(?:(?:^|[^A-Za-z0-9_.-])assets|\/uploads)\/([A-Za-z0-9][A-Za-z0-9_.-]{0,199})/g)) names.add(m[1]!.replace(/\.+$/, ""));
    }
    this.uploadRefs.set(model, names);
    return names;
  }

  /** Whether an anonymous reader may fetch this upload: a published public site references it. */
  isPublicUpload(ws: WorkspaceRow, filename: string): boolean {
    if (ws.published !== 1 || this.effectiveVisibility(ws) !== "public") return false;
    const models = [this.model(ws), ...this.versions.list(ws.id).filter((v) => !v.is_default).map((v) => this.model(ws, v.slug))];
    return models.some((m) => m !== null && this.referencedUploads(ws.id, m).has(filename));
  }

  /** The workspace of a published site that only its members may read, by the site's slug; null for any other. */
  membersOnlySite(slug: string): WorkspaceRow | null {
    const ws = /^[a-z0-9-]{1,64}$/.test(slug) ? this.workspaceForSlug(slug) : null;
    return ws !== null && ws.published === 1 && this.effectiveVisibility(ws) === "authenticated" ? ws : null;
  }

  /** The caller's role in the workspace (a reader with none gets null). */
  roleOf(principal: Principal | null, ws: WorkspaceRow): EffectiveRole | null {
    return principal ? this.deps.permissions.principalRole(principal, ws) : null;
  }

  /**
   * The live workspace with this slug, for site requests: remembered for up to a second (a
   * published page is read thousands of times a second; its workspace row rarely changes), and
   * forgotten at once when the workspace's settings change.
   */
  workspaceForSlug(slug: string, now = Date.now()): WorkspaceRow | null {
    const hit = this.bySlug.get(slug);
    if (hit && now - hit.at < WORKSPACE_ROW_MS) return hit.row;
    const row = this.deps.workspaces.bySlug(slug);
    if (this.bySlug.size > 10_000) this.bySlug.clear();
    this.bySlug.set(slug, { row, at: now });
    return row;
  }

  /** A workspace created or deleted: nothing remembered about its slug or its site survives. */
  forgetWorkspace(workspaceId: string, slug: string): void {
    this.bySlug.delete(slug);
    this.invalidate(workspaceId);
    this.reloadDomains();
  }

  /** The workspace a verified custom domain serves. */
  workspaceForHost(host: string): WorkspaceRow | null {
    const id = this.verified.get(host);
    return id ? this.deps.workspaces.byId(id) : null;
  }

  /** Whether any custom domain is registered (verified or not): without one, no request's Host needs reading. */
  hasCustomDomains(): boolean {
    return this.verified.size !== 0 || this.unverified.size !== 0;
  }

  /** Whether a host is a custom domain some workspace registered but has not verified (served nothing). */
  isUnverifiedDomain(host: string): boolean {
    return this.unverified.has(host);
  }

  /** The site's address: its verified custom domain, else BASE_URL/p/{slug}/. */
  siteUrl(ws: WorkspaceRow): string {
    const domain = this.domains.of(ws.id);
    if (domain?.status === "verified") return `https://${domain.domain}/`;
    return `${this.deps.config.baseUrl}/p/${encodeURIComponent(ws.slug)}/`;
  }

  // ---- theme and publishing ------------------------------------------------------------------

  getTheme(principal: Principal, ref: string): { theme: Theme } {
    const { workspace } = this.deps.permissions.require(principal, workspaceRef(ref), "viewer");
    return { theme: readSettings(workspace).theme };
  }

  updateTheme(principal: Principal, ref: string, input: unknown): { theme: Theme } {
    const { theme } = parseInput(updateThemeInput, input);
    const settings = this.deps.workspaceSettings.update(principal, ref, { theme });
    return { theme: settings.theme };
  }

  /** Turns the site on or off and sets its visibility (admin). */
  publish(principal: Principal, ref: string, input: unknown): { published: boolean; visibility: Visibility; url: string } {
    const body = parseInput(publishWorkspaceInput, input ?? {});
    const patch: Record<string, unknown> = { published: body.published ?? true };
    if (body.visibility !== undefined) patch.visibility = body.visibility;
    this.deps.workspaceSettings.update(principal, ref, patch);
    const ws = this.deps.permissions.require(principal, workspaceRef(ref), "admin").workspace;
    return { published: ws.published === 1, visibility: this.effectiveVisibility(ws), url: this.siteUrl(ws) };
  }

  /** Everything the Site screen shows (admin). */
  status(principal: Principal, ref: string): SiteStatus {
    const { workspace: ws } = this.deps.permissions.require(principal, workspaceRef(ref), "admin");
    const model = this.model(ws);
    const domain = this.domains.of(ws.id);
    return {
      workspace_id: ws.id,
      slug: ws.slug,
      published: ws.published === 1,
      visibility: readSettings(ws).visibility,
      effective_visibility: this.effectiveVisibility(ws),
      require_auth: this.deps.config.publish.requireAuth,
      theme: readSettings(ws).theme,
      url: this.siteUrl(ws),
      page_count: model?.pages.length ?? 0,
      custom_domain: domain ? domainJson(domain) : null,
      versions: this.versions.list(ws.id),
      problems: model?.problems ?? [],
    };
  }

  /** Published state of each page path for the app (which pages are live on the site). */
  livePages(principal: Principal, ref: string): z.infer<typeof livePagesOutput> {
    const { workspace: ws } = this.deps.permissions.require(principal, workspaceRef(ref), "viewer");
    const base = this.siteUrl(ws);
    const items: Array<{ path: string; url: string }> = [];
    const versions = this.versions.list(ws.id);
    const models = [this.model(ws), ...versions.filter((v) => !v.is_default).map((v) => this.model(ws, v.slug))];
    for (const m of models) {
      if (!m) continue;
      const prefix = m.version && !m.version.is_default ? `${encodeURIComponent(m.version.slug)}/` : "";
      for (const p of m.pages) items.push({ path: p.path, url: `${base}${prefix}${p.route.split("/").map(encodeURIComponent).join("/")}` });
    }
    return { published: ws.published === 1, url: base, pages: items };
  }

  // ---- versions ------------------------------------------------------------------------------

  listVersions(principal: Principal, ref: string): z.infer<typeof versionListOutput> {
    const { workspace } = this.deps.permissions.require(principal, workspaceRef(ref), "viewer");
    return { items: this.versions.list(workspace.id) };
  }

  getVersion(principal: Principal, ref: string, slug: string): SiteVersion {
    const { workspace } = this.deps.permissions.require(principal, workspaceRef(ref), "viewer");
    const v = this.versions.get(workspace.id, slug);
    if (!v) throw new NotFoundError("Version not found");
    return v;
  }

  /**
   * Creates a version. With `snapshot`, the pages the site shows now are copied into base_path
   * through the ledger (new ids, `publish: true` kept), so the version freezes today's docs.
   */
  async createVersion(principal: Principal, ref: string, input: unknown): Promise<SiteVersion> {
    const body = parseInput(createVersionInput, input);
    const { workspace: ws, role } = this.deps.permissions.require(principal, workspaceRef(ref), "admin");
    const basePath = body.base_path ?? `versions/${body.slug}`;
    if (this.versions.get(ws.id, body.slug)) throw new ConflictError("A version with this slug already exists", undefined, { field: "slug" });
    const existing = this.versions.list(ws.id);
    for (const v of existing) {
      if (v.base_path === basePath || basePath.startsWith(`${v.base_path}/`) || v.base_path.startsWith(`${basePath}/`)) {
        throw new ConflictError(`base_path overlaps version ${v.slug} (${v.base_path})`, undefined, { field: "base_path" });
      }
    }
    if (RESERVED_SITE_SEGMENTS.has(body.slug)) throw new ValidationError("slug: is a reserved site path", "slug");
    if (body.snapshot) {
      const rows = this.deps.ledger.records.liveIn(ws.id);
      if (rows.some((r) => r.path.startsWith(`${basePath}/`))) {
        throw new ConflictError("base_path already holds pages; a snapshot needs an empty folder", undefined, { field: "base_path" });
      }
      // The current docs: the published pages outside every version's folder.
      const current = this.model(ws, null);
      const pages = current ? current.pages : [];
      const name = this.deps.users.byId(principal.userId)?.name ?? "";
      // Every copy goes through the ledger (new id, record, search, events); history records the
      // snapshot as one commit. If a copy fails, the copies already written are still committed
      // (in that one commit) and the error is returned: no version is recorded, and the admin
      // removes the partial folder or picks another base_path (docs/decisions/published-sites.md).
      const group = this.deps.ledger.beginGroup(ws.id, `Snapshot version ${body.name} (${body.slug}) into ${basePath}/`);
      // Admins only (checked above): nothing is restricted for them.
      const access = { workspace: ws, role, visibility: OPEN, actor: { id: principal.userId, name }, origin: principal.kind === "api_key" ? ("API" as const) : ("web editor" as const), group };
      try {
        for (const page of pages) {
          const file = this.deps.ledger.readFile(ws.id, page.path);
          if (!file) continue;
          await this.deps.ledger.importPage(access, `${basePath}/${page.rel}`, file.text);
        }
      } finally {
        this.deps.ledger.endGroup(access, group);
      }
    }
    const version: SiteVersion = { slug: body.slug, name: body.name, base_path: basePath, is_default: body.is_default ?? false, created_at: nowIso() };
    this.deps.db.transaction(() => this.versions.insert(ws.id, version))();
    this.invalidate(ws.id);
    return this.versions.get(ws.id, body.slug)!;
  }

  setDefaultVersion(principal: Principal, ref: string, slug: string): SiteVersion {
    const { workspace } = this.deps.permissions.require(principal, workspaceRef(ref), "admin");
    if (!this.versions.get(workspace.id, slug)) throw new NotFoundError("Version not found");
    this.versions.setDefault(workspace.id, slug);
    this.invalidate(workspace.id);
    return this.versions.get(workspace.id, slug)!;
  }

  /** Removes the version record; its pages stay in the workspace (delete them as pages if wanted). */
  deleteVersion(principal: Principal, ref: string, slug: string): void {
    const { workspace } = this.deps.permissions.require(principal, workspaceRef(ref), "admin");
    if (!this.versions.delete(workspace.id, slug)) throw new NotFoundError("Version not found");
    this.invalidate(workspace.id);
  }

  // ---- custom domain -------------------------------------------------------------------------

  getCustomDomain(principal: Principal, ref: string): CustomDomainJson {
    const { workspace } = this.deps.permissions.require(principal, workspaceRef(ref), "admin");
    const row = this.domains.of(workspace.id);
    if (!row) throw new NotFoundError("This workspace has no custom domain");
    return domainJson(row);
  }

  /** Sets the domain (pending until verified) and checks its TXT record at once. */
  async setCustomDomain(principal: Principal, ref: string, input: unknown): Promise<CustomDomainJson> {
    const { domain } = parseInput(setCustomDomainInput, input);
    const { workspace } = this.deps.permissions.require(principal, workspaceRef(ref), "admin");
    if (domain === hostOf(this.deps.config.baseUrl)) throw new ValidationError("domain: is this instance's own address", "domain");
    // The settings update records the domain (and refuses one another workspace uses); its hook fills the table.
    this.deps.workspaceSettings.update(principal, ref, { custom_domain: domain });
    return this.verifyCustomDomain(principal, ref);
  }

  async verifyCustomDomain(principal: Principal, ref: string): Promise<CustomDomainJson> {
    const { workspace } = this.deps.permissions.require(principal, workspaceRef(ref), "admin");
    const row = await this.domains.verify(workspace.id);
    if (!row) throw new NotFoundError("This workspace has no custom domain");
    this.reloadDomains();
    return domainJson(row);
  }

  removeCustomDomain(principal: Principal, ref: string): void {
    const { workspace } = this.deps.permissions.require(principal, workspaceRef(ref), "admin");
    if (!this.domains.of(workspace.id)) throw new NotFoundError("This workspace has no custom domain");
    this.deps.workspaceSettings.update(principal, ref, { custom_domain: null });
  }

  private syncDomainFromSettings(ws: WorkspaceRow): void {
    const wanted = readSettings(ws).custom_domain;
    this.deps.db.transaction(() => {
      if (wanted === null) this.domains.remove(ws.id);
      else {
        const other = this.domains.byDomain(wanted);
        if (other && other.workspace_id !== ws.id) return; // the settings check refuses this first
        this.domains.set(ws.id, wanted);
      }
    })();
    this.reloadDomains();
  }

  private reloadDomains(): void {
    const rows = this.deps.db
      .query<{ domain: string; workspace_id: string; status: string }, []>(
        "SELECT d.domain, d.workspace_id, d.status FROM custom_domains d JOIN workspaces w ON w.id = d.workspace_id WHERE w.deleted_at IS NULL",
      )
      .all();
    this.verified = new Map(rows.filter((r) => r.status === "verified").map((r) => [r.domain, r.workspace_id]));
    this.unverified = new Set(rows.filter((r) => r.status !== "verified").map((r) => r.domain));
  }

  // ---- redirects left by moves ------------------------------------------------------------------

  private recordMove(workspaceId: string, oldPath: string, newPath: string): void {
    const from = redirectKey(oldPath);
    const to = redirectKey(newPath);
    try {
      this.deps.db.transaction(() => {
        // A page moved back to where it was must not redirect away from itself.
        this.deps.db.query("DELETE FROM site_redirects WHERE workspace_id = ? AND from_key = ?").run(workspaceId, to);
        this.deps.db
          .query("INSERT INTO site_redirects (workspace_id, from_key, to_key, created_at) VALUES (?, ?, ?, ?) ON CONFLICT (workspace_id, from_key) DO UPDATE SET to_key = excluded.to_key, created_at = excluded.created_at")
          .run(workspaceId, from, to, nowIso());
      })();
    } catch (error) {
      this.deps.log.error("recording a move redirect failed", { workspace_id: workspaceId, error: String(error) });
    }
  }

  private movedRedirects(workspaceId: string): Map<string, string> {
    const rows = this.deps.db
      .query<{ from_key: string; to_key: string }, [string]>("SELECT from_key, to_key FROM site_redirects WHERE workspace_id = ?")
      .all(workspaceId);
    return new Map(rows.map((r) => [r.from_key, r.to_key]));
  }
}

function hostOf(url: string): string {
  try {
    return new URL(url).hostname;
  } catch {
    return "";
  }
}
