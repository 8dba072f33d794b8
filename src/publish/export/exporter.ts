/**
 * The static export (docs/architecture.md §9 "Export ZIP layout"): a workspace's published site as a ZIP that
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
import { filesBytes } from "../../core/storage-errors.ts";
import { readAssetBytes } from "../../core/assets.ts";
import { llmsTxt, robotsTxt, sitemapXml } from "../site/feeds.ts";
import type { SiteModel } from "../site/model.ts";
import { readSiteAsset, siteAssetNames } from "../site/site-assets.ts";
import { exportUrls, versionPrefix, zipPathOfPage } from "./export-urls.ts";
import { GC_EVERY, PageExporter, type PageJob, type PageOutput } from "./page-export.ts";
import { defaultThreads, PagePool, PoolUnavailable } from "./page-pool.ts";
import { relativeHref } from "./paths.ts";
import { SearchIndexBuilder } from "./search-index.ts";
import { ZipWriter } from "./zip-writer.ts";

export interface ExportOptions {
  /** Absolute URL the site will live at (sitemap, canonical links); null: relative URLs only. */
  baseUrl?: string | null;
  /** Called after each page: pages done, pages in all. */
  onProgress?: (done: number, total: number) => void;
  /** Worker threads rendering pages beside this one (default: defaultThreads, i.e. none). */
  threads?: number;
}

export interface ExportSummary {
  pages: number;
  bytes: number;
  ms: number;
  /** Pages rendered on worker threads (0 without `threads`, or when no worker could start). */
  workerPages: number;
}

/** Vendor files needed only by pages that use them. */
const MERMAID_FILES = /^mermaid\.js$/;
const MATH_FILES = /^(katex\.min\.css|fonts\/KaTeX_)/;
/** The ZIP's bytes are handed to the caller once this many are waiting (a page's are ~100 KB at most before compression). */
const FLUSH_BYTES = 256 * 1024;
/** Pages per message to a worker thread: few enough to keep every thread busy, enough to amortise the messages. */
const BATCH = 8;

export interface SiteSource {
  /** Every version's model of the workspace's site (the default first); [] when nothing is published. */
  models(workspaceId: string): SiteModel[];
}

/** The site's own files (styles, scripts, search) beside the pages, at most. */
const EXPORT_OVERHEAD_BYTES = 1024 * 1024;

export class SiteExporter {
  constructor(private readonly deps: { ledger: ContentLedger; site: SiteSource }) {}

  /**
   * What an export of the workspace is expected to take: about the size of its files (Markdown
   * grows into HTML, the ZIP's compression shrinks it back; uploads go in as they are), plus the
   * site's own files. Generous on purpose: refusing an export that would have fitted is a message,
   * while filling the disk stops every save.
   */
  expectedBytes(workspaceId: string): number {
    return filesBytes(this.deps.ledger.dir(workspaceId).root) + EXPORT_OVERHEAD_BYTES;
  }

  /** How many pages an export of the workspace holds (for progress and the MCP summary). */
  pageCount(workspaceId: string): number {
    return this.deps.site.models(workspaceId).reduce((n, m) => n + m.pages.length, 0);
  }

  /**
   * The ZIP's bytes, chunk by chunk. The summary (pages, bytes) is the generator's return value.
   * Pulling slowly (a slow HTTP client) pauses the rendering: only a few batches of pages run ahead
   * of the reader. With `threads`, worker threads render pages too (page-pool.ts); the bytes are the same.
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
    let workerPages = 0;
    let mermaid = false;
    let math = false;
    const baseUrl = opts.baseUrl ? (opts.baseUrl.endsWith("/") ? opts.baseUrl : `${opts.baseUrl}/`) : null;
    const local = new PageExporter(models, baseUrl);
    const threads = opts.threads ?? defaultThreads(total);
    const pool = threads > 0 ? new PagePool(models, baseUrl, threads) : null;
    const window = Math.max(2, threads * 3);
    // Pages go out in batches; their results are taken back in order, whatever thread made them.
    // With workers, this thread takes every (threads + 1)-th batch itself: it would otherwise idle
    // between results, and it is one more core's worth of rendering.
    let turn = 0;
    const submit = (jobs: PageJob[]): Promise<PageOutput[]> => {
      if (!pool?.alive || turn++ % (threads + 1) === threads) return Promise.resolve(jobs.map((job) => local.run(job)));
      const outputs = pool.run(jobs).catch((error: unknown) => {
        if (error instanceof PoolUnavailable) return jobs.map((job) => local.run(job));
        throw error;
      });
      outputs.catch(() => {}); // awaited in order later; a failure is thrown there, not as an unhandled rejection
      return outputs;
    };

    try {
      for (const [index, model] of models.entries()) {
        const prefix = versionPrefix(model);
        const pages = [...model.pages].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
        let next = 0;
        const inflight: Array<Promise<PageOutput[]>> = [];
        const fill = () => {
          while (inflight.length < window && next < pages.length) {
            const jobs: PageJob[] = [];
            while (jobs.length < BATCH && next < pages.length) {
              const page = pages[next++]!;
              const file = this.deps.ledger.readFile(workspaceId, page.path);
              if (file) jobs.push({ model: index, path: page.path, body: file.split.body }); // else removed since the model was built
            }
            if (jobs.length > 0) inflight.push(submit(jobs));
          }
        };
        fill();
        while (inflight.length > 0) {
          const outputs = await inflight.shift()!;
          fill();
          for (const out of outputs) {
            for (const path of out.assets) if (!uploads.has(path) && uploadable(dir, path)) uploads.add(path);
            mermaid ||= out.hasMermaid;
            math ||= out.hasMath;
            zip.addPrepared(out.htmlPath, out.html);
            zip.addPrepared(out.mdPath, out.md);
            search.addScored(out.search);
            done++;
            opts.onProgress?.(done, total);
            if (done % GC_EVERY === 0) Bun.gc(true);
          }
          // Handed out in pieces of a few hundred kilobytes: one write per piece, not two per file.
          if (zip.pending >= FLUSH_BYTES) yield zip.take();
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
      }
    } finally {
      workerPages = pool?.pagesRendered ?? 0;
      pool?.close();
    }

    for (const path of [...uploads].sort()) {
      zip.add(path, new Uint8Array(readFileSync(dir.resolveInside(path))));
      if (zip.pending >= FLUSH_BYTES) yield zip.take();
    }
    for (const name of siteAssetNames()) {
      if (MERMAID_FILES.test(name) && !mermaid) continue;
      if (MATH_FILES.test(name) && !math) continue;
      const bytes = await readSiteAsset(name);
      if (bytes) zip.add(`_quire/${name}`, bytes);
      if (zip.pending >= FLUSH_BYTES) yield zip.take();
    }
    const script = await readAssetBytes("export/search.js");
    if (script) zip.add("_quire/search.js", script);
    for (const f of search.files()) zip.add(f.path, f.text);
    zip.end();
    yield zip.take();
    return { pages: done, bytes: zip.bytes, ms: Math.round(performance.now() - started), workerPages };
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

