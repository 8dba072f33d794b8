import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Logger } from "../core/log.ts";
import { KeyedQueue } from "../core/write-queue.ts";
import type { FileContent, Repo } from "./repo.ts";
import type { Author } from "./commit-message.ts";

/**
 * The git worker: one queue per workspace for everything that changes `.git/` (commits, merges,
 * ref moves), separate from the ledger's writer queue. A save hands over the bytes it wrote and
 * returns; its commit is made here afterwards, from those bytes, so it needs neither the work
 * tree nor the ledger's writer (docs/decisions/git-commits.md). Work that also reads or writes the
 * work tree (a pull, a merge) takes the ledger's writer first and then this queue, which drains
 * the commits queued before it; nothing here ever waits for the ledger, so the two cannot deadlock.
 *
 * Saves queued while the worker is busy share commits (docs/decisions/git-commits.md §13): when the worker gets
 * to them it takes every waiting save at once and, when `SHARE_FROM` or more wait, makes one commit per author, a save joining its
 * author's commit only when no other author's waiting save before it touches one of its files (so
 * each file's versions keep their order and a commit never carries another author's change). A
 * save made while the worker keeps up is still its own commit. The worker therefore keeps up with
 * any save rate: the more saves wait, the more each commit carries.
 *
 * While a workspace has work queued or index entries behind HEAD, `.git/quire-pending` exists
 * (written with the first save of a burst, removed once both are done): found at start, it means
 * the last run stopped before its saves were committed, and GitSync repairs the history.
 *
 * The index is brought up to date off the save path, a moment after the last commit
 * (`INDEX_SYNC_DELAY_MS`), in chunks so a large commit never holds the queue for long.
 */
const INDEX_SYNC_DELAY_MS = 1000;
const INDEX_SYNC_CHUNK = 200;
/** From this many saves waiting when the worker gets to them, an author's saves share a commit. */
const SHARE_FROM = 10;
/** In a work tree's `.git/`: saves were handed to the worker and not yet all committed and staged. */
export const PENDING_MARKER = "quire-pending";
const MARKER_SLACK_MS = 1000;

interface QueuedSave {
  files: FileContent[];
  message: string;
  author: Author;
  prepare?: (repo: Repo) => Promise<void>;
  /** Never shares a commit (a write group's batch: its message names the whole). */
  alone?: boolean;
  resolve: (oid: string | null) => void;
  reject: (error: unknown) => void;
}

export class HistoryQueue {
  private readonly queue = new KeyedQueue();
  private readonly indexTimers = new Map<string, ReturnType<typeof setTimeout>>();
  /** Saves handed over and not yet taken by the worker, per workspace, in write order. */
  private readonly waiting = new Map<string, QueuedSave[]>();
  /** Commit jobs queued and not finished, per workspace (the pending marker stays while any is). */
  private readonly outstanding = new Map<string, number>();
  /** Workspaces whose pending marker this process wrote. */
  private readonly marked = new Set<string>();
  /** Batches of writes announced and not yet handed over (ledger write groups), per workspace. */
  private readonly holds = new Map<string, number>();
  /** Workspaces whose last commit failed: their marker stays until GitSync has repaired them. */
  private readonly failed = new Set<string>();
  private closed = false;

  constructor(private readonly deps: { repo: (workspaceId: string) => Repo; log: Logger }) {}

  /** Runs `op` as the workspace's history writer, after every commit queued before it. */
  run<T>(workspaceId: string, op: () => Promise<T> | T): Promise<T> {
    return this.queue.run(workspaceId, op);
  }

  /**
   * Queues a commit of exactly `files`. `prepare` runs first inside the queue (a repository that
   * does not exist yet is initialised there). Resolves with the id of the commit that holds these
   * files (shared with the author's other waiting saves when the worker was behind), or null when
   * they matched HEAD already.
   */
  commit(
    workspaceId: string,
    files: FileContent[],
    message: string,
    author: Author,
    prepare?: (repo: Repo) => Promise<void>,
    alone = false,
  ): Promise<string | null> {
    this.markPending(workspaceId);
    return new Promise<string | null>((resolve, reject) => {
      const save: QueuedSave = { files, message, author, prepare, alone, resolve, reject };
      let list = this.waiting.get(workspaceId);
      if (list) return void list.push(save);
      this.waiting.set(workspaceId, (list = [save]));
      this.track(
        workspaceId,
        this.queue.run(workspaceId, async () => {
          // A macrotask first: the request that made the write answers before its commit starts.
          await new Promise((r) => setImmediate(r));
          // Everything that waits by now goes in this turn; a save arriving later queues the next
          // turn behind whatever was queued meanwhile (a pull then sees only what came before it).
          const takenAt = Date.now();
          const taken = this.waiting.get(workspaceId) ?? [];
          this.waiting.delete(workspaceId);
          if (await this.commitSaves(workspaceId, taken)) this.noteCommittedThrough(workspaceId, takenAt);
        }),
      );
    });
  }

