/**
 * Answers requests to published sites (docs/architecture.md §9), whatever the transport: the /p/{slug}/…
 * routes and custom domains both come here with the path inside the site. The order of checks:
 * the site exists and is published → the reader may see it (visibility) → the version → the
 * site's own files (search, feeds, `_quire/` assets, uploads) → the page (HTML, or Markdown for
 * `.md` and `Accept: text/markdown`) → redirects → 404. Every "no" a reader may not learn about
 * is the same 404 with the same body as a page that does not exist.
 *
 * This file is the dispatch; what it answers with lives beside the site's pure parts: the
 * per-model caches (site/page-cache.ts), the CSP (site/site-csp.ts), ETags
 * (site/etag.ts), the path rules (site/request-path.ts) and the custom domain's sign-in
 * hand-off (site/sign-in-handoff.ts).
 */
import type { Config } from "../config.ts";
import type { Logger } from "../core/log.ts";
import { atLeast } from "../workspaces/roles.ts";
import type { SearchService } from "../search/search-service.ts";
import type { Uploads } from "../content/uploads.ts";
import type { WorkspaceRow } from "../workspaces/workspace-records.ts";
import type { Principal } from "../core/principal.ts";
import { renderLayout } from "./site/layout.ts";
import { llmsFullTxt, llmsTxt, manifestJson, robotsTxt, rssXml, sitemapXml } from "./site/feeds.ts";
import { resolveRedirect, type SiteModel, type SitePage } from "./site/model.ts";
import type { SiteUrls } from "./site/urls.ts";
import { renderSitePage } from "./site/render-page.ts";
import { readSiteAsset, siteAssetType, siteAssetVersion } from "./site/site-assets.ts";
import { safeJson } from "./site/escape.ts";
import { bytesEtag, etagMatches, etagOf } from "./site/etag.ts";
import { cachedDoc, sharedHeaders, sharedResponse, SitePageCache } from "./site/page-cache.ts";
import { isMcpStreamRequest, splitPath, wantsMarkdown } from "./site/request-path.ts";
import { signInHandoff } from "./site/sign-in-handoff.ts";
import { NOT_FOUND, type SiteAnswer, type SiteRequest, type SiteSearch, type SiteView } from "./site/site-answer.ts";
import { siteSearchQuery } from "./schemas.ts";
import { LARGE_SITE_PAGES, navForServedPage } from "./site/large-nav.ts";
import { navJson, siteMapHtml } from "./site/nav-file.ts";
import { siteCsp } from "./site/site-csp.ts";
import type { SiteService } from "./site-service.ts";

export type { SiteAnswer, SiteRequest, SiteView } from "./site/site-answer.ts";

const SITE_FILES = new Set(["sitemap.xml", "robots.txt", "rss.xml", "llms.txt", "llms-full.txt", "manifest.json", "search", "nav.json"]);
/** The page listing every page (a large site's whole navigation without a script); a page of the same route wins. */
const SITE_MAP = "site-map";
/** A versioned file (its URL names its content) may be kept by whoever may keep it at all for a year. */
const FOREVER = "max-age=31536000, immutable";
/** The site's machine-readable files and their content types. */
const FEEDS: Record<string, string> = {
  "sitemap.xml": "application/xml; charset=utf-8",
  "robots.txt": "text/plain; charset=utf-8",
  "rss.xml": "application/rss+xml; charset=utf-8",
  "llms.txt": "text/plain; charset=utf-8",
  "llms-full.txt": "text/plain; charset=utf-8",
  "manifest.json": "application/manifest+json; charset=utf-8",
};

/** How long an organization's plan answer (analytics reported or not) is reused by the site. */
const REPORTED_MS = 10_000;

/**
 * What a shared cache (a CDN, a reverse proxy) may do with an answer (docs/decisions/site-caching.md):
 * store it for SITE_CACHE_MAX_AGE seconds when anyone may read it and nothing in the request names a reader;
 * otherwise never store it anywhere. A members-only site, a recognized member (whose page has
 * an edit link), and any request carrying a cookie or an Authorization header are `private,
 * no-store` — marked so on the response itself, so even a cache that ignores `Vary` never keeps
 * them for someone else.
 */
function cacheControlOf(isPrivate: boolean, isMember: boolean, req: SiteRequest, publicValue: string): string {
  if (isPrivate || isMember || req.principal !== null || req.headers.has("cookie") || req.headers.has("authorization")) return PRIVATE;
  return publicValue;
}
const PRIVATE = "private, no-store";

