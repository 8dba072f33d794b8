import type * as Git from "isomorphic-git";
import * as fs from "node:fs";
import { basename, resolve } from "node:path";
import { KeyedQueue } from "../core/write-queue.ts";

/**
 * How isomorphic-git is let at a work tree's `.git/index`: as git itself is. Each call that reads,
 * changes and writes the index holds `index.lock` from before the read, and the new index is
 * written into the lock and renamed over `index` (docs/decisions/git-commits.md §15).
 *
 * isomorphic-git alone rewrites `index` in place and ignores git's lock. A `git status` run in the
 * work tree meanwhile (a person looking, a script) reads the index, takes `index.lock`, checks the
 * index is still the one it read, and renames its refreshed copy over it: an in-place write landing
 * between that check and the rename was silently replaced, and the entries it added (pages
 * committed from bytes, staged a moment later) were gone — `git status` then showed those pages
 * deleted and untracked at once, for good. Holding the same lock, a write here either lands before
 * git's check (git then sees a changed index and leaves it alone) or waits until git's rename is
 * done. Written whole and renamed, a kill mid-write leaves the old index and a lock (removed by
 * the next process, lockLeftBehind), never a torn index.
 */

/** How soon an operation waiting for another process's lock first looks again; the pause doubles up to LOCK_POLL_MAX_MS. */
const LOCK_POLL_MS = 5;
/** A git command may hold the lock for minutes (an editor open): waiting that long, look a few times a second. */
const LOCK_POLL_MAX_MS = 250;
/**
 * How long an operation waits for a git command's lock before it gives up (IndexLockedError) and
 * is done again later: git holds the lock for the moment it writes, or while one `git add` hashes
 * its files; a command that holds it longer (an editor open) is not made to hurry.
 */
const LOCK_WAIT_MS = 2000;

/** Another git command holds the index lock and kept it past the wait: the index is left as it is, to be updated later. */
export class IndexLockedError extends Error {
  constructor(lock: string) {
    super(`another git command holds ${lock}; the index is updated once it is done`);
    this.name = "IndexLockedError";
  }
}

/** When this process started (its uptime counts from there in any thread, where a worker's timeOrigin is its own). */
const PROCESS_START_MS = Date.now() - process.uptime() * 1000;

/**
 * Whether a lock found on the index was left behind by a process that is gone: it was taken
 * before this process started, so it is a killed predecessor's (a lock this process takes is
 * always released, and one process runs per data folder) — or, rarely, that of a git command
 * started before this process and still running. Any other lock belongs to a git command running
 * now — a `git commit` waiting for its editor, a `git add -p` — however long it has been held, and
 * is waited for, never removed: removing it breaks that command ("unable to write new_index
 * file"). git itself never removes a lock; one left by a git command killed meanwhile stops that
 * person's git as it stops this process's index, until they remove it as git tells them to.
 */
export function lockLeftBehind(lockMtimeMs: number, processStartMs = PROCESS_START_MS): boolean {
  return lockMtimeMs < processStartMs;
}

const isIndex = (path: string) => basename(path) === "index" && basename(path.slice(0, -"/index".length)) === ".git";

/** Puts `data` in place as the index through the lock this process holds: written whole into it, then renamed over the index. */
function replaceFromLock(lock: string, index: string, data: string | Uint8Array): void {
  fs.writeFileSync(lock, data);
  fs.renameSync(lock, index);
}

/** Writes `data` as the new `index` through `index.lock`, waiting for another process's lock (or clearing one left behind). */
async function writeIndex(path: string, data: string | Uint8Array, waitMs: number): Promise<void> {
  const lock = `${path}.lock`;
  await takeLock(lock, waitMs);
  try {
    replaceFromLock(lock, path, data);
  } catch (error) {
    fs.rmSync(lock, { force: true });
    throw error;
  }
}

/** Creates `lock` exclusively (an empty file, as git's own lock starts), waiting for another process's. */
async function takeLock(lock: string, waitMs: number): Promise<void> {
  const giveUpAt = Date.now() + waitMs;
  for (let pause = LOCK_POLL_MS; ; pause = Math.min(pause * 2, LOCK_POLL_MAX_MS)) {
    try {
      fs.closeSync(fs.openSync(lock, "wx"));
      return;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
    try {
      if (lockLeftBehind(fs.statSync(lock).mtimeMs)) {
        fs.rmSync(lock, { force: true });
        continue;
      }
    } catch {
      continue; // released between the two calls
    }
    if (Date.now() >= giveUpAt) throw new IndexLockedError(lock);
    await Bun.sleep(Math.min(pause, Math.max(1, giveUpAt - Date.now())));
  }
}

/** node's promise fs, with `writeFile` of an index going through `write`. */
function fsWritingIndexWith(write: (path: string, data: string | Uint8Array) => Promise<void>): Git.PromiseFsClient {
  return {
    promises: {
      ...fs.promises,
      writeFile: (path: string, data: string | Uint8Array, options?: fs.WriteFileOptions) =>
        isIndex(String(path)) ? write(String(path), data) : fs.promises.writeFile(path, data, options),
    } as unknown as Git.PromiseFsClient["promises"],
  };
}

/** This process's operations on each index, one at a time. */
const indexQueue = new KeyedQueue();

/**
 * Runs one isomorphic-git operation that reads the index of the work tree `dir`, changes it and
 * writes it back (add, remove, resetIndex, statusMatrix, checkout), holding `index.lock` from
 * before the read until the new index is renamed into place — as `git add` holds it. A person's
 * `git add` in the same instant then either finishes first (its entries are read and kept) or is
 * refused by git ("index.lock: File exists") and can simply be run again; it is never silently
 * undone. A `git status` is not stopped: it writes its refreshed copy only when it can take the
 * lock. A git command that keeps the lock past `waitMs` makes this throw IndexLockedError, the
 * lock and the index left as they are. Operations of this process on the same index run one
 * after another.
 */
export function withIndexLock<T>(dir: string, op: (fs: Git.PromiseFsClient) => Promise<T>, waitMs = LOCK_WAIT_MS): Promise<T> {
  const index = resolve(dir, ".git", "index");
  return indexQueue.run(index, () => lockedOp(index, op, waitMs));
}

async function lockedOp<T>(index: string, op: (fs: Git.PromiseFsClient) => Promise<T>, waitMs: number): Promise<T> {
  const lock = `${index}.lock`;
  await takeLock(lock, waitMs);
  let held = true;
  try {
    return await op(
      fsWritingIndexWith(async (path, data) => {
        if (!held || resolve(path) !== index) return writeIndex(path, data, waitMs);
        replaceFromLock(lock, index, data);
        held = false;
      }),
    );
  } finally {
    if (held) fs.rmSync(lock, { force: true });
  }
}
