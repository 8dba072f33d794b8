/**
 * Where things live on a site, as a strategy object: the layout, feeds and link resolution ask it
 * for every URL and never build one themselves. The /p/ site answers absolute paths
 * (`/p/{slug}/[{version}/]…`, or `/[{version}/]…` on a verified custom domain); the static
 * export answers relative URLs naming `.html` files; the preview answers its own.
 */
import type { SiteModel } from "./model.ts";

export interface SiteUrls {
  /** A page of the model (by its workspace path), optionally at a heading anchor. */
  page(path: string, anchor?: string): string;
  /** The page's Markdown (`.md`) twin. */
  raw(path: string): string;
  /** An upload referenced by a page (`assets/…` workspace path). */
  asset(workspacePath: string): string;
  /** A theme or script file of the site (`site.css`, `theme-forest.css`, `site.js`, …). */
  theme(file: string): string;
  /** The site's root page. */
  home(): string;
  /** A file at the site's root: `sitemap.xml`, `rss.xml`, `llms.txt`, `manifest.json`, `search`. */
  file(name: string): string;
  /** The home of another version (the version switcher). */
  version(slug: string): string;
  /**
   * The site's MCP endpoint (docs/decisions/site-mcp.md): one per site, whatever the version (its
   * tools take the version as an argument); null where no server answers (the static export, the
   * preview), so nothing there advertises it.
   */
  mcp(): string | null;
  /**
   * The absolute URL for a URL this object returned (canonical links, Open Graph, sitemap, RSS);
   * null when the site has no absolute address (an export without a base URL).
   */
  absolute(url: string): string | null;
}

/** Encodes each path segment, keeping `/`. */
export function encodePath(path: string): string {
  return path.split("/").map(encodeURIComponent).join("/");
}

export function anchorSuffix(anchor?: string): string {
  return anchor ? `#${encodeURIComponent(anchor)}` : "";
}


/**
 * URLs of a site served by `quire serve`: under `/p/{slug}` (or at `/` on a custom domain —
 * `prefix` ""), with `/{version}` added for a version other than the default. `origin` is the
 * absolute origin for canonical links (BASE_URL, or `https://{custom domain}`).
 */
export function servedSiteUrls(model: SiteModel, opts: { prefix: string; origin: string; assetVersion: string }): SiteUrls {
  const versionPart = model.version && !model.version.is_default ? `/${encodeURIComponent(model.version.slug)}` : "";
  const root = `${opts.prefix}${versionPart}`;
  const siteRoot = opts.prefix;
  const pageUrl = (path: string, anchor?: string) => {
    const page = model.byPath.get(path);
    const route = page ? page.route : path.replace(/\.md$/i, "");
    return `${root}/${encodePath(route)}${anchorSuffix(anchor)}`;
  };
  return {
    page: pageUrl,
    raw(path) {
      const page = model.byPath.get(path);
      const rel = page ? page.rel : path;
      return `${root}/${encodePath(rel)}`;
    },
    asset: (workspacePath) => `${siteRoot}/${encodePath(workspacePath.replace(/^\/+/, ""))}`,
    theme: (file) => `${siteRoot}/_quire/${encodeURIComponent(file)}?v=${opts.assetVersion}`,
    home: () => `${root}/`,
    file: (name) => `${root}/${name}`,
    version: (slug) => {
      const v = model.versions.find((x) => x.slug === slug);
      return v && !v.is_default ? `${siteRoot}/${encodeURIComponent(slug)}/` : `${siteRoot}/`;
    },
    mcp: () => `${siteRoot}/mcp`,
    absolute: (url) => (url.startsWith("/") ? `${opts.origin}${url}` : url),
  };
}