/** Paths whose plain answer is remembered (beyond this the index starts over; the answers stay with their models). */
const MAX_PLAIN_PATHS = 20_000;
/** Distinct Accept values remembered with whether they ask for Markdown. */
const MAX_ACCEPTS = 64;

/**
 * A page's answer to a plain request (see plainRequest), with everything it was made from: the
 * workspace row and site model objects the site service handed out, and the consent question.
 * The same inputs give the same answer, so while the service hands out the same objects the
 * answer is reused as it is; a new row (its settings, its publication), a new model (an edit, a
 * manifest, a version) or another consent answer makes the next request take the whole way.
 */
interface PlainPage {
  slug: string;
  versionSlug: string | undefined;
  ws: WorkspaceRow;
  model: SiteModel;
  asksConsent: boolean;
  /** The page's path as analytics counts a view of it. */
  viewPath: string;
  answer: SiteAnswer;
}

export class SiteServer {
  private readonly cache = new SitePageCache();
  /**
   * Plain answers by the request's path, held weakly: each is kept alive by its model's entry in
   * `plainByModel`, so a republished site's old answers go with its old model.
   */
  private plainIndex = new Map<string, WeakRef<PlainPage>>();
  private plainByModel = new WeakMap<SiteModel, Map<string, PlainPage>>();
  private readonly accepts = new Map<string, boolean>();
  /** Cache-Control of what anyone may read: SITE_CACHE_MAX_AGE bounds how long a publish takes to show through a cache. */
  private readonly publicCache: string;
  private readonly assetTags = new Map<string, string>();
  private assetVersion: Promise<string> | undefined;
  private assetVersionText: string | undefined;
  /** Called for each page view and each site search (analytics counts them); never allowed to fail a request. */
  readonly viewedHooks: Array<(view: SiteView) => void> = [];
  readonly searchedHooks: Array<(search: SiteSearch) => void> = [];

  /** Whether each organization's figures are reported (its plan has analytics), remembered briefly. */
  private readonly reported = new Map<string, { value: boolean; at: number }>();

  constructor(
    private readonly deps: {
      site: SiteService;
      search: SearchService;
      uploads: Uploads;
      config: Config;
      log: Logger;
      /** Whether the organization's analytics are reported to its members (Community: always; Cloud: plans with analytics). */
      analyticsReported?: (orgId: string) => boolean;
    },
  ) {
    this.publicCache = `public, max-age=${deps.config.publish.cacheMaxAge}`;
  }

  /**
   * Whether the site asks its readers for analytics consent: only where a visitor figure is
   * collected and reported, so the question is never asked for nothing. Not on members-only
   * sites (docs/decisions/analytics.md), nor where the organization's plan has no analytics.
   * A plan change reaches the pages within REPORTED_MS (plans change outside this process's events).
   */
  asksConsent(ws: WorkspaceRow, now = Date.now()): boolean {
    if (this.deps.site.effectiveVisibility(ws) !== "public") return false;
    const reported = this.deps.analyticsReported;
    if (!reported) return true;
    let hit = this.reported.get(ws.org_id);
    if (!hit || now - hit.at >= REPORTED_MS) {
      if (this.reported.size >= 10_000) this.reported.clear();
      hit = { value: reported(ws.org_id), at: now };
      this.reported.set(ws.org_id, hit);
    }
    return hit.value;
  }

  /** Forgets every finished document (benchmarks measuring a first render; the site model stays). */
  forgetRendered(): void {
    this.cache.forgetDocs();
    this.plainIndex = new Map();
    this.plainByModel = new WeakMap();
    this.deps.site.renders.clear();
  }

  /** Whether an Accept header asks for the Markdown twin, remembered per distinct value. */
  private markdownAsked(accept: string | null): boolean {
    if (accept === null) return false;
    let asked = this.accepts.get(accept);
    if (asked === undefined) {
      asked = wantsMarkdown(accept);
      if (this.accepts.size >= MAX_ACCEPTS) this.accepts.clear();
      this.accepts.set(accept, asked);
    }
    return asked;
  }

