import type * as Git from "isomorphic-git";
import * as fs from "node:fs";
import { existsSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { MAX_PACK_BYTES, writeBlobPack } from "./blob-pack.ts";
import { gitIdent, type Author } from "./commit-message.ts";
import { editTree, type EntryChange, type TreeEntry, type TreeStore } from "./tree-edit.ts";
import { IndexLockedError, withIndexLock } from "./index-lock.ts";
import { PackedObjects } from "./packed-objects.ts";

/**
 * Local history of one workspace work tree, through isomorphic-git (in process: no spawn per
 * save). Everything here touches `.git/`: callers serialize it per workspace (GitSync's history
 * queue; anything that also reads the work tree holds the ledger's writer too).
 */

export const SYSTEM_AUTHOR: Author = { name: "Quire", email: "quire@localhost" };

interface FileChange {
  path: string;
  before: string | null;
  after: string | null;
}

/** A file as a commit should record it: its exact bytes (or text, stored as UTF-8), or null when it is gone. */
export interface FileContent {
  path: string;
  data: string | Uint8Array | null;
}

/**
 * The file system the commit path hands isomorphic-git: node's synchronous calls behind the
 * promise interface it expects. Each of a commit's small reads and writes (refs, the commit, a
 * few trees, a loose blob) then completes at once instead of waiting for the event loop to come
 * round again; under a burst of saves (each holding the loop for its own file write and fsync)
 * those waits made a commit of twenty saves take a second (docs/decisions/git-commits.md §13). Large work (the
 * blobs of a batch: blob-pack.ts) stays asynchronous.
 */
const quickFs: Git.PromiseFsClient = {
  promises: Object.fromEntries(
    (["readFile", "writeFile", "mkdir", "rmdir", "unlink", "stat", "lstat", "readdir", "readlink", "symlink", "chmod"] as const).map((name) => {
      const sync = name === "writeFile" ? writeWhole : (fs as unknown as Record<string, (...args: unknown[]) => unknown>)[`${name}Sync`]!;
      return [name, (...args: unknown[]) => {
        try {
          return Promise.resolve(sync(...args));
        } catch (error) {
          return Promise.reject(error);
        }
      }];
    }),
  ) as unknown as Git.PromiseFsClient["promises"],
};

/**
 * A file isomorphic-git writes (a loose object, a ref, the index) appears whole or not at all:
 * written beside its name and renamed. A plain write that a full disk cut short would leave an
 * empty or torn loose object, which isomorphic-git, finding the name there, would never write
 * again: the repository corrupt for good (docs/decisions/storage.md §3).
 */
function writeWhole(path: unknown, data: unknown, options?: unknown): void {
  const target = String(path);
  const tmp = `${target}.${process.pid}.${Math.random().toString(36).slice(2)}.partial`;
  try {
    fs.writeFileSync(tmp, data as string | Uint8Array, options as fs.WriteFileOptions);
    fs.renameSync(tmp, target);
  } catch (error) {
    fs.rmSync(tmp, { force: true });
    throw error;
  }
}

let loading: Promise<typeof Git> | null = null;
/**
 * isomorphic-git (~11 MB resident once loaded) is imported when a git operation first runs, not at
 * start: an instance whose work trees exist and that nobody edits never pays for it.
 */
export function loadGit(): Promise<typeof Git> {
  return (loading ??= import("isomorphic-git"));
}

const EMPTY_TREE = "4b825dc642cb6eb9a060e54bf8d69288fbee4904";
/** Loose blobs of a commit are written this many at a time. */
const BLOB_BATCH = 64;
/** From this many blobs in one commit they are written as one pack file (blob-pack.ts). */
const PACK_MIN_BLOBS = 8;
/** Trees are immutable, so a cache by id never goes stale; it only needs a bound (in entries held). */
const TREE_CACHE_ENTRIES = 20_000;

export class Repo {
  readonly cache = {};
  /** Paths committed from bytes whose index entry may still show an older version (see syncIndex). */
  private readonly indexBehind = new Set<string>();
  /** Blobs written into packs by commits from bytes, not yet staged: not written again as loose files. */
  private readonly packed: PackedObjects;
  private readonly trees = new Map<string, TreeEntry[]>();
  private treeEntries = 0;
  /** The commit this object made last and its tree, so the next commit need not read it back. */
  private last: { commit: string; tree: string } | null = null;

  constructor(readonly dir: string) {
    this.packed = new PackedObjects(join(dir, ".git"));
  }

  exists(): boolean {
    return existsSync(join(this.dir, ".git", "HEAD"));
  }

  async init(branch: string): Promise<void> {
    const git = await loadGit();
    await git.init({ fs, dir: this.dir, defaultBranch: branch });
  }

  async head(): Promise<string | null> {
    return this.resolve("HEAD"); // null: no commit yet
  }

  async resolve(ref: string): Promise<string | null> {
    const git = await loadGit();
    try {
      return await git.resolveRef({ fs: quickFs, dir: this.dir, ref });
    } catch {
      return null;
    }
  }

  async setRef(ref: string, oid: string): Promise<void> {
    const git = await loadGit();
    await git.writeRef({ fs, dir: this.dir, ref, value: oid, force: true });
  }

  async setRemote(url: string): Promise<void> {
    const git = await loadGit();
    await git.setConfig({ fs, dir: this.dir, path: "remote.origin.url", value: url });
    await git.setConfig({ fs, dir: this.dir, path: "remote.origin.fetch", value: "+refs/heads/*:refs/remotes/origin/*" });
  }

  /**
   * Commits the work tree's current state of `paths` (present files as they are, missing ones
   * removed) on top of HEAD, and brings the index in line for them. Returns the new commit id, or
   * null when the paths match HEAD already. (With `parents` a commit is always made: a merge
   * records both histories even when the tree is one of them.) Reads the files: the caller holds
   * the work tree still (the ledger's writer).
   */
  async commitPaths(paths: string[], message: string, author: Author, parents?: string[]): Promise<string | null> {
    const unique = [...new Set(paths)].filter((p) => p !== "" && !p.startsWith(".git/"));
    const files = unique.map((path): FileContent => {
      try {
        return { path, data: readFileSync(join(this.dir, path)) };
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code === "ENOENT" || code === "ENOTDIR") return { path, data: null };
        throw error;
      }
    });
    const oid = await this.commitContents(files, message, author, parents);
    await this.stage(unique);
    for (const path of unique) this.indexBehind.delete(path);
    return oid;
  }

  /**
   * Commits the given file contents on top of HEAD without the work tree or the index: blobs from
   * the bytes given, the tree from HEAD's tree with only the changed paths rewritten. The index
   * is left behind for these paths until `syncIndex` (off the save path). Null when nothing
   * changed (unless `parents` is given, as for commitPaths).
   */
  async commitContents(files: FileContent[], message: string, author: Author, parents?: string[]): Promise<string | null> {
    const git = await loadGit();
    const head = await this.head();
    const base = head === null ? null : this.last?.commit === head ? this.last.tree : (await git.readCommit({ fs: quickFs, dir: this.dir, oid: head, cache: this.cache })).commit.tree;
    const changes = new Map<string, EntryChange>();
    const wanted = files.filter((f) => f.path !== "" && !f.path.startsWith(".git/"));
    const present = wanted.filter((f) => f.data !== null).map((f) => ({ path: f.path, blob: typeof f.data === "string" ? Buffer.from(f.data, "utf8") : (f.data as Uint8Array) }));
    for (const f of wanted) if (f.data === null) changes.set(f.path, null);
    const bytes = present.reduce((n, f) => n + f.blob.byteLength, 0);
    if (present.length >= PACK_MIN_BLOBS && bytes < MAX_PACK_BYTES) {
      // Many blobs (saves that waited for the worker, ids injected into a clone): one pack file.
      const ids = await writeBlobPack(join(this.dir, ".git"), present.map((f) => f.blob));
      this.packed.add(ids);
      present.forEach((f, i) => changes.set(f.path, { oid: ids[i]! }));
    } else {
      for (let i = 0; i < present.length; i += BLOB_BATCH) {
        await Promise.all(present.slice(i, i + BLOB_BATCH).map(async (f) => changes.set(f.path, { oid: await git.writeBlob({ fs: quickFs, dir: this.dir, blob: f.blob }) })));
      }
    }
    for (const f of wanted) this.indexBehind.add(f.path);
    // Map order follows the batches' completion; the tree does not depend on it (entries are sorted).
    const tree = (await editTree(this.treeStore(git), base, changes)) ?? (await git.writeTree({ fs: quickFs, dir: this.dir, tree: [] }));
    if (parents === undefined && tree === (base ?? EMPTY_TREE)) return null;
    const now = Math.floor(Date.now() / 1000);
    const oid = await git.writeCommit({
      fs: quickFs,
      dir: this.dir,
      commit: {
        message, // rendered as `git commit` does (one trailing newline)
        tree,
        parent: parents ?? (head === null ? [] : [head]),
        author: { ...gitIdent(author, SYSTEM_AUTHOR), timestamp: now, timezoneOffset: 0 },
        committer: { ...SYSTEM_AUTHOR, timestamp: now, timezoneOffset: 0 },
      },
    });
    await git.writeRef({ fs: quickFs, dir: this.dir, ref: this.headTarget(), value: oid, force: true });
    this.last = { commit: oid, tree };
    return oid;
  }

  /**
   * What HEAD holds at `path` (a blob with its mode, a tree, or null), read through the tree
   * cache: the disk-file scan looks up every path it was told about.
   */
  async headEntry(path: string): Promise<TreeEntry | null> {
    const git = await loadGit();
    const head = await this.head();
    if (head === null) return null;
    const root = this.last?.commit === head ? this.last.tree : (await git.readCommit({ fs: quickFs, dir: this.dir, oid: head, cache: this.cache })).commit.tree;
    if (path === "") return { mode: "040000", path: "", oid: root, type: "tree" };
    const store = this.treeStore(git);
    let tree = root;
    const parts = path.split("/");
    for (let i = 0; i < parts.length; i++) {
      const entry = (await store.readTree(tree)).find((e) => e.path === parts[i]);
      if (!entry) return null;
      if (i === parts.length - 1) return entry;
      if (entry.type !== "tree") return null;
      tree = entry.oid;
    }
    return null;
  }

  /** Every blob path HEAD holds under the folder `path` ("" for all), recursively. */
  async headFilesUnder(path: string): Promise<string[]> {
    const entry = await this.headEntry(path);
    if (!entry || entry.type !== "tree") return [];
    const store = this.treeStore(await loadGit());
    const out: string[] = [];
    const visit = async (oid: string, prefix: string): Promise<void> => {
      for (const e of await store.readTree(oid)) {
        const rel = prefix === "" ? e.path : `${prefix}/${e.path}`;
        if (e.type === "tree") await visit(e.oid, rel);
        else if (e.type === "blob") out.push(rel);
      }
    };
    await visit(entry.oid, path);
    return out;
  }

  /** Whether .gitignore files (and `.git/info/exclude`) leave `path` out. */
  async isIgnored(path: string): Promise<boolean> {
    const git = await loadGit();
    return git.isIgnored({ fs, dir: this.dir, filepath: path });
  }

  /** How many paths wait for their index entry (syncIndex). */
  get indexLag(): number {
    return this.indexBehind.size;
  }

  /**
   * Stages up to `max` of the paths committed from bytes, so the index (what `git status` and the
   * status walk compare with) matches HEAD again. The files are read as they are now: a save that
   * lands meanwhile is staged a moment before its own commit, which then marks it again.
   */
  async syncIndex(max = Infinity): Promise<number> {
    const batch = [...this.indexBehind].slice(0, max);
    for (const path of batch) this.indexBehind.delete(path);
    try {
      await this.stage(batch);
    } catch (error) {
      for (const path of batch) this.indexBehind.add(path);
      throw error;
    }
    if (this.indexBehind.size === 0) this.packed.clear();
    return batch.length;
  }

  /**
   * Brings the index in line with the work tree for `paths`: present files are added in one
   * call (one index write), missing ones removed. No status walk.
   */
  async stage(paths: string[]): Promise<void> {
    const unique = [...new Set(paths)].filter((p) => p !== "" && !p.startsWith(".git/"));
    if (unique.length === 0) return;
    const git = await loadGit();
    const present = unique.filter((p) => existsSync(join(this.dir, p)));
    try {
      if (present.length > 0) await withIndexLock(this.dir, (fs) => git.add({ fs: this.packed.knownTo(fs), dir: this.dir, filepath: present, cache: this.cache }));
      for (const path of unique) {
        if (present.includes(path)) continue;
        await withIndexLock(this.dir, (fs) => git.remove({ fs, dir: this.dir, filepath: path, cache: this.cache }));
      }
    } catch (error) {
      // Another git command holds the index: these paths wait for the next catch-up (syncIndex),
      // which the history queue retries until that command is done.
      if (error instanceof IndexLockedError) for (const path of unique) this.indexBehind.add(path);
      throw error;
    }
  }

  /** The ref HEAD points at (`refs/heads/<branch>`, born or not), or HEAD itself when detached. */
  private headTarget(): string {
    const text = readFileSync(join(this.dir, ".git", "HEAD"), "utf8").trim();
    return text.startsWith("ref: ") ? text.slice(5) : "HEAD";
  }

  private treeStore(git: typeof Git): TreeStore {
    return {
      readTree: async (oid) => {
        const hit = this.trees.get(oid);
        if (hit) return hit;
        const { tree } = await git.readTree({ fs: quickFs, dir: this.dir, oid, cache: this.cache });
        const entries = tree.map((e) => ({ mode: e.mode, path: e.path, oid: e.oid, type: e.type }));
        this.remember(oid, entries);
        return entries;
      },
      writeTree: async (entries) => {
        const oid = await git.writeTree({ fs: quickFs, dir: this.dir, tree: entries });
        this.remember(oid, entries);
        return oid;
      },
    };
  }

  private remember(oid: string, entries: TreeEntry[]): void {
    if (this.treeEntries + entries.length > TREE_CACHE_ENTRIES) {
      this.trees.clear();
      this.treeEntries = 0;
    }
    if (!this.trees.has(oid)) this.treeEntries += entries.length;
    this.trees.set(oid, entries);
  }

  /**
   * The status walk (path, HEAD, work tree, index; isomorphic-git's statusMatrix). An index that
   * cannot be read (a process killed while writing it) is removed and the walk done without it:
   * the index is only a cache of what HEAD and the work tree hold.
   */
  async statusRows(): Promise<Array<[string, number, number, number]>> {
    const git = await loadGit();
    try {
      return await withIndexLock(this.dir, (fs) => git.statusMatrix({ fs, dir: this.dir, cache: this.cache }));
    } catch (error) {
      if (error instanceof IndexLockedError) throw error; // another git command's index: not ours to remove
      await withIndexLock(this.dir, async () => rmSync(join(this.dir, ".git", "index"), { force: true }));
      return withIndexLock(this.dir, (fs) => git.statusMatrix({ fs, dir: this.dir, cache: this.cache }));
    }
  }

  /**
   * Rebuilds the index from HEAD: every entry of a file the work tree holds as HEAD does is
   * staged from it, entries HEAD does not have are dropped, and the others point at HEAD's
   * version. Afterwards `git status` shows exactly how the work tree differs from HEAD.
   */
  async alignIndex(): Promise<void> {
    const git = await loadGit();
    const rows = await this.statusRows();
    const add = rows.filter(([, h, w, st]) => h === 1 && w === 1 && st !== 1).map((r) => r[0]);
    const drop = rows.filter(([, h, , st]) => h === 0 && st !== 0).map((r) => r[0]);
    const reset = rows.filter(([, h, w, st]) => h === 1 && w !== 1 && st !== 1).map((r) => r[0]);
    for (let i = 0; i < add.length; i += 200) await withIndexLock(this.dir, (fs) => git.add({ fs: this.packed.knownTo(fs), dir: this.dir, filepath: add.slice(i, i + 200), cache: this.cache }));
    for (const filepath of drop) await withIndexLock(this.dir, (fs) => git.remove({ fs, dir: this.dir, filepath, cache: this.cache }));
    for (const filepath of reset) await withIndexLock(this.dir, (fs) => git.resetIndex({ fs, dir: this.dir, filepath, cache: this.cache }));
    this.indexBehind.clear();
    this.packed.clear();
  }

  /** Every changed path in the work tree (untracked, modified, deleted), `.git` excluded. */
  async dirtyPaths(): Promise<string[]> {
    await this.syncIndex(); // entries left behind by commits from bytes would all show as changes
    const rows = await this.statusRows();
    // A file HEAD and the work tree hold alike with no index entry is no change: the entry was
    // lost (an index an earlier version wrote in place while `git status` replaced it,
    // docs/decisions/git-commits.md §15). It is put back, or `git status` would show the file
    // deleted and untracked at once for good.
    const lost = rows.filter(([, head, workdir, stage]) => head === 1 && workdir === 1 && stage === 0).map((r) => r[0]);
    if (lost.length > 0) await this.stage(lost);
    return rows.filter(([, head, workdir, stage]) => !(head === 1 && workdir === 1 && (stage === 1 || stage === 0))).map((r) => r[0]);
  }

  /** Files that differ between two commits (`from` null: everything in `to`). */
  async diff(from: string | null, to: string): Promise<FileChange[]> {
    const git = await loadGit();
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
    const git = await loadGit();
    const { blob } = await git.readBlob({ fs, dir: this.dir, oid, cache: this.cache });
    return blob;
  }

  async blobAt(commit: string, path: string): Promise<Uint8Array | null> {
    const git = await loadGit();
    try {
      const { blob } = await git.readBlob({ fs, dir: this.dir, oid: commit, filepath: path, cache: this.cache });
      return blob;
    } catch {
      return null;
    }
  }

  /** The git object id the file would have (null when it does not exist). */
  async workOid(path: string): Promise<string | null> {
    const git = await loadGit();
    let bytes: Buffer;
    try {
      bytes = fs.readFileSync(join(this.dir, path));
    } catch {
      return null;
    }
    return (await git.hashBlob({ object: bytes })).oid;
  }

  async mergeBase(a: string, b: string): Promise<string | null> {
    const git = await loadGit();
    try {
      const bases = await git.findMergeBase({ fs, dir: this.dir, oids: [a, b], cache: this.cache });
      return (bases[0] as string | undefined) ?? null;
    } catch {
      return null;
    }
  }

  async isAncestor(ancestor: string, oid: string): Promise<boolean> {
    const git = await loadGit();
    if (ancestor === oid) return true;
    try {
      return await git.isDescendent({ fs, dir: this.dir, oid, ancestor, depth: -1, cache: this.cache });
    } catch {
      return false;
    }
  }

  /** Points the current branch at `oid` and makes the index and work tree match it. */
  async checkoutCommit(branch: string, oid: string): Promise<void> {
    const git = await loadGit();
    await git.writeRef({ fs, dir: this.dir, ref: `refs/heads/${branch}`, value: oid, force: true });
    await git.writeRef({ fs, dir: this.dir, ref: "HEAD", value: `refs/heads/${branch}`, force: true, symbolic: true });
    await withIndexLock(this.dir, (fs) => git.checkout({ fs, dir: this.dir, ref: branch, force: true, cache: this.cache }));
  }

  async log(depth = 20): Promise<Array<{ oid: string; message: string; author: Author; parents: string[] }>> {
    const git = await loadGit();
    const entries = await git.log({ fs, dir: this.dir, depth, cache: this.cache });
    return entries.map((e) => ({ oid: e.oid, message: e.commit.message, author: { name: e.commit.author.name, email: e.commit.author.email }, parents: e.commit.parent }));
  }
}
