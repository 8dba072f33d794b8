import type * as Git from "isomorphic-git";
import { join } from "node:path";

/** Object ids remembered as packed per repository at most; past this the set starts over (only the saving is lost). */
const MAX_REMEMBERED = 200_000;

/**
 * The blobs a repository wrote into its own pack files and has not yet staged (commits from bytes,
 * docs/decisions/git-commits.md §13), and the file system `git add` is given while it stages them.
 *
 * isomorphic-git's `add` writes every blob it stages as a loose object unless a loose file of that
 * id exists already; it does not look in packs. The blobs of a burst of saves or of an import were
 * written into a pack by their commit a moment before, so each was written a second time, as a
 * file of its own — thousands of files after an import, enough to set off `git gc --auto` in a
 * person's next git command. Asked whether such a blob's loose file exists, this file system
 * answers yes: the object is in the repository, in the pack. A file whose bytes changed since its
 * commit hashes to another id, which is not in the set, and is written as before.
 */
export class PackedObjects {
  private readonly ids = new Set<string>();
  private readonly objects: string;
  private readonly packFolder: string;

  constructor(gitdir: string) {
    this.objects = join(gitdir, "objects").replaceAll("\\", "/");
    this.packFolder = join(gitdir, "objects", "pack");
  }

  add(ids: Iterable<string>): void {
    if (this.ids.size > MAX_REMEMBERED) this.ids.clear();
    for (const id of ids) this.ids.add(id);
  }

  /** Once nothing waits to be staged, the ids are no longer needed. */
  clear(): void {
    this.ids.clear();
  }

  /** `fs` with `stat` and `lstat` of a packed blob's loose path answered as existing (the pack's own folder's stat). */
  knownTo(fs: Git.PromiseFsClient): Git.PromiseFsClient {
    if (this.ids.size === 0) return fs;
    const { objects, packFolder } = this;
    const packedPath = (path: string): boolean => {
      const p = String(path).replaceAll("\\", "/"); // isomorphic-git joins with "/" on Windows too
      if (!p.startsWith(objects) || p.length !== objects.length + 42) return false;
      const id = p.slice(objects.length + 1, objects.length + 3) + p.slice(objects.length + 4);
      return this.ids.has(id);
    };
    const promises = fs.promises as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>;
    return {
      promises: {
        ...promises,
        stat: (path: string, ...rest: unknown[]) => (packedPath(path) ? promises.stat!(packFolder) : promises.stat!(path, ...rest)),
        lstat: (path: string, ...rest: unknown[]) => (packedPath(path) ? promises.lstat!(packFolder) : promises.lstat!(path, ...rest)),
      } as unknown as Git.PromiseFsClient["promises"],
    };
  }
}
