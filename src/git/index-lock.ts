import type * as Git from "isomorphic-git";
import * as fs from "node:fs";
import { basename } from "node:path";

/**
 * The file system isomorphic-git is given wherever it may write a work tree's `.git/index`:
 * node's, except that the index is written the way git itself writes it — into `index.lock`,
 * created exclusively, then renamed over `index` (docs/decisions/git-commits.md §15).
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

export const indexFs: Git.PromiseFsClient = {
  promises: {
    ...fs.promises,
    writeFile: (path: string, data: string | Uint8Array, options?: fs.WriteFileOptions) =>
      isIndex(String(path)) ? writeIndex(String(path), data) : fs.promises.writeFile(path, data, options),
  } as unknown as Git.PromiseFsClient["promises"],
};
