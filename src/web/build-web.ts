/**
 * Bundles the browser app (React + editors) with Bun's bundler into memory: code splitting so the
 * editors load only when a page is opened, minified, content-hashed file names so they can be
 * cached forever. Nothing touches the disk and nothing is fetched at run time.
 *
 * Two ways in:
 * - from source, the web-app route calls `loadWebApp()`, which builds once per process on first use;
 * - the compiled binary embeds a prebuilt bundle: `build.ts` passes `webBundlePlugin(dir)` to
 *   `Bun.build({ compile, plugins })`, which replaces `src/web/prebuilt.ts` with a module naming
 *   the bundle's files (and their gzip, compressed at build time), embedded in the executable and
 *   served from there.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import { gzipSync, type BunPlugin } from "bun";
import { PREBUILT, type SerializedWebApp } from "./prebuilt.ts";

export interface WebFile {
  /** The bytes (a build from source), or the file embedded in the executable (Bun.file). */
  body: Uint8Array<ArrayBuffer> | Blob;
  /** gzip of `body`, kept only when it is smaller. */
  gzip?: Uint8Array<ArrayBuffer> | Blob;
  type: string;
}

/** A file of a build from source: its bytes in memory. */
interface BuiltFile extends WebFile {
  body: Uint8Array<ArrayBuffer>;
  gzip?: Uint8Array<ArrayBuffer>;
}

export interface WebApp<F extends WebFile = WebFile> {
  /** Keyed by URL path below the asset prefix, e.g. "main-3fa9c1.js". */
  files: Map<string, F>;
  /** The entry script and the stylesheets the HTML shell links. */
  entry: string;
  styles: string[];
  /**
   * Scripts the shell names as `<link rel="modulepreload">` so the browser fetches and compiles them
   * beside the entry instead of after it: `app`, what the entry imports statically; `page`, also
   * the page screen's chunks (the rich editor), for an address that opens a page
   * (docs/decisions/editor-blocks.md).
   */
  preloads: { app: string[]; page: string[] };
  /** Milliseconds the build took (0 when prebuilt). */
  buildMs: number;
}

/** URL prefix of the hashed assets; chosen to collide with no API, site or upload path. */
export const ASSET_PREFIX = "/_app/";

const ENTRY = join(import.meta.dir, "main.tsx");
/** The lazily imported module behind a page's address (Shell.tsx's `loadPageScreen`); the metafile names it relative to the working directory. */
const PAGE_SCREEN = "web/screens/PageScreen.tsx";

interface Metafile {
  outputs: Record<string, { entryPoint?: string; imports: Array<{ path: string; kind: string }> }>;
}

/**
 * The preloads from the bundler's metafile: the chunks an output needs before it can run (its
 * static imports, transitively), without the entry itself, which the shell already loads.
 */
