/**
 * Third-party browser files the site serves from its own origin: Mermaid (bundled from the
 * `mermaid` package with Bun.build, loaded only on pages with a diagram) and KaTeX's stylesheet
 * with its WOFF2 fonts (math is rendered on the server; only the styles travel).
 *
 * `bun run build` writes them with `writeVendorFiles` and embeds them as assets under `site/`
 * (`quire version --assets` lists them). Run from source, they are produced on first use: KaTeX
 * straight from node_modules, Mermaid bundled once into a cache folder (node_modules/.cache), so
 * tests pay the bundling once.
 */
import { existsSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const KATEX_DIST = join(ROOT, "node_modules/katex/dist");

/** The vendor files by their name under `_quire/`. */
export function vendorNames(): string[] {
  const fonts = existsSync(join(KATEX_DIST, "fonts"))
    ? readdirSync(join(KATEX_DIST, "fonts")).filter((f) => f.endsWith(".woff2")).map((f) => `fonts/${f}`)
    : [];
  return ["mermaid.js", "katex.min.css", ...fonts].sort();
}

/** Bundles Mermaid into one classic script that sets `window.mermaid`. */
async function bundleMermaid(): Promise<string> {
  const dir = join(ROOT, "node_modules/.cache/quire-site");
  mkdirSync(dir, { recursive: true });
  const entry = join(dir, "mermaid-entry.js");
  writeFileSync(entry, `import mermaid from "mermaid";\nwindow.mermaid = mermaid;\n`);
  const result = await Bun.build({ entrypoints: [entry], target: "browser", format: "iife", minify: true, splitting: false });
  if (!result.success || !result.outputs[0]) throw new Error(`mermaid bundle failed: ${result.logs.map(String).join("; ")}`);
  return result.outputs[0].text();
}

let mermaidFromSource: Promise<Uint8Array> | undefined;

/** A vendor file from the source tree (not the compiled binary); null when unknown. */
export async function vendorFileFromSource(name: string): Promise<Uint8Array | null> {
  if (name === "mermaid.js") {
    mermaidFromSource ??= (async () => {
      const version = (await Bun.file(join(ROOT, "node_modules/mermaid/package.json")).json()).version as string;
      const cached = join(ROOT, `node_modules/.cache/quire-site/mermaid-${version}.js`);
      if (existsSync(cached)) return new Uint8Array(await Bun.file(cached).arrayBuffer());
      const text = await bundleMermaid();
      await Bun.write(cached, text);
      return new TextEncoder().encode(text);
    })();
    return mermaidFromSource;
  }
  if (name === "katex.min.css") return new Uint8Array(await Bun.file(join(KATEX_DIST, "katex.min.css")).arrayBuffer());
  if (/^fonts\/KaTeX_[A-Za-z0-9_-]+\.woff2$/.test(name)) {
    const file = Bun.file(join(KATEX_DIST, name));
    return (await file.exists()) ? new Uint8Array(await file.arrayBuffer()) : null;
  }
  return null;
}

/** Writes every vendor file into `dir`; returns their names. */
export async function writeVendorFiles(dir: string): Promise<string[]> {
  mkdirSync(join(dir, "fonts"), { recursive: true });
  writeFileSync(join(dir, "mermaid.js"), await bundleMermaid());
  const names = vendorNames();
  for (const name of names) {
    if (name === "mermaid.js") continue;
    const bytes = await vendorFileFromSource(name);
    if (bytes) writeFileSync(join(dir, name), bytes);
  }
  return names;
}
