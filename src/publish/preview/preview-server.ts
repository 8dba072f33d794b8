/**
 * `quire preview`: a local server (127.0.0.1 only) showing a workspace's site as the /p/ site
 * would, rendered straight from the files on every request, with the same renderer, layout, themes
 * and CSP. A change to any file of the workspace reloads the open tabs within a second (a file
 * watcher → server-sent events → a small script, loaded by nonce). A page that fails to render
 * shows the error in place; the server keeps running.
 *
 * It only reads: the database (read-only, for the workspace's name and settings) and the files.
 */
import { watch, statSync, readFileSync, type FSWatcher } from "node:fs";
import { randomBytes } from "node:crypto";
import type { Db } from "../../db/database.ts";
import type { WorkspaceRow } from "../../workspaces/workspace-records.ts";
import { WorkspaceDir } from "../../content/paths.ts";
import { splitFile } from "../../content/frontmatter.ts";
import { extractText } from "../render/index.ts";
import { RenderCache } from "../render/cache.ts";
import { renderSitePage } from "../site/render-page.ts";
import { renderLayout } from "../site/layout.ts";
import { llmsTxt, manifestJson, robotsTxt, rssXml, sitemapXml } from "../site/feeds.ts";
import { escapeHtml as h } from "../../core/escape.ts";
import type { SiteModel, SitePage } from "../site/model.ts";
import { readSiteAsset, siteAssetType } from "../site/site-assets.ts";
import { previewCsp } from "../site/site-csp.ts";
import { anchorSuffix, encodePath, type SiteUrls } from "../site/urls.ts";
import { fileModel } from "./file-model.ts";

/** The site's files for machines, as the /p/ site answers them (the same pure functions). */
const FEEDS: Record<string, { type: string; make(model: SiteModel, urls: SiteUrls): string }> = {
  "/sitemap.xml": { type: "application/xml; charset=utf-8", make: sitemapXml },
  "/robots.txt": { type: "text/plain; charset=utf-8", make: (m, u) => robotsTxt(m, u, { public: false }) },
  "/rss.xml": { type: "application/rss+xml; charset=utf-8", make: rssXml },
  "/llms.txt": { type: "text/plain; charset=utf-8", make: llmsTxt },
  "/manifest.json": { type: "application/manifest+json; charset=utf-8", make: manifestJson },
};

const RELOAD_SCRIPT = `(function(){var es=new EventSource("/_quire/events");es.onmessage=function(e){if(e.data==="reload")location.reload()};})();\n`;
const DEBOUNCE_MS = 80;
/** Renders by content hash and link context: an unchanged page costs a lookup; an edited one misses. */
const renders = new RenderCache({ maxEntries: 500 });
const HEARTBEAT_MS = 15_000;

interface PreviewOptions {
  db: Db;
  dataDir: string;
  workspaceId: string;
  port: number;
  drafts: boolean;
}

export interface RunningPreview {
  url: string;
  port: number;
  stop(): Promise<void>;
}

