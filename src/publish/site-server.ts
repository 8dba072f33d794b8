/**
 * Answers requests to published sites (DESIGN.md §9), whatever the transport: the /p/{slug}/…
 * routes and custom domains both come here with the path inside the site. The order of checks:
 * the site exists and is published → the reader may see it (visibility) → the version → the
 * site's own files (search, feeds, `_quire/` assets, uploads) → the page (HTML, or Markdown for
 * `.md` and `Accept: text/markdown`) → redirects → 404. Every "no" a reader may not learn about
 * is the same 404 with the same body as a page that does not exist.
 */
import type { Config } from "../config.ts";
import type { Logger } from "../core/log.ts";
import type { Principal } from "../core/principal.ts";
import { atLeast } from "../access/roles.ts";
import type { SearchService } from "../search/search-service.ts";
import type { Uploads } from "../content/uploads.ts";
import type { WorkspaceRow } from "../workspaces/workspace-records.ts";
import { renderLayout, NOT_FOUND_HTML } from "./site/layout.ts";
import { llmsFullTxt, llmsTxt, manifestJson, robotsTxt, rssXml, sitemapXml } from "./site/feeds.ts";
import { resolveRedirect, type SiteModel, type SitePage } from "./site/model.ts";
import { servedSiteUrls, type SiteUrls } from "./site/urls.ts";
import { renderSitePage } from "./site/render-page.ts";
import { readSiteAsset, siteAssetType, siteAssetVersion } from "./site/site-assets.ts";
import { safeJson } from "./site/escape.ts";
import { siteSearchQuery } from "./schemas.ts";
import type { SiteService } from "./site-service.ts";
import { HANDOFF_STATE_COOKIE, SiteCookies, readCookie } from "./site-cookie.ts";

export interface SiteRequest {
  method: string;
  /** The raw (still percent-encoded) path inside the site, starting with `/`. */
  tail: string;
  query: URLSearchParams;
  headers: Headers;
  /** The caller from `Authorization` (an API key or access token), if any. */
  principal: Principal | null;
  /** Where the site is mounted: `/p/{slug}` or `` on a custom domain. */
  prefix: string;
  /** Absolute origin for canonical URLs (BASE_URL, or https://{custom domain}). */
  origin: string;
  /** The request's own URL path (for `/login?next=`). */
  fullPath: string;
  /** The client's address (for the day's salted visitor hash, with consent only; never stored). */
  ip?: string;
}

/** A page served to a reader (a 200 or a 304 of a GET), for analytics. */
interface SiteView {
  workspaceId: string;
  path: string;
  headers: Headers;
  ip: string | undefined;
}

/** A site search, for analytics. */
interface SiteSearch {
  workspaceId: string;
  query: string;
  results: number;
}

export interface SiteAnswer {
  status: number;
  /** This response's own headers (for a page: its CSP with the fresh nonce). */
  headers: Record<string, string>;
  /**
   * Headers shared by every response of one cached page version (type, caching, ETag, referrer
   * policy, vary, nosniff), built once; never modified (copy them: `new Headers(shared)`). Sent
   * together with `headers`.
   */
  shared?: Headers;
  body: string | Uint8Array | Blob | null;
}