  /**
   * A request whose page answer depends on nothing but the path: an anonymous GET on the
   * instance's own address (`/p/{slug}/…`) with no credential, cookie, revalidation or Markdown
   * preference, not the site MCP's stream path. Its answer is the one handle() gives, so it may
   * be remembered.
   */
  private plainRequest(method: string, principal: Principal | null, prefix: string, tail: string, headers: Headers, noAuthorization = false): boolean {
    return (
      method === "GET" &&
      principal === null &&
      prefix !== "" &&
      tail !== "/mcp" &&
      !headers.has("cookie") &&
      (noAuthorization || !headers.has("authorization")) &&
      !headers.has("if-none-match") &&
      !this.markdownAsked(headers.get("accept"))
    );
  }

  /**
   * The answer to a plain request for `fullPath` (the request's path on the instance, `/p/…`),
   * when that page was answered before and the site service still hands out the same workspace
   * row and site model for it, and the consent question is the same: handle()'s answer without
   * its dispatch. The view is counted as handle() counts it. Undefined: ask handle().
   * `noAuthorization`: the caller has seen that the request carries no Authorization header.
   */
  rememberedPage(fullPath: string, method: string, headers: Headers, ip: string | undefined, noAuthorization = false): SiteAnswer | undefined {
    const plain = this.plainIndex.get(fullPath)?.deref();
    if (plain === undefined || !this.plainRequest(method, null, "/p", "", headers, noAuthorization)) return undefined;
    const { site } = this.deps;
    const now = Date.now();
    const ws = site.workspaceForSlug(plain.slug, now);
    if (ws !== plain.ws || site.model(ws, plain.versionSlug, now) !== plain.model || this.asksConsent(ws, now) !== plain.asksConsent) return undefined;
    this.notify(this.viewedHooks, { workspaceId: ws.id, path: plain.viewPath, headers, ip, cookieless: true });
    return plain.answer;
  }

  private remember(fullPath: string, plain: PlainPage): void {
    // One answer per path and model: a path answered again (its workspace row re-read, as every
    // second) replaces the one before.
    let held = this.plainByModel.get(plain.model);
    if (!held) this.plainByModel.set(plain.model, (held = new Map()));
    // Spellings of a path are many (percent-escapes): what one model holds is bounded too.
    if (held.size >= MAX_PLAIN_PATHS && !held.has(fullPath)) return;
    held.set(fullPath, plain);
    if (this.plainIndex.size >= MAX_PLAIN_PATHS) this.plainIndex.clear();
    this.plainIndex.set(fullPath, new WeakRef(plain));
  }