export async function startPreview(opts: PreviewOptions): Promise<RunningPreview> {
  const dir = new WorkspaceDir(opts.dataDir, opts.workspaceId);
  const clients = new Set<ReadableStreamDefaultController<Uint8Array>>();
  const encoder = new TextEncoder();
  const send = (text: string) => {
    for (const c of clients) {
      try {
        c.enqueue(encoder.encode(text));
      } catch {
        clients.delete(c);
      }
    }
  };

  let timer: ReturnType<typeof setTimeout> | null = null;
  let watcher: FSWatcher | null = null;
  try {
    watcher = watch(dir.root, { recursive: true }, (_event, name) => {
      if (name && (String(name).startsWith(".git/") || String(name) === ".git")) return;
      if (timer) clearTimeout(timer);
      timer = setTimeout(() => send("data: reload\n\n"), DEBOUNCE_MS);
    });
  } catch {
    watcher = null; // no folder yet: pages appear when it exists, but nothing reloads by itself
  }
  const heartbeat = setInterval(() => send(": ping\n\n"), HEARTBEAT_MS);

  const workspace = (): WorkspaceRow | null =>
    opts.db.query<WorkspaceRow, [string]>("SELECT * FROM workspaces WHERE id = ? AND deleted_at IS NULL").get(opts.workspaceId);
  const sortOrder = (): Map<string, number | null> =>
    new Map(
      opts.db
        .query<{ path: string; sort_order: number | null }, [string]>("SELECT path, sort_order FROM pages WHERE workspace_id = ? AND deleted_at IS NULL")
        .all(opts.workspaceId)
        .map((r) => [r.path, r.sort_order]),
    );

  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: opts.port,
    idleTimeout: 0,
    async fetch(request) {
      const url = new URL(request.url);
      if (request.method !== "GET" && request.method !== "HEAD") return new Response("Method not allowed", { status: 405 });
      if (url.pathname === "/_quire/events") {
        let mine: ReadableStreamDefaultController<Uint8Array> | null = null;
        const body = new ReadableStream<Uint8Array>({
          start(controller) {
            mine = controller;
            clients.add(controller);
            controller.enqueue(encoder.encode(": connected\n\n"));
          },
          cancel() {
            if (mine) clients.delete(mine);
          },
        });
        return new Response(body, { headers: { "content-type": "text/event-stream", "cache-control": "no-store", "x-content-type-options": "nosniff" } });
      }
      if (url.pathname === "/_quire/preview.js") return new Response(RELOAD_SCRIPT, { headers: staticHeaders("text/javascript; charset=utf-8") });
      if (url.pathname.startsWith("/_quire/")) {
        const name = safeDecode(url.pathname.slice("/_quire/".length));
        const bytes = name ? await readSiteAsset(name) : null;
        return bytes ? new Response(bytes as Uint8Array<ArrayBuffer>, { headers: staticHeaders(siteAssetType(name!)) }) : notFound();
      }
      const ws = workspace();
      if (!ws) return new Response("This workspace no longer exists", { status: 404 });
      const built = fileModel(ws, dir.root, { drafts: opts.drafts, sortOrder: sortOrder() });
      if (!built) return notFound();
      const { model, drafts } = built;
      const origin = `http://127.0.0.1:${server.port}`;
      const urls = previewUrls(model, origin);
      if (url.pathname === "/search") return Response.json({ items: search(model, dir, url.searchParams.get("q") ?? "", urls) });
      const feed = FEEDS[url.pathname];
      if (feed) return new Response(feed.make(model, urls), { headers: staticHeaders(feed.type) });
      if (url.pathname === "/favicon.ico") {
        const icon = await readSiteAsset("icon.svg");
        return icon ? new Response(icon as Uint8Array<ArrayBuffer>, { headers: staticHeaders("image/svg+xml") }) : notFound();
      }

      const rawPath = safeDecode(url.pathname.replace(/^\/+/, ""));
      if (rawPath === null || rawPath.split("/").some((s) => s === ".." || s.startsWith("."))) return notFound();
      if (rawPath.toLowerCase().endsWith(".md")) {
        const page = model.pages.find((p) => p.rel === rawPath);
        if (!page) return notFound();
        const text = readText(dir, page.path);
        return text === null ? notFound() : new Response(splitFile(text).body, { headers: staticHeaders("text/markdown; charset=utf-8") });
      }
      const page = model.byRoute.get(rawPath.replace(/\/+$/, "")) ?? (rawPath === "" ? model.home : undefined);
      if (page) return renderPage(model, page, urls, dir, drafts.has(page.path));
      return serveFile(dir, rawPath);
    },
  });

  return {
    url: `http://127.0.0.1:${server.port}/`,
    port: server.port!,
    async stop() {
      clearInterval(heartbeat);
      if (timer) clearTimeout(timer);
      watcher?.close();
      for (const c of clients) {
        try {
          c.close();
        } catch {
          // already closed by the browser
        }
      }
      clients.clear();
      await server.stop(true);
    },
  };
}

function renderPage(model: SiteModel, page: SitePage, urls: SiteUrls, dir: WorkspaceDir, draft: boolean): Response {
  const nonce = randomBytes(16).toString("base64");
  const headers = {
    "content-type": "text/html; charset=utf-8",
    "cache-control": "no-store",
    "content-security-policy": previewCsp(nonce),
    "x-content-type-options": "nosniff",
  };
  const reload = `<script nonce="${nonce}" src="/_quire/preview.js"></script>`;
  try {
    // Gone since the listing: not found. Unreadable (permissions, I/O): the error, shown below.
    const text = readPage(dir, page.path);
    if (text === null) return notFound();
    const body = renderSitePage(renders, model, page, splitFile(text).body, urls, "preview");
    let html = renderLayout(model, page, body, urls, { mode: "preview", nonce, searchUrl: "/search" });
    const banner = draft ? `<p class="preview-draft" role="note"><strong>Draft</strong> — not published: readers of the site do not see this page.</p>\n` : "";
    html = html.replace("</head>", `<style nonce="${nonce}">.preview-draft{border:2px dashed #d4a72c;padding:.5rem .75rem;border-radius:6px;margin:0 0 1rem}</style>\n${reload}\n</head>`);
    if (banner) html = html.replace('<article class="page">', `<article class="page">\n${banner}`);
    return new Response(html, { headers });
  } catch (error) {
    // The preview is where a writer finds mistakes: show what failed, keep serving.
    const message = error instanceof Error ? error.message : String(error);
    const html = `<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><title>Render error · ${h(page.title)}</title>${reload}</head>\n<body><main><h1>This page could not be rendered</h1><p><code>${h(page.path)}</code></p><pre class="render-error">${h(message)}</pre><p>Fix the file and save: this tab reloads by itself.</p></main></body></html>\n`;
    return new Response(html, { status: 500, headers });
  }
}

