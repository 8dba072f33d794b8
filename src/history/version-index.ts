import type { Db } from "../db/database.ts";
import type { Logger } from "../core/log.ts";
import { KeyedQueue } from "../core/write-queue.ts";
import { channelOf } from "./channel.ts";
import { GitObjects, type CommitInfo, type CommitSource } from "./git-objects.ts";
import { NativeLog } from "./native-log.ts";
import { decode, lineStats, pageIdOf } from "./text-diff.ts";

/**
 * The per-page version index (docs/decisions/page-history.md §2). One algorithm fills it both for
 * new commits and for a backfill of a whole history: a frontier of commits still to read, newest
 * first; reading a commit records its page changes and puts its unread parents on the frontier,
 * all in one transaction, so the index never holds a commit whose parents are neither read nor
 * queued. A new commit (the git worker's, a pull's) is put on the frontier and read at once; a
 * backfill is the frontier at HEAD of a workspace never indexed, read in chunks that let reads
 * and new commits through in between, and resumed from the stored frontier after a restart.
 */
const CHUNK = 200;
/** Commits read object by object before `auto` starts git's log stream for the rest. */
const SMALL_RUN = 64;
/** Rank distance between successive new heads: more commits than this in one pull may tie on rank. */
const HEAD_GAP = 1_000_000;

interface Frontier {
  at: number;
  childRank: number | null;
}

export interface VersionRow {
  commit_id: string;
  path: string;
  old_path: string | null;
  page_id: string | null;
  change: "added" | "modified" | "deleted" | "renamed";
  blob: string | null;
  before_blob: string | null;
  author_name: string;
  author_email: string;
  at: number;
  rank: number;
  message: string;
  channel: string;
  added: number;
  removed: number;
}

export class VersionIndex {
  private readonly queue = new KeyedQueue();
  private readonly objects = new Map<string, GitObjects>();
  /** Workspaces with a run queued and not yet started (a second notice joins it). */
  private readonly scheduled = new Set<string>();
  private stopped = false;

  /**
   * `reader`: how the history is read — `auto` (the default: isomorphic-git for the first
   * SMALL_RUN commits, which is all a save or a small pull brings, then one `git log` stream for
   * the rest when the git binary exists: starting git costs more than reading a few commits, and
   * far less than reading thousands object by object), `native` (the stream from the start) or
   * `isomorphic` (never the stream). The tests compare the three.
   */
  constructor(private readonly deps: { db: Db; log: Logger; workTree: (workspaceId: string) => string; reader?: "auto" | "native" | "isomorphic"; smallRun?: number }) {}

  git(workspaceId: string): GitObjects {
    let objects = this.objects.get(workspaceId);
    if (!objects) this.objects.set(workspaceId, (objects = new GitObjects(this.deps.workTree(workspaceId))));
    return objects;
  }

  /** A commit was made or pulled (the hook of the git engine): it and its unread ancestors are read. */
  committed(workspaceId: string, commit: string): void {
    if (this.stopped) return;
    this.enqueue(workspaceId, commit);
    this.schedule(workspaceId);
  }

  /** Reads whatever HEAD has that the index lacks (start, clone, init --git-url, rebuild). */
  catchUp(workspaceId: string): Promise<void> {
    return this.queue.run(workspaceId, async () => {
      const head = await this.git(workspaceId).head();
      if (head !== null) this.enqueue(workspaceId, head);
    }).then(() => this.schedule(workspaceId));
  }

  /** Commits still to read for a workspace (0: the index is complete). */
  pending(workspaceId: string): number {
    return this.deps.db.query<{ n: number }, [string]>("SELECT COUNT(*) AS n FROM history_frontier WHERE workspace_id = ?").get(workspaceId)?.n ?? 0;
  }

  /** Whether the index has read this commit. */
  has(workspaceId: string, commit: string): boolean {
    return this.deps.db.query("SELECT 1 FROM history_commits WHERE workspace_id = ? AND commit_id = ?").get(workspaceId, commit) !== null;
  }

