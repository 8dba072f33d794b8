/**
 * Bundles the browser app (React + editors) with Bun's bundler into memory: code splitting so the
 * editors load only when a page is opened, minified, content-hashed file names so they can be
 * cached forever. Nothing touches the disk and nothing is fetched at run time.
 *
 * Two ways in:
 * - from source, the web-app route calls `loadWebApp()`, which builds once per process on first use;
 * - the compiled binary embeds a prebuilt bundle: `build.ts` passes `webBundlePlugin(dir)` to
 *   `Bun.build({ compile, plugins })`, which replaces `src/web/prebuilt.ts` with a module reading
 *   the bundle's files, embedded in the executable, on first use.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import { gzipSync, type BunPlugin } from "bun";
import { PREBUILT, type SerializedWebApp } from "./prebuilt.ts";

export interface WebFile {
  body: Uint8Array<ArrayBuffer>;
  /** gzip of `body`, kept only when it is smaller. */
  gzip?: Uint8Array<ArrayBuffer>;
  type: string;
}

export interface WebApp {
  /** Keyed by URL path below the asset prefix, e.g. "main-3fa9c1.js". */
  files: Map<string, WebFile>;
  /** The entry script and the stylesheets the HTML shell links. */
  entry: string;
  styles: string[];
  /** Milliseconds the build took (0 when prebuilt). */
  buildMs: number;
}

/** URL prefix of the hashed assets; chosen to collide with no API, site or upload path. */
export const ASSET_PREFIX = "/_app/";

const ENTRY = join(import.meta.dir, "main.tsx");

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

function fileOf(name: string, body: Uint8Array<ArrayBuffer>): WebFile {
  const gz = gzipSync(body, { level: 9 }) as Uint8Array<ArrayBuffer>;
  return { body, type: typeOf(name), ...(gz.byteLength < body.byteLength ? { gzip: gz } : {}) };
}

/** Runs Bun's bundler over `src/web/main.tsx`; throws with the bundler's messages on failure. */
export async function buildWebApp(opts: { minify?: boolean } = {}): Promise<WebApp> {
  const started = performance.now();
  const result = await Bun.build({
    entrypoints: [ENTRY],
    target: "browser",
    format: "esm",
    splitting: true,
    minify: opts.minify ?? true,
    naming: { entry: "[name]-[hash].[ext]", chunk: "chunk-[hash].[ext]", asset: "[name]-[hash].[ext]" },
    define: { "process.env.NODE_ENV": JSON.stringify("production") },
    throw: false,
  });
  if (!result.success) {
    throw new Error(`web app build failed:\n${result.logs.map((l) => String(l)).join("\n")}`);
  }
  const files = new Map<string, WebFile>();
  let entry = "";
  const styles: string[] = [];
  for (const out of result.outputs) {
    const name = out.path.replace(/^\.\//, "");
    files.set(name, fileOf(name, new Uint8Array(await out.arrayBuffer())));
    if (out.kind === "entry-point" && name.endsWith(".js")) entry = name;
    else if (name.endsWith(".css") && (out.kind === "entry-point" || out.kind === "asset")) styles.push(name);
  }
  if (!entry) throw new Error("web app build produced no entry script");
  return { files, entry, styles, buildMs: Math.round(performance.now() - started) };
}

function fromSerialized(s: SerializedWebApp): WebApp {
  const files = new Map<string, WebFile>();
  for (const [name, text] of Object.entries(s.files)) files.set(name, fileOf(name, new TextEncoder().encode(text)));
  return { files, entry: s.entry, styles: s.styles, buildMs: 0 };
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
 * It swaps src/web/prebuilt.ts for a module whose files are embedded in the executable as files and
 * read on first use, rather than string literals in the code: the bundle (1.3 MB, mostly
 * non-ASCII, so 2.6 MB as JavaScript strings) is then not held in memory from start, and after
 * the first request for the app only its encoded bytes stay (loadWebApp keeps
 * those). Same PREBUILT shape: `files` maps each name to its text, here through getters.
 */
export async function webBundlePlugin(dir: string): Promise<BunPlugin> {
  const app = await buildWebApp();
  mkdirSync(dir, { recursive: true });
  const decoder = new TextDecoder("utf-8", { fatal: true });
  const imports = [`import { readFileSync } from "node:fs";`];
  const getters: string[] = [];
  [...app.files].forEach(([name, file], i) => {
    decoder.decode(file.body); // every output is text (JS, CSS): fail the build otherwise
    const path = join(dir, `${i}-${basename(name)}`);
    writeFileSync(path, file.body);
    imports.push(`import w${i} from ${JSON.stringify(path)} with { type: "file" };`);
    getters.push(`get ${JSON.stringify(name)}() { return readFileSync(w${i}, "utf8"); }`);
  });
  const source = [
    ...imports,
    `export const PREBUILT = { entry: ${JSON.stringify(app.entry)}, styles: ${JSON.stringify(app.styles)}, files: { ${getters.join(", ")} } };`,
    "",
  ].join("\n");
  return {
    name: "quire-web-bundle",
    setup(build) {
      build.onLoad({ filter: /[\\/]src[\\/]web[\\/]prebuilt\.ts$/ }, () => ({ contents: source, loader: "js" }));
    },
  };
}