  /**
   * The answer to a site request. Synchronous for everything served from memory (a promise only
   * for theme files read from disk and the very first request, which learns the assets' version):
   * a cached page costs no turn of the event loop.
   */
  handle(ws: WorkspaceRow | null, req: SiteRequest): SiteAnswer | Promise<SiteAnswer> {
    if (req.method !== "GET" && req.method !== "HEAD") return { status: 405, headers: { allow: "GET, HEAD", "content-type": "text/plain; charset=utf-8" }, body: "Method not allowed\n" };
    // Said of every site alike (known or not): it tells nothing about which sites exist.
    if (isMcpStreamRequest(req.method, req.tail, req.headers.get("accept"))) return { status: 405, headers: { allow: "POST", "content-type": "text/plain; charset=utf-8", "cache-control": "no-store" }, body: "The MCP endpoint takes POST only (no event stream)\n" };
    if (!ws || ws.published !== 1) return NOT_FOUND;
    const segments = splitPath(req.tail);
    if (!segments) return NOT_FOUND;
    const { site } = this.deps;

    // Who is reading: an Authorization header first, then the members' cookie: the app's on the
    // instance's address, the hand-off's on a custom domain (signed for that domain alone).
    const domain = req.prefix === "" ? req.origin.replace(/^https?:\/\//, "") : undefined;
    const principal = req.principal ?? site.cookies.principal(req.headers.get("cookie"), Date.now(), domain);
    const role = site.roleOf(principal, ws);
    if (segments.length === 2 && segments[0] === "_quire" && segments[1] === "sign-in") return signInHandoff(this.deps, ws, req, principal, role, domain);
    const visibility = site.effectiveVisibility(ws);
    if (visibility === "authenticated" && role === null) {
      if (principal === null && req.prefix !== "") {
        return { status: 302, headers: { location: `/login?next=${encodeURIComponent(req.fullPath)}`, "cache-control": "no-store" }, body: null };
      }
      if (principal === null && domain !== undefined) {
        // A members-only site on its custom domain: the member signs in through the instance.
        return { status: 302, headers: { location: `/_quire/sign-in?next=${encodeURIComponent(req.fullPath)}`, "cache-control": "no-store" }, body: null };
      }
      return NOT_FOUND;
    }
    const isPrivate = visibility === "authenticated";

    // Theme files and scripts.
    if (segments[0] === "_quire" && segments.length >= 2) return this.asset(segments.slice(1).join("/"), req);

    // A version other than the default: /{version}/…
    let model = site.model(ws);
    if (!model) return NOT_FOUND;
    const first = segments[0];
    let versionSlug: string | undefined;
    if (first !== undefined && model.versions.some((v) => v.slug === first && !v.is_default)) {
      model = site.model(ws, first);
      if (!model) return NOT_FOUND;
      versionSlug = first;
      segments.shift();
    }
    const assetVersion = this.assetVersionText;
    if (assetVersion === undefined) {
      // Once: the theme files' version goes into every asset URL of the page.
      return (this.assetVersion ??= siteAssetVersion()).then((v) => {
        this.assetVersionText = v;
        return this.handle(ws, req);
      });
    }
    const urlsKey = `${req.prefix}|${req.origin}|${model.version?.slug ?? ""}`;
    const urls = this.cache.urlsFor(model, urlsKey, req.prefix, req.origin, assetVersion);
    const cacheControl = cacheControlOf(isPrivate, role !== null, req, this.publicCache);

    // Site files at the root of the (version's) site.
    if (segments.length === 1 && SITE_FILES.has(segments[0]!)) {
      return this.siteFile(ws, model, urls, segments[0]!, req, { isPrivate, cacheControl, role, urlsKey });
    }
    if (segments.length === 1 && segments[0] === SITE_MAP && !model.byRoute.has(SITE_MAP)) {
      const map = this.cache.text(model, `site-map|${urlsKey}`, () => siteMapHtml(model, urls))!;
      return this.text(map.body, "text/html; charset=utf-8", cacheControl, req, { "content-security-policy": siteCsp(false), vary: "Accept, Cookie, Authorization" }, map.etag);
    }
    // Uploads referenced by the site's pages.
    if (segments[0] === "assets" && segments.length === 2) return this.upload(ws, model, segments[1]!, cacheControl, req);

    const joined = segments.join("/");
    // The Markdown twin: /guides/intro.md
    if (joined.toLowerCase().endsWith(".md")) {
      const page = [...model.byRoute.values()].find((p) => p.rel === joined);
      return page ? this.markdown(ws, model, page, cacheControl, req) : this.redirectOrNotFound(model, urls, joined.replace(/\.md$/i, ""));
    }
    const page = joined === "" ? model.home : model.byRoute.get(joined);
    if (!page) return this.redirectOrNotFound(model, urls, joined);
    // Canonical form: a folder page ends without a slash, the root with one.
    if (req.tail.endsWith("/") && joined !== "") return { status: 301, headers: { location: urls.page(page.path), "cache-control": cacheControl }, body: null };
    if (wantsMarkdown(req.headers.get("accept"))) return this.markdown(ws, model, page, cacheControl, req, true);
    const answer = this.page(ws, model, page, urls, urlsKey, role, cacheControl, req);
    if (answer.status === 200 && answer.response && this.plainRequest(req.method, req.principal, req.prefix, req.tail, req.headers)) {
      this.remember(req.fullPath, { slug: ws.slug, versionSlug, ws, model, asksConsent: this.asksConsent(ws), viewPath: `/${page.path}`, answer });
    }
    return answer;
  }

  private page(
    ws: WorkspaceRow,
    model: SiteModel,
    page: SitePage,
    urls: SiteUrls,
    urlsKey: string,
    role: ReturnType<SiteService["roleOf"]>,
    cacheControl: string,
    req: SiteRequest,
  ): SiteAnswer {
    const canEdit = role !== null && atLeast(role, "editor");
    const asksConsent = this.asksConsent(ws);
    // Same for every reader of the site: its visibility, not the reader, decides.
    const offersAssistant = this.deps.site.effectiveVisibility(ws) === "public";
    const key = `${urlsKey}|${page.path}|${canEdit ? "e" : ""}|${asksConsent ? "c" : ""}|${offersAssistant ? "a" : ""}`;
    const byModel = this.cache.docsOf(model);
    let doc = byModel.get(key);
    if (!doc) {
      const markdown = this.deps.site.pageMarkdown(ws.id, page.path);
      if (markdown === null) return NOT_FOUND;
      const body = renderSitePage(this.deps.site.renders, model, page, markdown, urls, urlsKey);
      const editUrl = canEdit ? `${this.deps.config.baseUrl}/w/${encodeURIComponent(ws.slug)}/p/${page.path.split("/").map(encodeURIComponent).join("/")}` : null;
      // A large site's pages carry the reader's path of the navigation; the rest comes from the navigation file.
      const large = model.pages.length > LARGE_SITE_PAGES;
      const layoutModel = large ? { ...model, nav: navForServedPage(model, page) } : model;
      const largeNav = large ? { file: `${urls.file("nav.json")}?v=${this.navFile(model, urls, urlsKey).version}`, siteMap: urls.file(SITE_MAP) } : undefined;
      const html = renderLayout(layoutModel, page, body, urls, { mode: "site", editUrl, searchUrl: urls.file("search"), asksConsent, offersAssistant, largeNav });
      doc = cachedDoc(html, body.hasMermaid);
      byModel.set(key, doc);
    }
    const shared = sharedHeaders(doc, cacheControl);
    const storable = cacheControl !== PRIVATE;
    if (req.method === "GET") this.notify(this.viewedHooks, { workspaceId: ws.id, path: `/${page.path}`, headers: req.headers, ip: req.ip });
    // The page's policy is the same on every response of its version, so a 304 may carry it too.
    if (etagMatches(req.headers.get("if-none-match"), doc.etag)) return { status: 304, headers: {}, shared, body: null, storable };
    if (req.method === "HEAD") return { status: 200, headers: {}, shared, body: null, storable };
    return { status: 200, headers: {}, shared, body: doc.bytes, response: sharedResponse(doc, cacheControl), storable };
  }

  /** The navigation file of a model under these URLs, and its version (what its URL names). */
  private navFile(model: SiteModel, urls: SiteUrls, urlsKey: string): { body: string; etag: string; version: string } {
    const made = this.cache.text(model, `nav.json|${urlsKey}`, () => navJson(model, urls))!;
    return { ...made, version: made.etag.slice(1, 17) };
  }

  private markdown(ws: WorkspaceRow, model: SiteModel, page: SitePage, cacheControl: string, req: SiteRequest, negotiated = false): SiteAnswer {
    const md = this.cache.text(model, `md|${page.path}`, () => this.deps.site.pageMarkdown(ws.id, page.path));
    if (md === null) return NOT_FOUND;
    return this.text(md.body, "text/markdown; charset=utf-8", cacheControl, req, negotiated ? { vary: "Accept, Cookie, Authorization" } : {}, md.etag);
  }

  private text(body: string, type: string, cacheControl: string, req: SiteRequest, extra: Record<string, string> = {}, knownEtag?: string): SiteAnswer {
    const etag = knownEtag ?? etagOf(body);
    const headers = { "content-type": type, "cache-control": cacheControl, etag, ...extra };
    if (etagMatches(req.headers.get("if-none-match"), etag)) return { status: 304, headers, body: null };
    return { status: 200, headers, body: req.method === "HEAD" ? null : body };
  }

  private siteFile(
    ws: WorkspaceRow,
    model: SiteModel,
    urls: SiteUrls,
    name: string,
    req: SiteRequest,
    ctx: { isPrivate: boolean; cacheControl: string; role: ReturnType<SiteService["roleOf"]>; urlsKey: string },
  ): SiteAnswer {
    const { cacheControl } = ctx;
    if (name === "search") return this.searchAnswer(ws, model, urls, req);
    if (name === "nav.json") {
      const nav = this.navFile(model, urls, ctx.urlsKey);
      // Asked for under the URL the pages name (its version): the bytes at that URL never change.
      const versioned = req.query.get("v") === nav.version;
      const control = versioned ? `${cacheControl.startsWith("public") ? "public" : "private"}, ${FOREVER}` : cacheControl;
      return this.text(nav.body, "application/json; charset=utf-8", control, req, {}, nav.etag);
    }
    const feed = FEEDS[name];
    if (!feed) return NOT_FOUND;
    const made = this.cache.text(model, `${name}|${ctx.urlsKey}|${ctx.isPrivate}`, () => {
      switch (name) {
        case "sitemap.xml":
          return sitemapXml(model, urls);
        case "robots.txt":
          return robotsTxt(model, urls, { public: !ctx.isPrivate });
        case "rss.xml":
          return rssXml(model, urls);
        case "llms.txt":
          return llmsTxt(model, urls);
        case "llms-full.txt":
          return llmsFullTxt(model, urls, (p) => this.deps.site.pageMarkdown(ws.id, p.path));
        default:
          return manifestJson(model, urls);
      }
    })!;
    return this.text(made.body, feed, cacheControl, req, {}, made.etag);
  }

  /** Site search: the workspace's index, filtered to this version's published pages. */
  private searchAnswer(ws: WorkspaceRow, model: SiteModel, urls: SiteUrls, req: SiteRequest): SiteAnswer {
    const parsed = siteSearchQuery.safeParse(Object.fromEntries(req.query));
    if (!parsed.success) {
      return { status: 400, headers: { "content-type": "application/json", "cache-control": "no-store" }, body: safeJson({ error: { code: "VALIDATION_ERROR", message: "q must be at most 200 characters and limit 1–50" } }) };
    }
    const { q, limit } = parsed.data;
    const items: Array<{ path: string; url: string; title: string; snippet: string }> = [];
    if (q.trim() !== "") {
      // Unpublished pages share the index; ask for more and keep the first `limit` published ones.
      const hits = this.deps.search.searchWorkspace(ws.id, q, Math.min(200, limit * 5 + 20));
      for (const hit of hits) {
        const page = model.byPath.get(hit.path);
        if (!page) continue;
        items.push({ path: page.rel, url: urls.page(page.path), title: page.title, snippet: hit.snippet });
        if (items.length >= limit) break;
      }
    }
    if (q.trim() !== "") this.notify(this.searchedHooks, { workspaceId: ws.id, query: q, results: items.length });
    return { status: 200, headers: { "content-type": "application/json; charset=utf-8", "cache-control": "private, no-store" }, body: safeJson({ items }) };
  }

  private notify<T>(hooks: Array<(event: T) => void>, event: T): void {
    for (const hook of hooks) {
      try {
        hook(event);
      } catch (error) {
        this.deps.log.warn("site: a listener failed", { error: String(error) });
      }
    }
  }

  private async asset(name: string, req: SiteRequest): Promise<SiteAnswer> {
    const bytes = await readSiteAsset(name);
    if (!bytes) return NOT_FOUND;
    let etag = this.assetTags.get(name);
    if (!etag) this.assetTags.set(name, (etag = bytesEtag(bytes)));
    const headers = {
      "content-type": siteAssetType(name),
      // URLs carry ?v=<hash of the files>: a new build is a new URL.
      "cache-control": "public, max-age=31536000, immutable",
      etag,
    };
    if (etagMatches(req.headers.get("if-none-match"), etag)) return { status: 304, headers, body: null };
    return { status: 200, headers, body: req.method === "HEAD" ? null : bytes };
  }

  /** An upload is on the site only when a page of the site references it. */
  private upload(ws: WorkspaceRow, model: SiteModel, filename: string, cacheControl: string, req: SiteRequest): SiteAnswer {
    if (!this.deps.site.referencedUploads(ws.id, model).has(filename)) return NOT_FOUND;
    try {
      const file = this.deps.uploads.openIn(ws.id, filename);
      const svg = file.type.ext === "svg";
      const etag = bytesEtag(file.bytes);
      const headers = {
        "content-type": file.type.mime,
        "cache-control": cacheControl,
        etag,
        "content-security-policy": svg ? "sandbox; default-src 'none'; style-src 'unsafe-inline'" : "default-src 'none'; frame-ancestors 'none'",
        "content-disposition": `inline; filename="${file.filename}"`,
      };
      if (etagMatches(req.headers.get("if-none-match"), etag)) return { status: 304, headers, body: null };
      return { status: 200, headers, body: req.method === "HEAD" ? null : file.bytes };
    } catch {
      return NOT_FOUND;
    }
  }

  private redirectOrNotFound(model: SiteModel, urls: SiteUrls, route: string): SiteAnswer {
    const keys = model.version ? [`${model.version.base_path}/${route}`, route] : [route];
    for (const key of keys) {
      const target = resolveRedirect(model, key);
      if (!target) continue;
      const location = "url" in target ? target.url : urls.page(target.page.path);
      return { status: 301, headers: { location, "cache-control": this.publicCache }, body: null };
    }
    return NOT_FOUND;
  }
}