  /** Commits `saves` as few commits as authorship allows, in order; settles each save's promise. True when all were committed. */
  private async commitSaves(workspaceId: string, saves: QueuedSave[]): Promise<boolean> {
    let all = true;
    // A few waiting saves (someone saving twice in quick succession) keep a commit each.
    const groups = saves.length < SHARE_FROM ? saves.map((s) => [s]) : groupByAuthor(saves);
    for (const group of groups) {
      try {
        const repo = this.deps.repo(workspaceId);
        for (const s of group) await s.prepare?.(repo);
        const latest = new Map<string, FileContent>();
        for (const s of group) for (const f of s.files) latest.set(f.path, f);
        const oid = await repo.commitContents([...latest.values()], sharedMessage(group.map((s) => s.message)), group[0]!.author);
        for (const s of group) s.resolve(oid);
      } catch (error) {
        all = false;
        this.failed.add(workspaceId); // the marker stays until GitSync has repaired the history
        for (const s of group) s.reject(error);
      }
    }
    return all;
  }

  /**
   * Queues one commit whose files are decided inside the queue, from what HEAD holds by then
   * (files changed on disk: compared with HEAD after every commit queued before). `build` returns
   * the files and message, or null for nothing to commit; resolves with the commit id or null.
   */
  commitBuilt(
    workspaceId: string,
    build: (repo: Repo) => Promise<{ files: FileContent[]; message: string } | null>,
    author: Author,
    prepare?: (repo: Repo) => Promise<void>,
  ): Promise<string | null> {
    const job = this.queue.run(workspaceId, async () => {
      const repo = this.deps.repo(workspaceId);
      await prepare?.(repo);
      const built = await build(repo);
      return built === null || built.files.length === 0 ? null : repo.commitContents(built.files, built.message, author);
    });
    this.track(workspaceId, job);
    return job;
  }

