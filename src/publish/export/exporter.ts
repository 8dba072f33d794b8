/**
 * The static export (DESIGN.md §9 "Export ZIP layout"): a workspace's published site as a ZIP that
 * works from file://, from a sub-path and from any static host. The same renderer, layout, themes
 * and feeds as the /p/ site; only the URLs differ (relative, naming `.html` files: see
 * export-urls.ts). Written as a stream: pages are rendered and compressed one at a time and the
 * bytes handed to the caller as they come (a file, an HTTP response), so memory stays flat however
 * large the site; only a few hundred bytes per page (the search index's share) accumulate.
 *
 * Layout of the ZIP:
 *   index.html, {path}.html, {path}.md     pages (a folder's index.md → {folder}/index.html) and their Markdown
 *   {version}/…                            the pages of each named version other than the default
 *   assets/…                               the uploads the published pages reference (nothing else)
 *   _quire/…                               theme files, the browser script, search.js and the search index
 *   sitemap.xml, robots.txt, llms.txt      (canonical and sitemap URLs absolute only with a base URL)
 */
import { readFileSync, statSync } from "node:fs";
import type { WorkspaceDir } from "../../content/paths.ts";
import type { ContentLedger } from "../../content/ledger.ts";
import { readAssetBytes } from "../../core/assets.ts";
import { extractText, renderMarkdown, type LinkTarget } from "../render/index.ts";
import { llmsTxt, robotsTxt, sitemapXml } from "../site/feeds.ts";
import { renderLayout } from "../site/layout.ts";
import type { SiteModel, SitePage } from "../site/model.ts";
import { readSiteAsset, siteAssetNames } from "../site/site-assets.ts";
import { LARGE_SITE_PAGES, navForPage } from "./large-nav.ts";
import { exportUrls, HrefCache, versionPrefix, zipPathOfPage } from "./export-urls.ts";
import { relativeHref } from "./paths.ts";
import { SearchIndexBuilder } from "./search-index.ts";
import { ZipWriter } from "./zip-writer.ts";

export interface ExportOptions {
  /** Absolute URL the site will live at (sitemap, canonical links); null: relative URLs only. */
  baseUrl?: string | null;
  /** Called after each page: pages done, pages in all. */
  onProgress?: (done: number, total: number) => void;
}

export interface ExportSummary {
  pages: number;
  bytes: number;
  ms: number;
}

/** Vendor files needed only by pages that use them. */
const MERMAID_FILES = /^mermaid\.js$/;
const MATH_FILES = /^(katex\.min\.css|fonts\/KaTeX_)/;

export interface SiteSource {
  /** Every version's model of the workspace's site (the default first); [] when nothing is published. */
  models(workspaceId: string): SiteModel[];
}

export class SiteExporter {
  constructor(private readonly deps: { ledger: ContentLedger; site: SiteSource }) {}

  /** How many pages an export of the workspace holds (for progress and the MCP summary). */
  pageCount(workspaceId: string): number {
    return this.deps.site.models(workspaceId).reduce((n, m) => n + m.pages.length, 0);
  }