function previewUrls(model: SiteModel, origin: string): SiteUrls {
  return {
    page(path, anchor) {
      const page = model.byPath.get(path);
      const route = page ? page.route : path.replace(/\.md$/i, "");
      return `/${encodePath(route)}${anchorSuffix(anchor)}`;
    },
    raw(path) {
      const page = model.byPath.get(path);
      return `/${encodePath(page ? page.rel : path)}`;
    },
    asset: (workspacePath) => `/${encodePath(workspacePath.replace(/^\/+/, ""))}`,
    theme: (file) => `/_quire/${file.split("/").map(encodeURIComponent).join("/")}`,
    home: () => "/",
    file: (name) => `/${name}`,
    version: () => "/",
    // The preview serves a folder on the writer's machine; only a published site answers MCP.
    mcp: () => null,
    absolute: (url) => (url.startsWith("/") ? `${origin}${url}` : url),
  };
}

/** Pages whose text holds every word of the query (a preview is small; no index needed). */
function search(model: SiteModel, dir: WorkspaceDir, q: string, urls: SiteUrls): Array<{ url: string; title: string; snippet: string }> {
  const words = q.toLowerCase().split(/\s+/).filter(Boolean).slice(0, 8);
  if (words.length === 0) return [];
  const out: Array<{ url: string; title: string; snippet: string }> = [];
  for (const page of model.pages) {
    const text = readText(dir, page.path);
    if (text === null) continue;
    const hay = `${page.title}\n${text}`.toLowerCase();
    if (!words.every((w) => hay.includes(w))) continue;
    const body = extractText(splitFile(text).body).replace(/\s+/g, " ");
    out.push({ url: urls.page(page.path), title: page.title, snippet: h(page.description || body.slice(0, 160)) });
    if (out.length >= 10) break;
  }
  return out;
}

function serveFile(dir: WorkspaceDir, path: string): Response {
  if (!isServableFile(dir, path)) return notFound();
  const abs = dir.resolveInside(path);
  const file = Bun.file(abs);
  const svg = path.toLowerCase().endsWith(".svg");
  return new Response(file, {
    headers: {
      "content-type": file.type || "application/octet-stream",
      "cache-control": "no-store",
      "x-content-type-options": "nosniff",
      // An SVG may hold script: served so it cannot run any (as uploads are in the app).
      "content-security-policy": svg ? "sandbox; default-src 'none'; style-src 'unsafe-inline'" : "default-src 'none'",
    },
  });
}

function isServableFile(dir: WorkspaceDir, path: string): boolean {
  if (path === "" || path.split("/").some((s) => s === "" || s.startsWith("."))) return false;
  try {
    return statSync(dir.resolveInside(path)).isFile();
  } catch {
    return false;
  }
}

/** A page's text; null when the file is gone, the error itself when it is there but cannot be read. */
function readPage(dir: WorkspaceDir, path: string): string | null {
  try {
    return readFileSync(dir.resolveInside(path), "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw error;
  }
}

function readText(dir: WorkspaceDir, path: string): string | null {
  try {
    return readFileSync(dir.resolveInside(path), "utf8");
  } catch {
    return null;
  }
}

function safeDecode(s: string): string | null {
  try {
    return decodeURIComponent(s);
  } catch {
    return null;
  }
}

function staticHeaders(type: string): Record<string, string> {
  return { "content-type": type, "cache-control": "no-store", "x-content-type-options": "nosniff" };
}

function notFound(): Response {
  return new Response("<!doctype html><title>Not found</title><h1>Not found</h1><p>No page at this address.</p>\n", {
    status: 404,
    headers: { "content-type": "text/html; charset=utf-8", "x-content-type-options": "nosniff" },
  });
}