  /**
   * Writes are on their way as one batch (a ledger write group): the pending marker is written now
   * and stays until the returned release is called (after the batch was queued), so a process
   * killed in between leaves the marker and GitSync repairs the history at start.
   */
  hold(workspaceId: string): () => void {
    this.markPending(workspaceId);
    this.holds.set(workspaceId, (this.holds.get(workspaceId) ?? 0) + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.holds.get(workspaceId) ?? 1) - 1;
      if (left > 0) this.holds.set(workspaceId, left);
      else this.holds.delete(workspaceId);
      this.scheduleIndexSync(workspaceId); // clears the marker once nothing else waits
    };
  }

  /** Counts a commit job until it settles; a failed one keeps the pending marker for the repair. */
  private track(workspaceId: string, job: Promise<unknown>): void {
    this.markPending(workspaceId);
    this.outstanding.set(workspaceId, (this.outstanding.get(workspaceId) ?? 0) + 1);
    const after = (ok: boolean) => {
      const left = (this.outstanding.get(workspaceId) ?? 1) - 1;
      if (left > 0) this.outstanding.set(workspaceId, left);
      else this.outstanding.delete(workspaceId);
      if (!ok) this.failed.add(workspaceId);
      this.scheduleIndexSync(workspaceId);
    };
    job.then(
      () => after(true),
      () => after(false),
    ); // the caller handles the outcome; this only follows it
  }

  /** Whether the last run left saves that may not be committed (the marker of a run that did not finish). */
  pendingFromBefore(workspaceId: string): boolean {
    return !this.marked.has(workspaceId) && existsSync(join(this.deps.repo(workspaceId).dir, ".git", PENDING_MARKER));
  }

  /** The history was repaired (GitSync's recovery): the marker goes once nothing else waits. */
  repaired(workspaceId: string): void {
    this.failed.delete(workspaceId);
    this.marked.add(workspaceId); // whatever is on disk is this run's now
    this.clearPending(workspaceId);
  }

  /** Whether a commit of this workspace failed since the last repair. */
  hasFailed(workspaceId: string): boolean {
    return this.failed.has(workspaceId);
  }

  /**
   * The marker holds a time (ms since the epoch): every save recorded before it is committed.
   * Written as the worker gets its first job after being idle (everything before is committed),
   * and moved on after each worker turn that committed all it took (saves recorded before the
   * turn took them). The repair attributes only saves recorded since (recovery.ts). A second of
   * slack covers a save recorded just before it was handed over: such a save only makes the
   * repair more careful (a page two people touched goes to Quire), never wrong.
   */
  private markPending(workspaceId: string): void {
    if (this.marked.has(workspaceId)) return;
    const git = join(this.deps.repo(workspaceId).dir, ".git");
    try {
      // Synchronous and before the save's commit is queued: a save acknowledged after this point
      // is covered even if the process is killed the next instant (the page cache survives that).
      writeFileSync(join(git, PENDING_MARKER), String(Date.now() - MARKER_SLACK_MS));
      this.marked.add(workspaceId);
    } catch {
      // No repository yet: the first commit of an existing folder takes everything it finds.
    }
  }

  private noteCommittedThrough(workspaceId: string, takenAt: number): void {
    if (!this.marked.has(workspaceId) || this.failed.has(workspaceId)) return;
    try {
      writeFileSync(join(this.deps.repo(workspaceId).dir, ".git", PENDING_MARKER), String(takenAt - MARKER_SLACK_MS));
    } catch {
      // the repository went away (workspace deleted): nothing to repair
    }
  }

  /** What the marker left by the last run says: every save recorded before this time (ms) was committed; 0 when unknown. */
  committedThrough(workspaceId: string): number {
    try {
      const value = Number(readFileSync(join(this.deps.repo(workspaceId).dir, ".git", PENDING_MARKER), "utf8").trim());
      return Number.isFinite(value) && value > 0 ? value : 0;
    } catch {
      return 0;
    }
  }

  private clearPending(workspaceId: string): void {
    if (!this.marked.has(workspaceId) || this.failed.has(workspaceId) || this.outstanding.has(workspaceId) || this.waiting.has(workspaceId) || this.holds.has(workspaceId)) return;
    const repo = this.deps.repo(workspaceId);
    if (repo.indexLag > 0) return;
    rmSync(join(repo.dir, ".git", PENDING_MARKER), { force: true });
    this.marked.delete(workspaceId);
  }

  /** Stages the paths commits left behind in the index, once the workspace has been quiet a moment. */
  scheduleIndexSync(workspaceId: string, delayMs = INDEX_SYNC_DELAY_MS): void {
    if (this.closed) return;
    this.markPending(workspaceId);
    const existing = this.indexTimers.get(workspaceId);
    if (existing) clearTimeout(existing);
    const timer = setTimeout(() => {
      this.indexTimers.delete(workspaceId);
      // Commits still coming (a burst): staging would hold them up; their end schedules it again.
      if (this.outstanding.has(workspaceId) || this.waiting.has(workspaceId)) return;
      void this.queue
        .run(workspaceId, () => this.deps.repo(workspaceId).syncIndex(INDEX_SYNC_CHUNK))
        .then(() => {
          if (this.deps.repo(workspaceId).indexLag > 0) this.scheduleIndexSync(workspaceId, 0);
          else this.clearPending(workspaceId);
        })
        .catch((error) => this.deps.log.warn("git index update failed", { workspace_id: workspaceId, error: String(error) }));
    }, delayMs);
    timer.unref?.();
    this.indexTimers.set(workspaceId, timer);
  }

  /** Drops a workspace's waiting index update and marker bookkeeping (its folder is being erased). */
  forget(workspaceId: string): void {
    const timer = this.indexTimers.get(workspaceId);
    if (timer) clearTimeout(timer);
    this.indexTimers.delete(workspaceId);
    this.marked.delete(workspaceId);
    this.failed.delete(workspaceId);
  }

  /** Resolves when nothing is queued on any workspace (index updates waiting for their delay excluded). */
  idle(): Promise<void> {
    return this.queue.idle();
  }

  /** On shutdown: lets queued commits finish, then brings every waiting index up to date. */
  async close(repos: Iterable<[string, Repo]>): Promise<void> {
    this.closed = true;
    for (const t of this.indexTimers.values()) clearTimeout(t);
    this.indexTimers.clear();
    await this.queue.idle();
    for (const [id, repo] of repos) {
      if (repo.indexLag === 0) continue;
      await this.queue.run(id, () => repo.syncIndex()).catch((error) => this.deps.log.warn("git index update failed", { workspace_id: id, error: String(error) }));
    }
    for (const id of [...this.marked]) this.clearPending(id);
  }
}

/**
 * Splits waiting saves into commits: the first save's author takes every later save of theirs
 * that no other author's save before it shares a file with; the rest form the next rounds. Each
 * file's versions stay in write order and no commit mixes authors.
 */
export function groupByAuthor<T extends { author: Author; files: FileContent[]; alone?: boolean }>(saves: T[]): T[][] {
  const groups: T[][] = [];
  let rest = saves;
  while (rest.length > 0) {
    const first = rest[0]!;
    const key = authorKey(first.author);
    const group: T[] = [];
    const later: T[] = [];
    const blocked = new Set<string>();
    for (const s of rest) {
      // A save that stands alone neither takes others into its commit nor joins another's.
      const joins = s === first || (!first.alone && !s.alone && authorKey(s.author) === key);
      if (joins && !s.files.some((f) => blocked.has(f.path))) group.push(s);
      else {
        later.push(s);
        for (const f of s.files) blocked.add(f.path);
      }
    }
    groups.push(group);
    rest = later;
  }
  return groups;
}

const authorKey = (a: Author) => `${a.name}\u0000${a.email}`;

/** One save: its own message. Several: `Save {n} changes via {origin}`, then each save's line. */
export function sharedMessage(messages: string[]): string {
  if (messages.length === 1) return messages[0]!;
  const subjects = messages.map((m) => m.split("\n")[0]!);
  const origins = new Set(subjects.map((s) => / via (.+)$/.exec(s)?.[1] ?? "Quire"));
  const via = origins.size === 1 ? [...origins][0]! : "Quire";
  return `Save ${messages.length} changes via ${via}\n\n${subjects.join("\n")}`;
}