  /**
   * The ZIP's bytes, chunk by chunk. The summary (pages, bytes) is the generator's return value.
   * Pulling slowly (a slow HTTP client) pauses the rendering: nothing runs ahead of the reader.
   */
  async *zip(workspaceId: string, opts: ExportOptions = {}): AsyncGenerator<Uint8Array, ExportSummary> {
    const started = performance.now();
    const models = this.deps.site.models(workspaceId);
    const dir = this.deps.ledger.dir(workspaceId);
    const zip = new ZipWriter();
    const search = new SearchIndexBuilder();
    const uploads = new Set<string>();
    const total = models.reduce((n, m) => n + m.pages.length, 0);
    let done = 0;
    let mermaid = false;
    let math = false;
    const hrefs = new HrefCache();
    const baseUrl = opts.baseUrl ? (opts.baseUrl.endsWith("/") ? opts.baseUrl : `${opts.baseUrl}/`) : null;

    for (const model of models) {
      const prefix = versionPrefix(model);
      const pages = [...model.pages].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
      for (const page of pages) {
        const file = this.deps.ledger.readFile(workspaceId, page.path);
        if (!file) continue; // removed since the model was built
        const zipPath = zipPathOfPage(model, page);
        const urls = exportUrls(model, models, zipPath, baseUrl, hrefs);
        const body = file.split.body;
        const rendered = renderMarkdown(body, {
          pagePath: page.path,
          pageExists: (p) => model.byPath.has(p),
          // An exported site fetches nothing from another origin: players are links.
          embeds: "link",
          resolveLink: (target: LinkTarget) => {
            if (target.kind === "page") {
              return model.byPath.has(target.path) ? urls.page(target.path, target.anchor) : null;
            }
            if (!uploadable(dir, target.path)) return null;
            uploads.add(target.path);
            return relativeHref(zipPath, target.path) + (target.anchor ? `#${encodeURIComponent(target.anchor)}` : "");
          },
        });
        mermaid ||= rendered.hasMermaid;
        math ||= rendered.hasMath;
        const pageModel = model.pages.length > LARGE_SITE_PAGES ? { ...model, nav: navForPage(model, page) } : model;
        const html = renderLayout(pageModel, page, rendered, urls, { mode: "export", searchUrl: null }).replace(
          "</head>",
          `<script src="${relativeHref(zipPath, "_quire/search.js")}"></script>\n</head>`,
        );
        zip.add(zipPath, html);
        zip.add(prefix + page.rel, body);
        const text = extractText(rendered.html);
        search.add({ url: zipPath, title: page.title, headings: rendered.headings.map((x) => x.text), text: text.slice(0, 20_000), description: page.description });
        done++;
        opts.onProgress?.(done, total);
        for (const chunk of zip.take()) yield chunk;
      }
      const feedsAt = `${prefix}sitemap.xml`;
      const feedUrls = exportUrls(model, models, feedsAt, baseUrl);
      zip.add(`${prefix}sitemap.xml`, sitemapXml(model, feedUrls));
      zip.add(`${prefix}llms.txt`, llmsTxt(model, feedUrls));
      if (prefix === "") {
        // Crawlers are invited only where the site will be public; without a base URL there is no
        // sitemap address to name, so robots.txt stays minimal.
        zip.add("robots.txt", baseUrl ? robotsTxt(model, feedUrls, { public: true }) : "User-agent: *\nAllow: /\n");
      }
      if (!model.byRoute.has("") && model.home) {
        // No root index.md: index.html sends the reader to the first page of the navigation.
        const target = relativeHref(`${prefix}index.html`, zipPathOfPage(model, model.home));
        zip.add(`${prefix}index.html`, redirectPage(target, model.home.title));
      }
      for (const chunk of zip.take()) yield chunk;
    }

    for (const path of [...uploads].sort()) {
      zip.add(path, new Uint8Array(readFileSync(dir.resolveInside(path))));
      for (const chunk of zip.take()) yield chunk;
    }
    for (const name of siteAssetNames()) {
      if (MERMAID_FILES.test(name) && !mermaid) continue;
      if (MATH_FILES.test(name) && !math) continue;
      const bytes = await readSiteAsset(name);
      if (bytes) zip.add(`_quire/${name}`, bytes);
      for (const chunk of zip.take()) yield chunk;
    }
    const script = await readAssetBytes("export/search.js");
    if (script) zip.add("_quire/search.js", script);
    for (const f of search.files()) zip.add(f.path, f.text);
    zip.end();
    for (const chunk of zip.take()) yield chunk;
    return { pages: done, bytes: zip.bytes, ms: Math.round(performance.now() - started) };
  }
}

/**
 * Whether a file a page links to may go into the export: a regular file inside the workspace, not a
 * page, not under a hidden folder (`.git/`, `.quire/`), and no symlink out of it.
 */
function uploadable(dir: WorkspaceDir, path: string): boolean {
  if (path === "" || path.toLowerCase().endsWith(".md") || path.split("/").some((s) => s.startsWith(".") || s === "")) return false;
  try {
    return statSync(dir.resolveInside(path)).isFile();
  } catch {
    return false; // missing, a folder, outside the workspace or a symlink
  }
}

function redirectPage(href: string, title: string): string {
  const h = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
  return `<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><title>${h(title)}</title><meta http-equiv="refresh" content="0; url=${h(href)}"></head>\n<body><p><a href="${h(href)}">${h(title)}</a></p></body></html>\n`;
}

export type { SitePage };
