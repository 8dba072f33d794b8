import type * as Git from "isomorphic-git";
import * as fs from "node:fs";
import { basename, resolve } from "node:path";

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
 * done. Written whole and renamed, a kill mid-write leaves the old index and a stale lock, never a
 * torn index.
 */

/** How often a write waiting for another process's lock looks again. */
const LOCK_POLL_MS = 5;
/**
 * A lock older than this is taken as left by a killed process and removed (git itself never
 * removes one; a lock left by a kill would otherwise stop every index write for good). git holds
 * it for the moment it writes the index, or for as long as one `git add` hashes its files.
 */
const STALE_LOCK_MS = 10_000;

const isIndex = (path: string) => basename(path) === "index" && basename(path.slice(0, -"/index".length)) === ".git";

/** Writes `data` as the new `index` through `index.lock`, waiting for (or clearing a stale) lock held by another process. */
async function writeIndex(path: string, data: string | Uint8Array): Promise<void> {
  const lock = `${path}.lock`;
  const fd = await takeLock(lock);
  let renamed = false;
  try {
    try {
      fs.writeFileSync(fd, data);
    } finally {
      fs.closeSync(fd);
    }
    fs.renameSync(lock, path);
    renamed = true;
  } finally {
    if (!renamed) fs.rmSync(lock, { force: true });
  }
}

async function takeLock(lock: string): Promise<number> {
  for (;;) {
    try {
      return fs.openSync(lock, "wx");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
    try {
      if (Date.now() - fs.statSync(lock).mtimeMs > STALE_LOCK_MS) {
        fs.rmSync(lock, { force: true });
        continue;
      }
    } catch {
      continue; // released between the two calls
    }
    await Bun.sleep(LOCK_POLL_MS);
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

/** The index operation of this process on each work tree now running: one at a time per index. */
const running = new Map<string, Promise<unknown>>();

/**
 * Runs one isomorphic-git operation that reads the index of the work tree `dir`, changes it and
 * writes it back (add, remove, resetIndex, statusMatrix, checkout), holding `index.lock` from
 * before the read until the new index is renamed into place — as `git add` holds it. A person's
 * `git add` in the same instant then either finishes first (its entries are read and kept) or is
 * refused by git ("index.lock: File exists") and can simply be run again; it is never silently
 * undone. A `git status` is not stopped: it writes its refreshed copy only when it can take the
 * lock. Operations of this process on the same index run one after another, so no lock this
 * process holds is ever taken for stale by itself.
 */
export function withIndexLock<T>(dir: string, op: (fs: Git.PromiseFsClient) => Promise<T>): Promise<T> {
  const index = resolve(dir, ".git", "index");
  const before = running.get(index) ?? Promise.resolve();
  const turn = before.then(
    () => lockedOp(index, op),
    () => lockedOp(index, op),
  );
  const settled = turn.then(
    () => undefined,
    () => undefined,
  );
  running.set(index, settled);
  void settled.then(() => {
    if (running.get(index) === settled) running.delete(index);
  });
  return turn;
}

async function lockedOp<T>(index: string, op: (fs: Git.PromiseFsClient) => Promise<T>): Promise<T> {
  const lock = `${index}.lock`;
  fs.closeSync(await takeLock(lock));
  let held = true;
  try {
    return await op(
      fsWritingIndexWith(async (path, data) => {
        if (!held || resolve(path) !== index) return writeIndex(path, data);
        fs.writeFileSync(lock, data);
        fs.renameSync(lock, index);
        held = false;
      }),
    );
  } finally {
    if (held) fs.rmSync(lock, { force: true });
  }
}
