/**
 * One exported page, from its Markdown to what the ZIP and the search index take: rendered with
 * the site's renderer (embeds as links: an export fetches nothing from another origin), laid out
 * with the site's layout and export URLs, compressed, and scored for search. Pure given the site
 * models, so it runs the same on the exporter's thread or on a worker thread (page-pool.ts), and the
 * bytes do not depend on where it ran.
 */
import { extractText } from "../render/index.ts";
import { RenderCache } from "../render/cache.ts";
import { renderSitePage } from "../site/render-page.ts";
import { NavMemo, renderLayout } from "../site/layout.ts";
import type { SiteModel } from "../site/model.ts";
import { LARGE_SITE_PAGES, navForPage } from "../site/large-nav.ts";
import { exportUrls, HrefCache, versionPrefix, zipPathOfPage } from "./export-urls.ts";
import { relativeHref } from "./paths.ts";
import { scorePage, type ScoredPage } from "./search-index.ts";
import { type PreparedEntry, ZipWriter } from "./zip-writer.ts";

/**
 * A full collection every this many pages: the garbage of a page (its Markdown, tokens, HTML,
 * compressed copy) is short-lived, but left to itself the collector lets the heap, and with it the
 * process's resident memory, grow with the site (10,000 pages: ~255 MB peak without, ~175 MB with);
 * one collection costs a few milliseconds, a few hundred pages' worth of rendering is ~1 s.
 */
export const GC_EVERY = 500;

export interface PageJob {
  /** Index of the page's model in the export's models. */
  model: number;
  /** The page's workspace path. */
  path: string;
  /** The page's Markdown without its frontmatter. */
  body: string;
}

export interface PageOutput {
  htmlPath: string;
  html: PreparedEntry;
  mdPath: string;
  md: PreparedEntry;
  search: ScoredPage;
  hasMermaid: boolean;
  hasMath: boolean;
  /** Workspace paths of the uploads the page links to (the exporter decides which it may copy). */
  assets: string[];
}

export class PageExporter {
  private readonly hrefs = new HrefCache();
  /** Exports never reuse a render (see docs/decisions/export-preview-quality.md): a one-entry cache. */
  private readonly renders = new RenderCache({ maxEntries: 1 });
  /** The navigation's HTML of entries away from the current page, for one folder (LayoutOptions.navMemo). */
  private readonly navMemo = new NavMemo();
  private navFolder: string | null = null;

  constructor(
    private readonly models: SiteModel[],
    private readonly baseUrl: string | null,
  ) {}

  run(job: PageJob): PageOutput {
    const model = this.models[job.model]!;
    const page = model.byPath.get(job.path);
    if (!page) throw new Error(`${job.path} is not a page of the exported site`);
    const zipPath = zipPathOfPage(model, page);
    const assets: string[] = [];
    const urls = exportUrls(model, this.models, zipPath, this.baseUrl, this.hrefs, (path) => assets.push(path));
    // The site's own link resolution (published pages of this version only; uploads, also as the
    // editor's upload URLs).
    const rendered = renderSitePage(this.renders, model, page, job.body, urls, `export|${this.baseUrl ?? ""}`, "link");
    const pageModel = model.pages.length > LARGE_SITE_PAGES ? { ...model, nav: navForPage(model, page) } : model;
    const folder = `${job.model}:${zipPath.slice(0, zipPath.lastIndexOf("/") + 1)}`;
    if (folder !== this.navFolder) {
      this.navMemo.clear();
      this.navFolder = folder;
    }
    const html = renderLayout(pageModel, page, rendered, urls, { mode: "export", searchUrl: null, navMemo: this.navMemo }).replace(
      "</head>",
      `<script src="${relativeHref(zipPath, "_quire/search.js")}"></script>\n</head>`,
    );
    const mdPath = versionPrefix(model) + page.rel;
    const text = extractText(rendered.html);
    return {
      htmlPath: zipPath,
      html: ZipWriter.prepare(zipPath, html),
      mdPath,
      md: ZipWriter.prepare(mdPath, job.body),
      search: scorePage({ url: zipPath, title: page.title, headings: rendered.headings.map((x) => x.text), text: text.slice(0, 20_000), description: page.description }),
      hasMermaid: rendered.hasMermaid,
      hasMath: rendered.hasMath,
      assets,
    };
  }
}