const NONCE_MARK = "\u0000quire-nonce\u0000";
const NOT_FOUND: SiteAnswer = {
  status: 404,
  headers: { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" },
  body: NOT_FOUND_HTML,
};
const SITE_FILES = new Set(["sitemap.xml", "robots.txt", "rss.xml", "llms.txt", "llms-full.txt", "manifest.json", "search"]);
const MAX_SEGMENTS = 32;
/** A path of unreserved ASCII characters and slashes: its segments decode to themselves. */
const PLAIN_PATH = /^[A-Za-z0-9._~\/-]*$/;
/** The site's machine-readable files and their content types. */
const FEEDS: Record<string, string> = {
  "sitemap.xml": "application/xml; charset=utf-8",
  "robots.txt": "text/plain; charset=utf-8",
  "rss.xml": "application/rss+xml; charset=utf-8",
  "llms.txt": "text/plain; charset=utf-8",
  "llms-full.txt": "text/plain; charset=utf-8",
  "manifest.json": "application/manifest+json; charset=utf-8",
};

/** The published site's Content-Security-Policy: scripts only by nonce; KaTeX's inline styles only as attributes. */
export function siteCsp(nonce: string): string {
  return `${CSP_HEAD}${nonce}${CSP_MIDDLE}${nonce}${CSP_TAIL}`;
}
const CSP_HEAD = "default-src 'none'; script-src 'nonce-";
const CSP_MIDDLE = "'; style-src 'self' 'nonce-";
const CSP_TAIL =
  "'; " +
  [
    "style-src-attr 'unsafe-inline'",
    "img-src 'self' data: https:",
    "font-src 'self'",
    "connect-src 'self'",
    "manifest-src 'self'",
    "frame-src https://www.youtube-nocookie.com https://www.youtube.com https://player.vimeo.com https://codepen.io https://codesandbox.io https://stackblitz.com https://www.loom.com https://www.figma.com https://gist.github.com",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'self'",
    "object-src 'none'",
  ].join("; ");

interface CachedDoc {
  /** The document's UTF-8 bytes with NONCE_LENGTH placeholder bytes wherever the nonce goes. */
  template: Uint8Array;
  /** Byte offsets of the nonce placeholders in `template`. */
  nonceAt: number[];
  etag: string;
  /** The headers every response of this version shares, by Cache-Control value (public or private). */
  shared: Map<string, Headers>;
}

const utf8 = new TextEncoder();
/** How long an organization's plan answer (analytics reported or not) is reused by the site. */
const REPORTED_MS = 10_000;

export class SiteServer {
  private docs = new WeakMap<SiteModel, Map<string, CachedDoc>>();
  private readonly urls = new WeakMap<SiteModel, Map<string, SiteUrls>>();
  private readonly texts = new WeakMap<SiteModel, Map<string, { body: string; etag: string }>>();
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
  ) {}

  /**
   * Whether the site asks its readers for analytics consent: only where a visitor figure is
   * collected and reported, so the question is never asked for nothing. Not on members-only
   * sites (docs/decisions/analytics.md), nor where the organization's plan has no analytics.
   * A plan change reaches the pages within REPORTED_MS (plans change outside this process's events).
   */
  asksConsent(ws: WorkspaceRow): boolean {
    if (this.deps.site.effectiveVisibility(ws) !== "public") return false;
    const reported = this.deps.analyticsReported;
    if (!reported) return true;
    const now = Date.now();
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
    this.docs = new WeakMap();
    this.deps.site.renders.clear();
  }

  /**
   * The answer to a site request. Synchronous for everything served from memory (a promise only
   * for theme files read from disk and the very first request, which learns the assets' version):
   * a cached page costs no turn of the event loop.
   */
  handle(ws: WorkspaceRow | null, req: SiteRequest): SiteAnswer | Promise<SiteAnswer> {
    if (req.method !== "GET" && req.method !== "HEAD") return { status: 405, headers: { allow: "GET, HEAD", "content-type": "text/plain; charset=utf-8" }, body: "Method not allowed\n" };
    if (!ws || ws.published !== 1) return NOT_FOUND;
    const segments = splitPath(req.tail);
    if (!segments) return NOT_FOUND;
    const { site } = this.deps;

    // Who is reading: an Authorization header first, then the members' cookie: the app's on the
    // instance's address, the hand-off's on a custom domain (signed for that domain alone).
    const domain = req.prefix === "" ? req.origin.replace(/^https?:\/\//, "") : undefined;
    const principal = req.principal ?? site.cookies.principal(req.headers.get("cookie"), Date.now(), domain);
    const role = site.roleOf(principal, ws);
    if (segments.length === 2 && segments[0] === "_quire" && segments[1] === "sign-in") return this.signIn(ws, req, principal, role, domain);
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
    if (first !== undefined && model.versions.some((v) => v.slug === first && !v.is_default)) {
      model = site.model(ws, first);
      if (!model) return NOT_FOUND;
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
    let byModel = this.urls.get(model);
    if (!byModel) this.urls.set(model, (byModel = new Map()));
    let urls = byModel.get(urlsKey);
    if (!urls) byModel.set(urlsKey, (urls = servedSiteUrls(model, { prefix: req.prefix, origin: req.origin, assetVersion })));
    const cacheControl = isPrivate || role !== null ? "private, max-age=300" : "public, max-age=300";

    // Site files at the root of the (version's) site.
    if (segments.length === 1 && SITE_FILES.has(segments[0]!)) {
      return this.siteFile(ws, model, urls, segments[0]!, req, { isPrivate, cacheControl, role, urlsKey });
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
    return this.page(ws, model, page, urls, urlsKey, role, cacheControl, req);
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
    const key = `${urlsKey}|${page.path}|${canEdit ? "e" : ""}|${asksConsent ? "c" : ""}`;
    let byModel = this.docs.get(model);
    if (!byModel) this.docs.set(model, (byModel = new Map()));
    let doc = byModel.get(key);
    if (!doc) {
      const markdown = this.deps.site.pageMarkdown(ws.id, page.path);
      if (markdown === null) return NOT_FOUND;
      const body = renderSitePage(this.deps.site.renders, model, page, markdown, urls, urlsKey);
      const editUrl = canEdit ? `${this.deps.config.baseUrl}/w/${encodeURIComponent(ws.slug)}/p/${page.path.split("/").map(encodeURIComponent).join("/")}` : null;
      const html = renderLayout(model, page, body, urls, { mode: "site", nonce: NONCE_MARK, editUrl, searchUrl: urls.file("search"), asksConsent });
      doc = { ...nonceTemplate(html), etag: etagOf(html), shared: new Map() };
      byModel.set(key, doc);
    }
    let shared = doc.shared.get(cacheControl);
    if (!shared) {
      shared = new Headers({
        "content-type": "text/html; charset=utf-8",
        "cache-control": cacheControl,
        etag: doc.etag,
        "referrer-policy": "strict-origin-when-cross-origin",
        vary: "Accept, Cookie, Authorization",
        "x-content-type-options": "nosniff",
      });
      doc.shared.set(cacheControl, shared);
    }
    if (req.method === "GET") this.notify(this.viewedHooks, { workspaceId: ws.id, path: `/${page.path}`, headers: req.headers, ip: req.ip });
    if (matches(req.headers.get("if-none-match"), doc.etag)) {
      // A 304's headers replace the cached ones, and the cached body carries the nonce of the
      // response that delivered it: a new policy here would block every script of that body.
      return { status: 304, headers: {}, shared, body: null };
    }
    const nonce = nextNonce();
    return {
      status: 200,
      headers: { "content-security-policy": siteCsp(nonce.text) },
      shared,
      body: req.method === "HEAD" ? null : withNonce(doc, nonce.ascii),
    };
  }

  /**
   * The sign-in hand-off to a custom domain (docs/decisions/published-sites.md). On the instance,
   * `/p/{slug}/_quire/sign-in?next=/path` turns the member's cookie into a one-time token and sends
   * the browser to `https://{domain}/_quire/sign-in?token=…&next=/path`; there the token is
   * exchanged, once, for the domain's own cookie. Every refusal a stranger could probe is the
   * missing page's 404.
   */
  private signIn(ws: WorkspaceRow, req: SiteRequest, principal: Principal | null, role: ReturnType<SiteService["roleOf"]>, domain: string | undefined): SiteAnswer {
    const { site } = this.deps;
    const now = Date.now();
    // The token travels in the URL: no Referer may carry it on, and nothing may cache the answer.
    const noStore = { "cache-control": "no-store", "referrer-policy": "no-referrer" };
    const next = localPath(req.query.get("next"));
    if (domain !== undefined) {
      const token = req.query.get("token");
      if (token === null) {
        // The start, on the domain: a state cookie for this browser, then the instance.
        const { state, cookie } = site.cookies.newHandoffState();
        const start = `${this.deps.config.baseUrl}/p/${encodeURIComponent(ws.slug)}/_quire/sign-in?next=${encodeURIComponent(next)}&state=${state}`;
        return { status: 302, headers: { location: start, "set-cookie": cookie, ...noStore }, body: null };
      }
      const cookie = site.cookies.redeemHandoff(token, readCookie(req.headers.get("cookie"), HANDOFF_STATE_COOKIE), ws.id, domain, now);
      if (!cookie) return NOT_FOUND;
      // The state cookie is left to expire (minutes, only under /_quire/): its token is spent.
      return { status: 302, headers: { location: next, "set-cookie": cookie, ...noStore }, body: null };
    }
    const custom = site.domains.of(ws.id);
    if (!custom || custom.status !== "verified") return NOT_FOUND;
    const state = req.query.get("state");
    // Without the domain's state (a link straight to the instance), the domain starts the hand-off.
    if (!SiteCookies.isState(state)) return { status: 302, headers: { location: `https://${custom.domain}/_quire/sign-in?next=${encodeURIComponent(next)}`, ...noStore }, body: null };
    if (principal === null) {
      const query = req.query.toString();
      return { status: 302, headers: { location: `/login?next=${encodeURIComponent(query ? `${req.fullPath}?${query}` : req.fullPath)}`, ...noStore }, body: null };
    }
    if (principal.kind !== "session" || role === null) return NOT_FOUND;
    const token = site.cookies.issueHandoff(principal.sessionId, ws.id, custom.domain, state, now);
    return { status: 302, headers: { location: `https://${custom.domain}/_quire/sign-in?token=${token}&next=${encodeURIComponent(next)}`, ...noStore }, body: null };
  }

  private markdown(ws: WorkspaceRow, model: SiteModel, page: SitePage, cacheControl: string, req: SiteRequest, negotiated = false): SiteAnswer {
    const md = this.cachedText(model, `md|${page.path}`, () => this.deps.site.pageMarkdown(ws.id, page.path));
    if (md === null) return NOT_FOUND;
    return this.text(md.body, "text/markdown; charset=utf-8", cacheControl, req, negotiated ? { vary: "Accept, Cookie, Authorization" } : {}, md.etag);
  }

  /** A text answer made once per site model (feeds, Markdown twins), then served from memory. */
  private cachedText(model: SiteModel, key: string, make: () => string | null): { body: string; etag: string } | null {
    let byModel = this.texts.get(model);
    if (!byModel) this.texts.set(model, (byModel = new Map()));
    let hit = byModel.get(key);
    if (!hit) {
      const body = make();
      if (body === null) return null;
      hit = { body, etag: etagOf(body) };
      byModel.set(key, hit);
    }
    return hit;
  }

  private text(body: string, type: string, cacheControl: string, req: SiteRequest, extra: Record<string, string> = {}, knownEtag?: string): SiteAnswer {
    const etag = knownEtag ?? etagOf(body);
    const headers = { "content-type": type, "cache-control": cacheControl, etag, ...extra };
    if (matches(req.headers.get("if-none-match"), etag)) return { status: 304, headers, body: null };
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
    const feed = FEEDS[name];
    if (!feed) return NOT_FOUND;
    const made = this.cachedText(model, `${name}|${ctx.urlsKey}|${ctx.isPrivate}`, () => {
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
    if (!etag) this.assetTags.set(name, (etag = `"${Bun.hash(bytes).toString(16)}"`));
    const headers = {
      "content-type": siteAssetType(name),
      // URLs carry ?v=<hash of the files>: a new build is a new URL.
      "cache-control": "public, max-age=31536000, immutable",
      etag,
    };
    if (matches(req.headers.get("if-none-match"), etag)) return { status: 304, headers, body: null };
    return { status: 200, headers, body: req.method === "HEAD" ? null : bytes };
  }

  /** An upload is on the site only when a page of the site references it. */
  private upload(ws: WorkspaceRow, model: SiteModel, filename: string, cacheControl: string, req: SiteRequest): SiteAnswer {
    if (!this.deps.site.referencedUploads(ws.id, model).has(filename)) return NOT_FOUND;
    try {
      const file = this.deps.uploads.openIn(ws.id, filename);
      const svg = file.type.ext === "svg";
      const etag = `"${Bun.hash(file.bytes).toString(16)}"`;
      const headers = {
        "content-type": file.type.mime,
        "cache-control": cacheControl,
        etag,
        "content-security-policy": svg ? "sandbox; default-src 'none'; style-src 'unsafe-inline'" : "default-src 'none'; frame-ancestors 'none'",
        "content-disposition": `inline; filename="${file.filename}"`,
      };
      if (matches(req.headers.get("if-none-match"), etag)) return { status: 304, headers, body: null };
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
      return { status: 301, headers: { location, "cache-control": "public, max-age=300" }, body: null };
    }
    return NOT_FOUND;
  }
}

/**
 * Splits the raw path into decoded segments; null for anything that is not a plain path:
 * malformed escapes, encoded slashes or backslashes, dot segments, control characters, hidden
 * (dot-first) segments, empty inner segments.
 */
function splitPath(raw: string): string[] | null {
  const trimmed = raw.replace(/^\//, "");
  if (trimmed === "") return [];
  const parts = trimmed.replace(/\/$/, "").split("/");
  if (parts.length > MAX_SEGMENTS) return null;
  // The usual path: unreserved ASCII only, so nothing to decode or normalize; the same checks.
  if (PLAIN_PATH.test(trimmed)) {
    for (const part of parts) if (part === "" || part.startsWith(".")) return null;
    return parts;
  }
  const out: string[] = [];
  for (const part of parts) {
    if (part === "") return null;
    let seg: string;
    try {
      seg = decodeURIComponent(part);
    } catch {
      return null;
    }
    if (seg === "." || seg === ".." || seg.startsWith(".") || /[\/\\\u0000-\u001f\u007f]/.test(seg) || /%[0-9a-f]{2}/i.test(seg)) return null;
    if (seg !== seg.normalize("NFC") && seg.normalize("NFC") === "") return null;
    out.push(seg.normalize("NFC"));
  }
  return out;
}

/**
 * CSP nonces: 144 random bits each (18 bytes, exactly 24 base64 characters, no padding), drawn
 * from the system's CSPRNG a batch at a time and each used once. A batch of 256 costs one random
 * fill and one base64 encoding instead of both per response.
 */
const NONCE_BYTES = 18;
const NONCE_LENGTH = 24;
const NONCE_BATCH = 256;
let nonceText = "";
let nonceAscii = new Uint8Array(0);
let nonceNext = NONCE_BATCH;

/** A fresh nonce: its text (for the header) and the same characters as bytes (for the body). */
function nextNonce(): { text: string; ascii: Uint8Array } {
  if (nonceNext >= NONCE_BATCH) {
    const random = Buffer.alloc(NONCE_BYTES * NONCE_BATCH);
    crypto.getRandomValues(random);
    nonceText = random.toString("base64");
    nonceAscii = utf8.encode(nonceText);
    nonceNext = 0;
  }
  const at = nonceNext++ * NONCE_LENGTH;
  return { text: nonceText.slice(at, at + NONCE_LENGTH), ascii: nonceAscii.subarray(at, at + NONCE_LENGTH) };
}

/** The document as UTF-8 bytes with a NONCE_LENGTH gap at each nonce mark, and where the gaps are. */
function nonceTemplate(html: string): { template: Uint8Array; nonceAt: number[] } {
  const parts = html.split(NONCE_MARK).map((p) => utf8.encode(p));
  let size = 0;
  for (const p of parts) size += p.byteLength;
  const template = new Uint8Array(size + NONCE_LENGTH * (parts.length - 1));
  const nonceAt: number[] = [];
  let at = 0;
  for (let i = 0; i < parts.length; i++) {
    if (i > 0) {
      nonceAt.push(at);
      at += NONCE_LENGTH;
    }
    template.set(parts[i]!, at);
    at += parts[i]!.byteLength;
  }
  return { template, nonceAt };
}

/** This response's body: one copy of the template with the nonce written into its gaps. */
function withNonce(doc: CachedDoc, nonce: Uint8Array): Uint8Array {
  const out = doc.template.slice();
  for (const at of doc.nonceAt) out.set(nonce, at);
  return out;
}

/** Where a hand-off may land: a path on the same site (never `//host`, a scheme or a backslash trick); else the root. */
function localPath(next: string | null): string {
  if (!next || next.length > 2000 || !next.startsWith("/") || next.startsWith("//") || /[\\\u0000-\u001f\u007f]/.test(next)) return "/";
  return next;
}

function wantsMarkdown(accept: string | null): boolean {
  if (!accept || !/markdown/i.test(accept)) return false;
  return /(^|,)\s*text\/markdown\s*(;|,|$)/i.test(accept) && !/(^|,)\s*text\/html\s*(;|,|$)/i.test(accept.split(/text\/markdown/i)[0] ?? "");
}

function etagOf(text: string): string {
  return `"${new Bun.CryptoHasher("sha256").update(text).digest("hex").slice(0, 32)}"`;
}

function matches(ifNoneMatch: string | null, etag: string): boolean {
  if (!ifNoneMatch) return false;
  return ifNoneMatch.split(",").some((t) => t.trim().replace(/^W\//, "") === etag || t.trim() === "*");
}
