import { commitPath } from "./commit-message.ts";
import { lstatSync, readdirSync, readFileSync, type Stats } from "node:fs";
import { join } from "node:path";
import { isPagePath, transientName } from "../content/file-watcher.ts";
import { MAX_UPLOAD_BYTES } from "../content/uploads.ts";
import type { FileContent, Repo } from "./repo.ts";

/**
 * Which files outside the pages changed on disk, as a commit should record them
 * (docs/decisions/git-commits.md §7). The file watcher reports paths (files, or folders when a
 * whole folder was moved or removed); each is compared with HEAD, so a report of something that
 * did not really change (a file the pull or an upload just wrote and committed, a temporary file
 * already gone) commits nothing.
 *
 * Left out: pages (the reconciler commits them), `.git/`, transient names, symlinks (never
 * followed: a link to `/etc/passwd` must not put that file on the remote), untracked files that
 * .gitignore excludes, and files larger than `MAX_DISK_FILE_BYTES` (reported as skipped).
 */

/** Same limit as an upload: a file that could not be uploaded is not committed by surprise either. */
export const MAX_DISK_FILE_BYTES = MAX_UPLOAD_BYTES;

type DiskFileAction = "create" | "update" | "delete";

interface DiskFileChange extends FileContent {
  action: DiskFileAction;
}

export interface SkippedFile {
  path: string;
  reason: "too_large" | "symlink" | "not_a_file";
  size: number;
}

interface DiskFileScan {
  changes: DiskFileChange[];
  skipped: SkippedFile[];
}

/** Whether the history should follow this path at all (before looking at the file). */
export function historyFile(rel: string): boolean {
  if (rel === "" || rel.startsWith("/")) return false;
  const parts = rel.split("/");
  if (parts.some((p) => p === "" || p === "." || p === ".." || p.toLowerCase() === ".git")) return false;
  return !transientName(parts[parts.length - 1]!) && !isPagePath(rel);
}

export async function scanDiskFiles(repo: Repo, reported: string[], maxBytes = MAX_DISK_FILE_BYTES): Promise<DiskFileScan> {
  const candidates = new Set<string>();
  for (const raw of reported) {
    const rel = raw.replace(/\/+$/, "");
    const stat = lstatOrNull(join(repo.dir, rel));
    if (rel !== "" && (stat === null || !stat.isDirectory())) candidates.add(rel);
    // A folder moved in, out or away reports only its own name: look at what it holds on disk
    // and at what HEAD holds under it (files that went with it).
    if (rel === "" || stat === null || stat.isDirectory()) {
      if (stat?.isDirectory()) for (const path of walk(repo.dir, rel)) candidates.add(path);
      for (const path of await repo.headFilesUnder(rel)) candidates.add(path);
    }
  }
  const changes: DiskFileChange[] = [];
  const skipped: SkippedFile[] = [];
  for (const path of [...candidates].sort()) {
    if (!historyFile(path)) continue;
    const head = await repo.headEntry(path);
    const tracked = head !== null && head.type === "blob" ? head : null;
    const stat = lstatOrNull(join(repo.dir, path));
    if (stat === null) {
      if (tracked) changes.push({ path, data: null, action: "delete" });
      continue;
    }
    if (stat.isDirectory()) continue; // its files were reported or walked on their own
    // Git would honour an ignore rule only for files it does not track yet.
    if (!tracked && (await repo.isIgnored(path))) continue;
    if (stat.isSymbolicLink()) {
      skipped.push({ path, reason: "symlink", size: stat.size });
      continue;
    }
    if (!stat.isFile()) {
      skipped.push({ path, reason: "not_a_file", size: 0 });
      continue;
    }
    if (stat.size > maxBytes) {
      skipped.push({ path, reason: "too_large", size: stat.size });
      continue;
    }
    let bytes: Buffer;
    try {
      bytes = readFileSync(join(repo.dir, path));
    } catch {
      continue; // removed meanwhile: the watcher reports that again
    }
    if (tracked && tracked.oid === blobId(bytes)) continue;
    changes.push({ path, data: new Uint8Array(bytes), action: tracked ? "update" : "create" });
  }
  return { changes, skipped };
}

/** The commit message for these changes, worded like the pages' (§4). */
export function diskFilesMessage(changes: DiskFileChange[]): string {
  if (changes.length === 1) {
    const only = changes[0]!;
    const verb = only.action === "create" ? "Create" : only.action === "update" ? "Update" : "Delete";
    return `${verb} ${commitPath(only.path)} via filesystem`;
  }
  return `Sync ${changes.length} files changed on disk`;
}

/** The git object id of these bytes (what HEAD's tree entry holds when unchanged). */
function blobId(bytes: Uint8Array): string {
  const hasher = new Bun.CryptoHasher("sha1");
  hasher.update(`blob ${bytes.length}\0`);
  hasher.update(bytes);
  return hasher.digest("hex");
}

function lstatOrNull(abs: string): Stats | null {
  try {
    return lstatSync(abs);
  } catch {
    return null;
  }
}

/** Files under `rel` on disk (symlinks included as entries, never followed; `.git` skipped). */
function walk(root: string, rel: string): string[] {
  const out: string[] = [];
  let entries;
  try {
    entries = readdirSync(rel === "" ? root : join(root, rel), { withFileTypes: true });
  } catch {
    return out; // removed while scanning
  }
  for (const entry of entries) {
    if (entry.name === ".git") continue;
    const path = rel === "" ? entry.name : `${rel}/${entry.name}`;
    if (entry.isDirectory()) out.push(...walk(root, path));
    else out.push(path);
  }
  return out;
}

/**
 * Why a file of the work tree must stay out of a commit built from a status walk (merges, the
 * first commit of an existing folder), or null when it may go in. A missing file may: that is a
 * deletion. The same rules as the scan's, so a skipped file is not committed by the next merge.
 */
export function outsideHistory(root: string, path: string, maxBytes = MAX_DISK_FILE_BYTES): SkippedFile | null {
  const stat = lstatOrNull(join(root, path));
  if (stat === null) return null;
  if (stat.isSymbolicLink()) return { path, reason: "symlink", size: stat.size };
  if (!stat.isFile()) return stat.isDirectory() ? null : { path, reason: "not_a_file", size: 0 };
  return stat.size > maxBytes ? { path, reason: "too_large", size: stat.size } : null;
}
