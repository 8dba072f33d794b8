/**
 * Read-only files that ship inside the executable: everything under the repository's `assets/`
 * (themes, fonts, icons, starter pages, templates).
 *
 * From source (`bun src/cli.ts`) they are read from `assets/` on disk. In the compiled binary
 * `build.ts` generates an entry module that imports every file under `assets/` with
 * `with { type: "file" }` (which makes `bun build --compile` embed it) and hands the resulting
 * paths to `registerEmbeddedAssets` before the CLI starts. So adding an asset needs no code:
 * drop the file under `assets/`, read it with `readAssetText("starter/welcome.md")` (paths are
 * relative to `assets/`, `/`-separated). Other build outputs that must be embedded (e.g. the web
 * app bundle) are added as another entry of `EMBED_DIRS` in build.ts with their own prefix.
 */
import { existsSync, readdirSync, statSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";

const SOURCE_DIR = fileURLToPath(new URL("../../assets/", import.meta.url));
let embedded: Map<string, string> | undefined;

/** Called once by the generated build entry: asset path (relative to assets/) → embedded file path. */
export function registerEmbeddedAssets(files: Record<string, string>): void {
  embedded = new Map(Object.entries(files));
}

/** Whether assets come from inside the executable rather than the source tree. */
export function assetsAreEmbedded(): boolean {
  return embedded !== undefined;
}

/** Every asset path under `prefix` (e.g. "starter/"), sorted. */
export function listAssets(prefix = ""): string[] {
  const all = embedded ? [...embedded.keys()] : walk(SOURCE_DIR);
  return all.filter((p) => p.startsWith(prefix)).sort();
}

/** The asset as a Bun file, or null when there is no such asset. */
export function assetFile(path: string): ReturnType<typeof Bun.file> | null {
  if (path.includes("\\") || path.split("/").some((s) => s === ".." || s === "")) return null;
  if (embedded) {
    const inside = embedded.get(path);
    return inside === undefined ? null : Bun.file(inside);
  }
  const onDisk = join(SOURCE_DIR, path);
  return existsSync(onDisk) && statSync(onDisk).isFile() ? Bun.file(onDisk) : null;
}

export async function readAssetText(path: string): Promise<string | null> {
  const file = assetFile(path);
  return file ? file.text() : null;
}

export async function readAssetBytes(path: string): Promise<Uint8Array | null> {
  const file = assetFile(path);
  return file ? new Uint8Array(await file.arrayBuffer()) : null;
}

function walk(dir: string): string[] {
  if (!existsSync(dir)) return [];
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile()) continue;
    out.push(relative(dir, join(entry.parentPath, entry.name)).split(sep).join("/"));
  }
  return out;
}