  /** Resolves when nothing is queued (tests, benchmarks, the CLI). */
  async idle(workspaceId?: string): Promise<void> {
    for (;;) {
      await this.queue.idle();
      if (this.scheduled.size === 0 && (workspaceId === undefined || this.pending(workspaceId) === 0 || this.stopped)) return;
      await Bun.sleep(5);
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.queue.idle();
  }

  /** Forgets a workspace's index (its history was replaced: a rebuild re-reads it). */
  clear(workspaceId: string): void {
    this.deps.db.transaction(() => {
      for (const table of ["page_versions", "history_commits", "history_frontier"]) this.deps.db.query(`DELETE FROM ${table} WHERE workspace_id = ?`).run(workspaceId);
    })();
  }

  private enqueue(workspaceId: string, commit: string): void {
    if (this.has(workspaceId, commit)) return;
    this.deps.db
      .query("INSERT INTO history_frontier (workspace_id, commit_id, at, child_rank) VALUES (?, ?, ?, NULL) ON CONFLICT DO UPDATE SET at = excluded.at")
      .run(workspaceId, commit, Math.floor(Date.now() / 1000) + 1);
  }

  private schedule(workspaceId: string): void {
    if (this.scheduled.has(workspaceId) || this.stopped) return;
    this.scheduled.add(workspaceId);
    void this.queue
      .run(workspaceId, async () => {
        this.scheduled.delete(workspaceId);
        await this.drain(workspaceId);
      })
      .catch((error) => this.deps.log.warn("page history index update failed", { workspace_id: workspaceId, error: String(error) }));
  }

  /** Reads the frontier empty, a chunk per transaction, yielding between chunks. */
  private async drain(workspaceId: string): Promise<void> {
    const { db } = this.deps;
    const git = this.git(workspaceId);
    if (!git.exists()) return;
    const frontier = new Map<string, Frontier>();
    for (const r of db.query<{ commit_id: string; at: number; child_rank: number | null }, [string]>("SELECT commit_id, at, child_rank FROM history_frontier WHERE workspace_id = ?").all(workspaceId)) {
      frontier.set(r.commit_id, { at: r.at, childRank: r.child_rank });
    }
    // A new head's parents may not be read yet (a pull brings several commits): it ranks above
    // everything read so far, with room below it for the commits between it and what was read.
    const top = db.query<{ r: number | null }, [string]>("SELECT MAX(rank) AS r FROM history_commits WHERE workspace_id = ?").get(workspaceId)?.r ?? null;
    const isIndexed = db.query<{ rank: number }, [string, string]>("SELECT rank FROM history_commits WHERE workspace_id = ? AND commit_id = ?");
    const reader = this.deps.reader ?? "auto";
    let highest = top;
    if (reader !== "native") highest = await this.walk(workspaceId, git, frontier, highest, isIndexed, reader === "auto" ? (this.deps.smallRun ?? SMALL_RUN) : Infinity);
    if (frontier.size === 0 || this.stopped) return;
    const source: CommitSource = NativeLog.open(git, [...frontier.keys()]) || git;
    try {
      await this.walk(workspaceId, source, frontier, highest, isIndexed, Infinity);
    } finally {
      source.close();
    }
  }

  private async walk(
    workspaceId: string,
    source: CommitSource,
    frontier: Map<string, Frontier>,
    top: number | null,
    isIndexed: { get(workspaceId: string, oid: string): { rank: number } | null },
    budget: number,
  ): Promise<number | null> {
    let left = budget;
    while (frontier.size > 0 && !this.stopped && left > 0) {
      const rows: VersionRow[] = [];
      const done: Array<{ oid: string; rank: number }> = [];
      const ranks = new Map<string, number>();
      const rankOf = (oid: string) => ranks.get(oid) ?? isIndexed.get(workspaceId, oid)?.rank ?? null;
      const added = new Map<string, Frontier>();
      for (let n = 0; n < CHUNK && frontier.size > 0 && left > 0; n++, left--) {
        let oid = "";
        let best: Frontier | null = null;
        for (const [k, v] of frontier) if (best === null || v.at > best.at) [oid, best] = [k, v];
        frontier.delete(oid);
        added.delete(oid);
        if (rankOf(oid) !== null) {
          done.push({ oid, rank: rankOf(oid)! }); // read meanwhile: only its frontier entry goes
          continue;
        }
        const commit = await source.commit(oid);
        const parents = commit?.parents ?? [];
        let rank: number;
        if (best!.childRank !== null) rank = best!.childRank - 1;
        else rank = top === null ? 0 : top + HEAD_GAP;
        top = Math.max(top ?? rank, rank);
        ranks.set(oid, rank);
        done.push({ oid, rank });
        if (!commit) continue; // missing object (shallow history): nothing further down to read
        if (parents.length <= 1) rows.push(...(await this.changesOf(source, commit, rank)));
        for (const p of parents) {
          if (rankOf(p) !== null) continue;
          const prev = frontier.get(p);
          const entry = { at: commit.author.timestamp, childRank: prev?.childRank != null ? Math.min(prev.childRank, rank) : rank };
          frontier.set(p, entry);
          added.set(p, entry);
        }
      }
      this.write(workspaceId, rows, done, added);
      await new Promise((r) => setImmediate(r));
    }
    return top;
  }

  private write(workspaceId: string, rows: VersionRow[], done: Array<{ oid: string; rank: number }>, added: Map<string, Frontier>): void {
    const { db } = this.deps;
    const insertRow = db.query(
      `INSERT OR REPLACE INTO page_versions (workspace_id, commit_id, path, old_path, page_id, change, blob, before_blob, author_name, author_email, at, rank, message, channel, added, removed)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    const insertCommit = db.query("INSERT OR IGNORE INTO history_commits (workspace_id, commit_id, rank) VALUES (?, ?, ?)");
    const dropFrontier = db.query("DELETE FROM history_frontier WHERE workspace_id = ? AND commit_id = ?");
    const addFrontier = db.query("INSERT OR REPLACE INTO history_frontier (workspace_id, commit_id, at, child_rank) VALUES (?, ?, ?, ?)");
    db.transaction(() => {
      for (const r of rows) {
        insertRow.run(workspaceId, r.commit_id, r.path, r.old_path, r.page_id, r.change, r.blob, r.before_blob, r.author_name, r.author_email, r.at, r.rank, r.message, r.channel, r.added, r.removed);
      }
      for (const d of done) {
        insertCommit.run(workspaceId, d.oid, d.rank);
        dropFrontier.run(workspaceId, d.oid);
      }
      for (const [oid, f] of added) addFrontier.run(workspaceId, oid, f.at, f.childRank);
    })();
  }

  /** The page changes of one commit against its parent; a deletion and an addition of the same page id are one rename. */
  private async changesOf(source: CommitSource, commit: CommitInfo, rank: number): Promise<VersionRow[]> {
    // By path: the readers list changes in different orders, and pairing renames depends on it.
    const changes = (await source.changes(commit)).sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
    if (changes.length === 0) return [];
    const base = {
      commit_id: commit.oid,
      author_name: commit.author.name,
      author_email: commit.author.email.toLowerCase(),
      at: commit.author.timestamp,
      rank,
      message: commit.message.trimEnd(),
      channel: channelOf(commit.message),
    };
    const read = async (oid: string | null) => (oid ? await source.blob(oid) : null);
    const staged = await Promise.all(
      changes.map(async (c) => {
        const before = await read(c.before);
        const after = await read(c.after);
        return { c, before, after, id: pageIdOf(after ?? before) };
      }),
    );
    const removedById = new Map<string, (typeof staged)[number]>();
    for (const s of staged) if (s.c.after === null && s.id) removedById.set(s.id, s);
    const renamedFrom = new Map<(typeof staged)[number], (typeof staged)[number]>();
    for (const s of staged) {
      const gone = s.c.before === null && s.id ? removedById.get(s.id) : undefined;
      if (gone && ![...renamedFrom.values()].includes(gone)) renamedFrom.set(s, gone);
    }
    const taken = new Set(renamedFrom.values());
    const rows: VersionRow[] = [];
    for (const s of staged) {
      const { c } = s;
      if (taken.has(s)) continue; // recorded as its rename
      const from = renamedFrom.get(s) ?? s;
      const oldPath = from === s ? null : from.c.path;
      const stats = lineStats(from.before ? decode(from.before).text : "", s.after ? decode(s.after).text : "");
      rows.push({
        ...base,
        path: c.path,
        old_path: oldPath,
        page_id: s.id,
        change: oldPath !== null ? "renamed" : c.before === null ? "added" : c.after === null ? "deleted" : "modified",
        blob: c.after,
        before_blob: oldPath !== null ? from.c.before : c.before,
        added: stats.added,
        removed: stats.removed,
      });
    }
    return rows;
  }
}