function preloadsOf(meta: Metafile, entry: string): WebApp["preloads"] {
  const name = (p: string) => p.replace(/^\.\//, "");
  const outputs = new Map(Object.entries(meta.outputs).map(([p, o]) => [name(p), o]));
  const closure = (roots: string[]) => {
    const seen = new Set<string>();
    const visit = (n: string) => {
      if (seen.has(n)) return;
      seen.add(n);
      for (const i of outputs.get(n)?.imports ?? []) if (i.kind === "import-statement") visit(name(i.path));
    };
    roots.forEach(visit);
    seen.delete(entry);
    return [...seen].filter((n) => n.endsWith(".js")).sort();
  };
  const pageScreen = [...outputs].find(([, o]) => o.entryPoint?.replace(/\\/g, "/").endsWith(PAGE_SCREEN))?.[0];
  if (!pageScreen) throw new Error(`web app build has no chunk for ${PAGE_SCREEN}`);
  const app = closure([entry]);
  return { app, page: [...new Set([...app, ...closure([pageScreen])])] };
}

const TYPES: Record<string, string> = {
  js: "text/javascript; charset=utf-8",
  css: "text/css; charset=utf-8",
  map: "application/json",
  svg: "image/svg+xml",
  woff2: "font/woff2",
  png: "image/png",
};

function typeOf(name: string): string {
  return TYPES[name.slice(name.lastIndexOf(".") + 1)] ?? "application/octet-stream";
}

function fileOf(name: string, body: Uint8Array<ArrayBuffer>): BuiltFile {
  const gz = gzipSync(body, { level: 9 }) as Uint8Array<ArrayBuffer>;
  return { body, type: typeOf(name), ...(gz.byteLength < body.byteLength ? { gzip: gz } : {}) };
}

/** Runs Bun's bundler over `src/web/main.tsx`; throws with the bundler's messages on failure. */
export async function buildWebApp(opts: { minify?: boolean } = {}): Promise<WebApp<BuiltFile>> {
  const started = performance.now();
  const result = await Bun.build({
    entrypoints: [ENTRY],
    target: "browser",
    format: "esm",
    splitting: true,
    minify: opts.minify ?? true,
    naming: { entry: "[name]-[hash].[ext]", chunk: "chunk-[hash].[ext]", asset: "[name]-[hash].[ext]" },
    define: { "process.env.NODE_ENV": JSON.stringify("production") },
    metafile: true,
    throw: false,
  });
  if (!result.success) {
    throw new Error(`web app build failed:\n${result.logs.map((l) => String(l)).join("\n")}`);
  }
  const files = new Map<string, BuiltFile>();
  let entry = "";
  const styles: string[] = [];
  for (const out of result.outputs) {
    const name = out.path.replace(/^\.\//, "");
    files.set(name, fileOf(name, new Uint8Array(await out.arrayBuffer())));
    if (out.kind === "entry-point" && name.endsWith(".js")) entry = name;
    else if (name.endsWith(".css") && (out.kind === "entry-point" || out.kind === "asset")) styles.push(name);
  }
  if (!entry) throw new Error("web app build produced no entry script");
  const preloads = preloadsOf(result.metafile as unknown as Metafile, entry);
  return { files, entry, styles, preloads, buildMs: Math.round(performance.now() - started) };
}

/**
 * The embedded bundle: each file and its gzip are answered from the executable itself (Bun.file on
 * its embedded path), so no copy of the bundle is read into memory or compressed in the process.
 */
function fromSerialized(s: SerializedWebApp): WebApp {
  const files = new Map<string, WebFile>();
  for (const [name, f] of Object.entries(s.files)) {
    files.set(name, { body: Bun.file(f.body), type: typeOf(name), ...(f.gzip ? { gzip: Bun.file(f.gzip) } : {}) });
  }
  return { files, entry: s.entry, styles: s.styles, preloads: s.preloads, buildMs: 0 };
}

let cached: Promise<WebApp> | undefined;

/** The app for this process: the embedded bundle when there is one, else one build from source, shared. */
export function loadWebApp(): Promise<WebApp> {
  cached ??= PREBUILT ? Promise.resolve(fromSerialized(PREBUILT)) : buildWebApp();
  // A failed build is not cached, so fixing the source and reloading retries.
  cached.catch(() => (cached = undefined));
  return cached;
}

/**
 * A Bun.build plugin for the compiled binary (`build.ts`, `dir`: a scratch folder of the build).
 * It swaps src/web/prebuilt.ts for a module whose files — each output and its gzip, compressed here
 * as `fileOf` would at run time — are embedded in the executable as files, named by their embedded
 * paths. The bundle (1.3 MB, mostly non-ASCII, so 2.6 MB as JavaScript strings) is then never
 * read into the process: a request is answered from the executable's own pages, and only the
 * files browsers ask for are ever touched (docs/decisions/runtime-footprint.md).
 */
export async function webBundlePlugin(dir: string): Promise<BunPlugin> {
  const app = await buildWebApp();
  mkdirSync(dir, { recursive: true });
  const decoder = new TextDecoder("utf-8", { fatal: true });
  const imports: string[] = [];
  const entries: string[] = [];
  [...app.files].forEach(([name, file], i) => {
    decoder.decode(file.body); // every output is text (JS, CSS): fail the build otherwise
    const path = join(dir, `${i}-${basename(name)}`);
    writeFileSync(path, file.body);
    imports.push(`import w${i} from ${JSON.stringify(path)} with { type: "file" };`);
    if (file.gzip) {
      writeFileSync(`${path}.gz`, file.gzip);
      imports.push(`import g${i} from ${JSON.stringify(`${path}.gz`)} with { type: "file" };`);
    }
    entries.push(`${JSON.stringify(name)}: { body: w${i}${file.gzip ? `, gzip: g${i}` : ""} }`);
  });
  const source = [
    ...imports,
    `export const PREBUILT = { entry: ${JSON.stringify(app.entry)}, styles: ${JSON.stringify(app.styles)}, preloads: ${JSON.stringify(app.preloads)}, files: { ${entries.join(", ")} } };`,
    "",
  ].join("\n");
  return {
    name: "quire-web-bundle",
    setup(build) {
      build.onLoad({ filter: /[\\/]src[\\/]web[\\/]prebuilt\.ts$/ }, () => ({ contents: source, loader: "js" }));
    },
  };
}
