import { readdirSync, readFileSync, rmSync, statSync, type BigIntStats } from "node:fs";
import { join } from "node:path";
import { isAtomicTemp } from "./atomic-write.ts";
import { readPageFile, type PageFile } from "./page-file.ts";
import { statKey, trustworthy } from "./page-file-stat.ts";
import { normalizePagePath } from "./paths.ts";
import type { ReconcileProblem, ScannedFile } from "./reconcile-pass.ts";

/** The first phase of a reconcile pass: finding and reading the workspace's Markdown files. */

const YIELD_EVERY = 100;
const utf8 = new TextDecoder("utf-8", { fatal: true });

/** Relative paths of the Markdown files, skipping dot entries, assets/ and symlinks. */
export function walkMarkdown(root: string, rel: string, problems: ReconcileProblem[]): string[] {
  const out: string[] = [];
  let entries;
  try {
    entries = readdirSync(rel === "" ? root : join(root, rel), { withFileTypes: true });
  } catch {
    return out; // a folder removed while scanning
  }
  for (const entry of entries) {
    const name = entry.name;
    if (name.startsWith(".")) continue;
    const path = rel === "" ? name : `${rel}/${name}`;
    if (entry.isSymbolicLink()) continue; // never followed: it could lead out of the workspace
    if (entry.isDirectory()) {
      if (rel === "" && name === "assets") continue;
      out.push(...walkMarkdown(root, path, problems));
    } else if (entry.isFile() && name.endsWith(".md")) {
      let normalized: string | null = null;
      try {
        normalized = normalizePagePath(path);
      } catch {
        normalized = null;
      }
      if (normalized !== path) {
        problems.push({ kind: "bad_path", path: null, message: `skipped a file whose name is not a valid page path: ${JSON.stringify(path)}` });
        continue;
      }
      out.push(path);
    }
  }
  return out.sort();
}

/** A file the pass left unread: its stat is the one recorded with its live record at the same path. */
interface UnchangedFile {
  path: string;
  id: string;
}

/**
 * Reads every file, yielding now and then so requests are served during a long scan. With
 * `known` (the start-up pass: path → the live record's id and recorded stat), a file whose stat
 * is exactly the recorded one is not read but listed as unchanged (page-file-stat.ts). Each file
 * read carries the stat taken before reading it, when that stat may be recorded.
 */
export async function scanFiles(
  root: string,
  paths: string[],
  problems: ReconcileProblem[],
  known: Map<string, { id: string; stat: string }> | null = null,
): Promise<{ scanned: ScannedFile[]; unchanged: UnchangedFile[] }> {
  const scanned: ScannedFile[] = [];
  const unchanged: UnchangedFile[] = [];
  for (let i = 0; i < paths.length; i++) {
    if (i > 0 && i % YIELD_EVERY === 0) await Bun.sleep(0);
    const path = paths[i]!;
    const abs = join(root, path);
    let st: BigIntStats;
    try {
      st = statSync(abs, { bigint: true });
    } catch (error) {
      problems.push(readProblem(error, path));
      continue;
    }
    const key = statKey(st);
    const record = known?.get(path);
    if (record !== undefined && record.stat === key) {
      unchanged.push({ path, id: record.id });
      continue;
    }
    const file = readOne(abs, path, problems);
    if (file) scanned.push({ path, file, record: null, id: "", tier: "new", recovered: false, stat: trustworthy(st, Date.now()) ? key : null });
  }
  return { scanned, unchanged };
}

/**
 * Reads the files a pass left unread, when it needs every page after all (a search `reset`).
 * A file that cannot be read now is left out of that list, as a scan would have left it.
 */
export function readUnchanged(root: string, unchanged: UnchangedFile[]): ScannedFile[] {
  const out: ScannedFile[] = [];
  for (const u of unchanged) {
    const file = readOne(join(root, u.path), u.path, []);
    if (file) out.push({ path: u.path, file, record: null, id: u.id, tier: "id", recovered: false, stat: null });
  }
  return out;
}

function readProblem(error: unknown, path: string): ReconcileProblem {
  const code = (error as NodeJS.ErrnoException).code;
  return code === "ENOENT"
    ? { kind: "vanished", path, message: "the file was deleted while being read" }
    : { kind: "unreadable", path, message: `could not read the file (${code ?? "error"})` };
}

function readOne(abs: string, path: string, problems: ReconcileProblem[]): PageFile | null {
  let bytes: Buffer;
  try {
    bytes = readFileSync(abs);
  } catch (error) {
    problems.push(readProblem(error, path));
    return null;
  }
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    problems.push({ kind: "not_utf8", path, message: "the file is not valid UTF-8; skipped" });
    return null;
  }
  const file = readPageFile(text, path);
  if (file.yamlError !== null) {
    problems.push({ kind: "invalid_yaml", path, message: `invalid frontmatter (${file.yamlError}); indexed with the title from its file name` });
  }
  return file;
}

/**
 * Removes what a killed atomic write leaves (`.{name}.{12 hex}.tmp`, atomic-write.ts) anywhere in
 * a work tree except `.git/`; symbolic links are never followed. Only at start, when no write can
 * be in flight.
 */
export function removeLeftoverTemps(root: string, rel: string): void {
  let entries;
  try {
    entries = readdirSync(rel === "" ? root : join(root, rel), { withFileTypes: true });
  } catch {
    return;
  }
  for (const entry of entries) {
    const path = rel === "" ? entry.name : `${rel}/${entry.name}`;
    if (entry.isDirectory() && entry.name !== ".git") removeLeftoverTemps(root, path);
    else if (entry.isFile() && isAtomicTemp(entry.name)) rmSync(join(root, path), { force: true });
  }
}
