import * as fs from "node:fs";
import { loadGit } from "../git/repo.ts";
import { readRefFromFiles } from "../git/ref-files.ts";

/**
 * Read-only access to one work tree's git objects for the history index and its reads. Objects
 * are immutable, so these reads need no queue: they never race the git worker's commits.
 */
export interface CommitInfo {
  oid: string;
  tree: string;
  parents: string[];
  message: string;
  author: { name: string; email: string; timestamp: number };
}

export interface PageFileChange {
  path: string;
  before: string | null;
  after: string | null;
}

interface Entry {
  path: string;
  oid: string;
  type: string;
}

/**
 * What the version index reads a history through: a commit, its page changes against its first
 * parent, and blobs. GitObjects (isomorphic-git, object by object) is one; the native reader
 * (`native-log.ts`: one streaming `git log` and a `cat-file --batch`) is the other, and both must
 * give the same answers (docs/decisions/page-history.md §2).
 */
export interface CommitSource {
  commit(oid: string): Promise<CommitInfo | null>;
  changes(commit: CommitInfo): Promise<PageFileChange[]>;
  blob(oid: string): Promise<Uint8Array | null>;
  close(): void;
}

/** Trees are read again and again by neighbouring commits; this many are kept. */
const TREE_CACHE = 4096;

export class GitObjects implements CommitSource {
  private readonly cache = {};
  private readonly trees = new Map<string, Entry[]>();

  constructor(readonly dir: string) {}

  exists(): boolean {
    return fs.existsSync(`${this.dir}/.git/HEAD`);
  }

  async head(): Promise<string | null> {
    return this.resolve("HEAD");
  }

  /**
   * The commit a ref names, or null when it does not exist. Read from the ref files when they are
   * plain, so a start that only asks for HEAD does not load isomorphic-git.
   */
  async resolve(ref: string): Promise<string | null> {
    const plain = readRefFromFiles(this.dir, ref);
    if (plain !== undefined) return plain;
    const git = await loadGit();
    try {
      return await git.resolveRef({ fs, dir: this.dir, ref });
    } catch {
      return null;
    }
  }

  /** The commit, or null when the object is missing (a shallow clone's edge) or is not a commit. */
  async commit(oid: string): Promise<CommitInfo | null> {
    const git = await loadGit();
    try {
      const { commit } = await git.readCommit({ fs, dir: this.dir, oid, cache: this.cache });
      return { oid, tree: commit.tree, parents: commit.parent, message: commit.message, author: { name: commit.author.name, email: commit.author.email, timestamp: commit.author.timestamp } };
    } catch {
      return null;
    }
  }

  async blob(oid: string): Promise<Uint8Array | null> {
    const git = await loadGit();
    try {
      return (await git.readBlob({ fs, dir: this.dir, oid, cache: this.cache })).blob;
    } catch {
      return null;
    }
  }

  private async tree(oid: string): Promise<Entry[]> {
    const hit = this.trees.get(oid);
    if (hit) return hit;
    const git = await loadGit();
    const { tree } = await git.readTree({ fs, dir: this.dir, oid, cache: this.cache });
    const entries = tree.map((e) => ({ path: e.path, oid: e.oid, type: e.type }));
    if (this.trees.size >= TREE_CACHE) this.trees.clear();
    this.trees.set(oid, entries);
    return entries;
  }

  /** The commit's page changes against its first parent (a root commit, or a parent missing from a shallow clone: against nothing). */
  async changes(commit: CommitInfo): Promise<PageFileChange[]> {
    const parent = commit.parents[0] ? await this.commit(commit.parents[0]) : null;
    return this.pageChanges(parent?.tree ?? null, commit.tree);
  }

  /** Nothing to release: the object reads hold no process or file open. */
  close(): void {}

  /** The blob of `path` in a commit's tree, or null. */
  async blobIdAt(commitTree: string, path: string): Promise<string | null> {
    let tree = commitTree;
    const parts = path.split("/");
    for (let i = 0; i < parts.length; i++) {
      const entry = (await this.tree(tree)).find((e) => e.path === parts[i]);
      if (!entry) return null;
      if (i === parts.length - 1) return entry.type === "blob" ? entry.oid : null;
      if (entry.type !== "tree") return null;
      tree = entry.oid;
    }
    return null;
  }

  /**
   * The Markdown files that differ between two trees (`from` null: everything in `to`). Identical
   * subtrees are skipped by id, so a commit costs the trees on its changed paths only.
   */
  async pageChanges(from: string | null, to: string | null): Promise<PageFileChange[]> {
    const out: PageFileChange[] = [];
    await this.walk(from, to, "", out);
    return out;
  }

  private async walk(a: string | null, b: string | null, prefix: string, out: PageFileChange[]): Promise<void> {
    if (a === b) return;
    const left = a ? await this.tree(a) : [];
    const right = b ? await this.tree(b) : [];
    const names = new Map<string, [Entry | null, Entry | null]>();
    for (const e of left) names.set(e.path, [e, null]);
    for (const e of right) names.set(e.path, [names.get(e.path)?.[0] ?? null, e]);
    for (const [name, [l, r]] of names) {
      const path = prefix + name;
      const lt = l?.type === "tree" ? l.oid : null;
      const rt = r?.type === "tree" ? r.oid : null;
      if (lt !== null || rt !== null) {
        if (lt !== rt && !name.startsWith(".")) await this.walk(lt, rt, `${path}/`, out);
      }
      if (!name.endsWith(".md")) continue;
      const lb = l?.type === "blob" ? l.oid : null;
      const rb = r?.type === "blob" ? r.oid : null;
      if (lb !== rb) out.push({ path, before: lb, after: rb });
    }
  }
}
