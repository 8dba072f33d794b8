/**
 * The files every site serves under `_quire/`: the layout stylesheet, the seven theme
 * stylesheets, the browser script, the icon (all under assets/site/) and the vendor files
 * (Mermaid, KaTeX's stylesheet and fonts; see vendor.ts). The static export copies the same
 * list into its `_quire/` folder.
 */
import { assetFile, assetsAreEmbedded, listAssets } from "../../core/assets.ts";
import { vendorFileFromSource, vendorNames } from "./vendor.ts";

const TYPES: Record<string, string> = {
  css: "text/css; charset=utf-8",
  js: "text/javascript; charset=utf-8",
  svg: "image/svg+xml",
  woff2: "font/woff2",
};

export function siteAssetType(name: string): string {
  return TYPES[name.slice(name.lastIndexOf(".") + 1)] ?? "application/octet-stream";
}

/** Every file name under `_quire/` (e.g. `site.css`, `theme-forest.css`, `fonts/KaTeX_Main-Regular.woff2`). */
export function siteAssetNames(): string[] {
  const own = listAssets("site/").map((p) => p.slice("site/".length));
  return [...new Set([...own, ...vendorNames()])].sort();
}

const cache = new Map<string, Uint8Array>();

/** The bytes of one `_quire/` file, or null when there is no such file. */
export async function readSiteAsset(name: string): Promise<Uint8Array | null> {
  if (name.includes("..") || name.includes("\\") || name.startsWith("/")) return null;
  const hit = cache.get(name);
  if (hit) return hit;
  let bytes: Uint8Array | null = null;
  const file = assetFile(`site/${name}`);
  if (file) bytes = new Uint8Array(await file.arrayBuffer());
  else if (!assetsAreEmbedded()) bytes = await vendorFileFromSource(name);
  if (bytes) cache.set(name, bytes);
  return bytes;
}

/** A short fingerprint of the site's own files, for `?v=` cache busting of `_quire/` URLs. */
export async function siteAssetVersion(): Promise<string> {
  const hasher = new Bun.CryptoHasher("sha256");
  for (const name of ["site.css", "site.js", ...listAssets("site/theme-").map((p) => p.slice(5))]) {
    const bytes = await readSiteAsset(name);
    if (bytes) hasher.update(bytes);
  }
  return hasher.digest("hex").slice(0, 10);
}
