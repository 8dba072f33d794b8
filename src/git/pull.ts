import { lstatSync, mkdirSync, readFileSync, realpathSync, rmdirSync, rmSync } from "node:fs";
import { dirname, join, resolve, sep } from "node:path";
import { writeFileAtomic } from "../content/atomic-write.ts";
import { readPageFile } from "../content/page-file.ts";
import type { PageRecords } from "../content/page-records.ts";
import { compactTimestamp, type ConflictMeta, type ConflictStore } from "./conflict-store.ts";
import { mergeLines } from "./line-merge.ts";
import { sha256Hex } from "../core/crypto.ts";
import type { Repo } from "./repo.ts";

/**
 * The file half of a pull: given the remote tip, decide for every file changed upstream since the
 * merge base whether to take it, merge it (manifests) or keep ours and record a conflict (pages
 * and any other file alike: binaries are never merged). Runs as
 * the workspace's single writer; records and events follow (reconcile, then the sync service).
 */
const MANIFESTS = new Set([".quire/workspace.yaml", ".quire/publish.yaml", ".quire/redirects.yaml", ".quire/access.yaml"]);

interface AppliedChange {
  path: string;
  kind: "added" | "updated" | "deleted";
  /** The page id the path had locally before the pull (to recognise moves afterwards). */
  previousId: string | null;
}

export interface PullPlan {
  base: string | null;
  applied: AppliedChange[];
  conflicts: ConflictMeta[];
  /** Files merged line-wise (manifests). */
  merged: string[];
  /** Files the remote changed exactly as the work tree already has them. */
  same: string[];
}

/** Paths a remote may not write however its tree is made: git internals, escapes, odd bytes. */
function unsafeRepoPath(path: string): boolean {
  if (path.length === 0 || path.length > 1024 || path.includes("\\") || /[\u0000-\u001f]/.test(path)) return true;
  return path.split("/").some((seg) => seg === "" || seg === "." || seg === ".." || seg.toLowerCase() === ".git");
}

export async function applyUpstream(opts: {
  repo: Repo;
  workspaceId: string;
  remoteOid: string;
  records: PageRecords;
  conflicts: ConflictStore;
  /** Told of every file written or removed (the file watcher must not take them for an editor's). */
  noteWrite?: WriteNote;
  /**
   * Auto-commit is off: a file whose work-tree version is not committed is the user's pending
   * edit, so a manifest in that state is a conflict rather than merged (the merge would be
   * committed, and the edit with it).
   */
  keepUncommitted?: boolean;
}): Promise<PullPlan> {
  const { repo, workspaceId, remoteOid, records } = opts;
  const head = await repo.head();
  const plan: PullPlan = { base: null, applied: [], conflicts: [], merged: [], same: [] };
  if (head !== null && (await repo.isAncestor(remoteOid, head))) return plan; // nothing new upstream
  const base = head !== null ? await repo.mergeBase(head, remoteOid) : null;
  plan.base = base;
  const stamp = compactTimestamp();
  for (const change of await repo.diff(base, remoteOid)) {
    const { path } = change;
    if (unsafeRepoPath(path)) continue;
    const local = await repo.workOid(path);
    if (local === change.after) {
      plan.same.push(path); // both sides made the same change
      continue;
    }
    const theirs = change.after ? await repo.blob(change.after) : null;
    if (local === change.before) {
      writeOrRemove(repo.dir, path, theirs, opts.noteWrite);
      plan.applied.push({
        path,
        kind: change.before === null ? "added" : change.after === null ? "deleted" : "updated",
        previousId: path.endsWith(".md") ? (records.live(workspaceId, path)?.id ?? null) : null,
      });
      continue;
    }
    const ours = local !== null ? readFileSync(join(repo.dir, path)) : null;
    const baseBytes = change.before ? await repo.blob(change.before) : null;
    const pending = opts.keepUncommitted === true && local !== ((await repo.headEntry(path))?.oid ?? null);
    if (MANIFESTS.has(path) && ours && theirs && !pending) {
      const merged = mergeLines(text(baseBytes), ours.toString("utf8"), text(theirs));
      if (merged !== null) {
        writeOrRemove(repo.dir, path, new TextEncoder().encode(merged), opts.noteWrite);
        plan.merged.push(path);
        continue;
      }
    }
    // Pages, manifests whose changes overlap, and every other file (an upload, an image): never
    // merged. Ours stays in the work tree; ours, theirs and base are stored as a conflict to
    // resolve like a page's (docs/decisions/git-commits.md §4).
    const pageId = conflictPageId(workspaceId, path, ours, records);
    plan.conflicts.push(
      opts.conflicts.save(
        { workspace_id: workspaceId, path, page_id: pageId, timestamp: stamp, theirs_deleted: theirs === null, remote_commit: remoteOid },
        { ours: ours ?? new Uint8Array(), theirs, base: baseBytes },
      ),
    );
  }
  return plan;
}

function text(bytes: Uint8Array | null): string {
  return bytes ? new TextDecoder().decode(bytes) : "";
}

/** The page the conflict is about: the local record, else the file's own id, else a name for the file. */
function conflictPageId(workspaceId: string, path: string, ours: Buffer | null, records: PageRecords): string {
  const live = records.live(workspaceId, path)?.id;
  if (live) return live;
  if (ours && path.endsWith(".md")) {
    const id = readPageFile(ours.toString("utf8"), path).meta.id;
    if (id && /^[A-Za-z0-9_-]{1,80}$/.test(id)) return id;
  }
  // Readable, and unique per workspace and path: the conflicts/ folder is shared by every
  // workspace, and two paths can share a slug (`a/b.png`, `a-b.png`).
  const slug = path.replace(/[^A-Za-z0-9]+/g, "-").replace(/^-|-$/g, "").slice(0, 48).replace(/-$/, "") || "unnamed";
  return `file-${slug}-${sha256Hex(`${workspaceId}\0${path}`).slice(0, 10)}`;
}

/**
 * Writes (atomically) or removes one file of the work tree. Every existing folder on the way must
 * be a real folder inside the work tree: a symlink planted earlier never redirects a write.
 */
type WriteNote = (abs: string, text: string | null) => void;

export function writeOrRemove(root: string, path: string, bytes: Uint8Array | null, note?: WriteNote): void {
  const abs = resolve(root, path);
  if (!abs.startsWith(root + sep)) throw new Error("path outside the work tree");
  let current = root;
  const parts = path.split("/");
  for (let i = 0; i < parts.length; i++) {
    current = join(current, parts[i]!);
    try {
      if (lstatSync(current).isSymbolicLink()) {
        if (i === parts.length - 1) {
          rmSync(current, { force: true }); // a link at the file's place is replaced, never followed
          continue;
        }
        const real = realpathSync(current);
        if (!(real + sep).startsWith(realpathSync(root) + sep)) throw new Error(`refusing to write through a symlink: ${path}`);
      }
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") break;
      throw error;
    }
  }
  note?.(abs, bytes === null ? null : Buffer.from(bytes).toString("utf8"));
  if (bytes === null) {
    rmSync(abs, { force: true });
    let dir = dirname(abs);
    while (dir.startsWith(root + sep)) {
      try {
        rmdirSync(dir);
      } catch {
        break;
      }
      dir = dirname(dir);
    }
    return;
  }
  mkdirSync(dirname(abs), { recursive: true });
  writeFileAtomic(abs, Buffer.from(bytes));
}
