import * as git from "isomorphic-git";
import * as fs from "node:fs";
import { existsSync } from "node:fs";
import { join } from "node:path";

/**
 * Local history of one workspace work tree, through isomorphic-git (in process: no spawn per
 * save). Everything here touches `.git/` and the index, so callers run it as the workspace's
 * single writer (inside the ledger's per-workspace queue).
 */
export interface Author {
  name: string;
  email: string;
}

export const SYSTEM_AUTHOR: Author = { name: "Quire", email: "quire@localhost" };
/** The last commit both sides agreed on (the merge base of the next pull). */
export const SYNCED_REF = "refs/quire/synced";

export interface FileChange {
  path: string;
  before: string | null;
  after: string | null;
}

export class Repo {
  readonly cache = {};
  constructor(readonly dir: string) {}

  exists(): boolean {
    return existsSync(join(this.dir, ".git", "HEAD"));
  }

  async init(branch: string): Promise<void> {
    await git.init({ fs, dir: this.dir, defaultBranch: branch });
  }

  async head(): Promise<string | null> {
    try {
      return await git.resolveRef({ fs, dir: this.dir, ref: "HEAD" });
    } catch {
      return null; // no commit yet
    }
  }

  async resolve(ref: string): Promise<string | null> {
    try {
      return await git.resolveRef({ fs, dir: this.dir, ref });
    } catch {
      return null;
    }
  }

  async setRef(ref: string, oid: string): Promise<void> {
    await git.writeRef({ fs, dir: this.dir, ref, value: oid, force: true });
  }

  async setRemote(url: string): Promise<void> {
    await git.setConfig({ fs, dir: this.dir, path: "remote.origin.url", value: url });
    await git.setConfig({ fs, dir: this.dir, path: "remote.origin.fetch", value: "+refs/heads/*:refs/remotes/origin/*" });
  }

  /**
   * Stages the given paths (added, changed or removed in the work tree) and commits them when
   * anything changed. Returns the new commit id, or null when the paths match HEAD already.
   * (With `parents` a commit is always made: a merge records both histories even when the tree
   * is one of them.)
   */
  async commitPaths(paths: string[], message: string, author: Author, parents?: string[]): Promise<string | null> {
    await this.stage(paths);
    const now = Math.floor(Date.now() / 1000);
    const who = { name: author.name || SYSTEM_AUTHOR.name, email: author.email || SYSTEM_AUTHOR.email, timestamp: now, timezoneOffset: 0 };
    try {
      return await git.commit({
        fs,
        dir: this.dir,
        message,
        author: who,
        committer: { ...SYSTEM_AUTHOR, timestamp: now, timezoneOffset: 0 },
        cache: this.cache,
        disallowEmpty: parents === undefined,
        ...(parents ? { parent: parents } : {}),
      });
    } catch (error) {
      if ((error as { code?: string }).code === "EmptyCommitError") return null;
      throw error;
    }
  }

  /**
   * Brings the index in line with the work tree for `paths`: present files are added in one
   * call (one index write), missing ones removed. No status walk: a save stages only what it wrote.
   */
  async stage(paths: string[]): Promise<void> {
    const unique = [...new Set(paths)].filter((p) => p !== "" && !p.startsWith(".git/"));
    const present = unique.filter((p) => existsSync(join(this.dir, p)));
    if (present.length > 0) await git.add({ fs, dir: this.dir, filepath: present, cache: this.cache });
    for (const path of unique) {
      if (present.includes(path)) continue;
      await git.remove({ fs, dir: this.dir, filepath: path, cache: this.cache });
    }
  }

  /** Every changed path in the work tree (untracked, modified, deleted), `.git` excluded. */
  async dirtyPaths(): Promise<string[]> {
    const rows = await git.statusMatrix({ fs, dir: this.dir, cache: this.cache });
    return rows.filter(([, head, workdir, stage]) => !(head === 1 && workdir === 1 && stage === 1)).map((r) => r[0]);
  }

  /** Files that differ between two commits (`from` null: everything in `to`). */
  async diff(from: string | null, to: string): Promise<FileChange[]> {
    const trees = from ? [git.TREE({ ref: from }), git.TREE({ ref: to })] : [git.TREE({ ref: to })];
    const changes: FileChange[] = [];
    await git.walk({
      fs,
      dir: this.dir,
      cache: this.cache,
      trees,
      map: async (path, entries) => {
        if (path === ".") return true;
        const [a, b] = from ? [entries[0], entries[1]] : [null, entries[0]];
        const ta = a ? await a.type() : null;
        const tb = b ? await b.type() : null;
        if (ta === "tree" || tb === "tree") {
          if (ta === "tree" && tb === "tree") {
            if ((await a!.oid()) === (await b!.oid())) return null; // identical subtree: skip it
            return true;
          }
          if (ta === "blob" || tb === "blob") {
            changes.push({ path, before: ta === "blob" ? await a!.oid() : null, after: tb === "blob" ? await b!.oid() : null });
          }
          return true;
        }
        const oa = ta === "blob" ? await a!.oid() : null;
        const ob = tb === "blob" ? await b!.oid() : null;
        if (oa !== ob) changes.push({ path, before: oa, after: ob });
        return null;
      },
    });
    return changes;
  }

  async blob(oid: string): Promise<Uint8Array> {
    const { blob } = await git.readBlob({ fs, dir: this.dir, oid, cache: this.cache });
    return blob;
  }

  async blobAt(commit: string, path: string): Promise<Uint8Array | null> {
    try {
      const { blob } = await git.readBlob({ fs, dir: this.dir, oid: commit, filepath: path, cache: this.cache });
      return blob;
    } catch {
      return null;
    }
  }

  /** The git object id the file would have (null when it does not exist). */
  async workOid(path: string): Promise<string | null> {
    let bytes: Buffer;
    try {
      bytes = fs.readFileSync(join(this.dir, path));
    } catch {
      return null;
    }
    return (await git.hashBlob({ object: bytes })).oid;
  }

  async mergeBase(a: string, b: string): Promise<string | null> {
    try {
      const bases = await git.findMergeBase({ fs, dir: this.dir, oids: [a, b], cache: this.cache });
      return (bases[0] as string | undefined) ?? null;
    } catch {
      return null;
    }
  }

  async isAncestor(ancestor: string, oid: string): Promise<boolean> {
    if (ancestor === oid) return true;
    try {
      return await git.isDescendent({ fs, dir: this.dir, oid, ancestor, depth: -1, cache: this.cache });
    } catch {
      return false;
    }
  }

  /** Points the current branch at `oid` and makes the index and work tree match it. */
  async checkoutCommit(branch: string, oid: string): Promise<void> {
    await git.writeRef({ fs, dir: this.dir, ref: `refs/heads/${branch}`, value: oid, force: true });
    await git.writeRef({ fs, dir: this.dir, ref: "HEAD", value: `refs/heads/${branch}`, force: true, symbolic: true });
    await git.checkout({ fs, dir: this.dir, ref: branch, force: true, cache: this.cache });
  }

  async log(depth = 20): Promise<Array<{ oid: string; message: string; author: Author; parents: string[] }>> {
    const entries = await git.log({ fs, dir: this.dir, depth, cache: this.cache });
    return entries.map((e) => ({ oid: e.oid, message: e.commit.message, author: { name: e.commit.author.name, email: e.commit.author.email }, parents: e.commit.parent }));
  }
}
