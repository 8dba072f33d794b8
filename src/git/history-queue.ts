import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Logger } from "../core/log.ts";
import { KeyedQueue } from "../core/write-queue.ts";
import { storageFailureOf } from "../core/storage-errors.ts";
import type { FileContent, Repo } from "./repo.ts";
import type { Author } from "./commit-message.ts";
import { IndexLockedError } from "./index-lock.ts";

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
/** After another git command kept the index locked past the wait, the index is tried again this much later, then twice as late each time… */
const INDEX_LOCKED_RETRY_MS = 3000;
/** …up to this. */
const INDEX_LOCKED_RETRY_MAX_MS = 60_000;
/** While another git command keeps the index locked, it is logged this often. */
const INDEX_LOCKED_WARN_EVERY_MS = 10 * 60_000;
/** From this many saves waiting when the worker gets to them, an author's saves share a commit. */
const SHARE_FROM = 10;
/** In a work tree's `.git/`: saves were handed to the worker and not yet all committed and staged. */
export const PENDING_MARKER = "quire-pending";
const MARKER_SLACK_MS = 1000;
/**
 * Saves whose commit the disk refused (full, or read-only) are held with their bytes and retried
 * (docs/decisions/storage.md §3); beyond these, per workspace, they are let go to the work-tree repair.
 */
const HOLD_MAX_BYTES = 256 * 1024 * 1024;
const HOLD_MAX_SAVES = 10_000;
/** The first retry of held saves waits this long, doubling up to `HOLD_RETRY_MAX_MS`. */
const HOLD_RETRY_MS = 1_000;
const HOLD_RETRY_MAX_MS = 30_000;

/** A workspace's saves held after the disk refused their commit: groups in order, each committed as it would have been. */
interface Held {
  groups: QueuedSave[][];
  saves: number;
  bytes: number;
  /** The refusal of the last attempt (given to the saves if they are let go). */
  error: unknown;
  attempts: number;
  timer: ReturnType<typeof setTimeout> | null;
}

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
  /** Saves held after the disk refused their commit, per workspace: nothing newer is committed before them. */
  private readonly held = new Map<string, Held>();
  private closed = false;
  /** Workspaces whose index another git command holds locked: since when, and when that was last logged. */
  private readonly lockedOut = new Map<string, { since: number; warned: number; retryMs: number }>();

  constructor(
    private readonly deps: {
      repo: (workspaceId: string) => Repo;
      log: Logger;
      /** Told of each refusal that holds saves (the storage health: its once-a-minute warning, readiness). */
      onHeld?: (error: unknown) => void;
    },
  ) {}

  /** Runs `op` as the workspace's history writer, after every commit queued before it. */
  run<T>(workspaceId: string, op: () => Promise<T> | T): Promise<T> {
    // Held saves go first when the disk has room again: the op then sees them in HEAD.
    return this.queue.run(workspaceId, async () => {
      await this.flushHeld(workspaceId);
      return op();
    });
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
          // A new save is the moment to retry held ones; while they stay held, it waits behind them.
          if (!(await this.flushHeld(workspaceId))) return void this.holdGroups(workspaceId, this.groupsOf(taken), null);
          if (await this.commitSaves(workspaceId, taken)) this.noteCommittedThrough(workspaceId, takenAt);
        }),
      );
    });
  }

  /** Commits `saves` as few commits as authorship allows, in order; settles each save's promise. True when all were committed. */
  private async commitSaves(workspaceId: string, saves: QueuedSave[]): Promise<boolean> {
    let all = true;
    const groups = this.groupsOf(saves);
    for (let i = 0; i < groups.length; i++) {
      const group = groups[i]!;
      try {
        await this.commitGroup(workspaceId, group);
      } catch (error) {
        all = false;
        if (storageFailureOf(error) !== null) {
          // The disk refused: this commit and every later one wait with their bytes, in order.
          this.holdGroups(workspaceId, groups.slice(i), error);
          return false;
        }
        this.failed.add(workspaceId); // the marker stays until GitSync has repaired the history
        for (const s of group) s.reject(error);
      }
    }
    return all;
  }

  /** A few waiting saves (someone saving twice in quick succession) keep a commit each; more share by author. */
  private groupsOf(saves: QueuedSave[]): QueuedSave[][] {
    if (saves.length === 0) return [];
    return saves.length < SHARE_FROM ? saves.map((s) => [s]) : groupByAuthor(saves);
  }

  /** Makes one group's commit and settles its saves with it; throws (settling nothing) when it fails. */
  private async commitGroup(workspaceId: string, group: QueuedSave[]): Promise<void> {
    const repo = this.deps.repo(workspaceId);
    for (const s of group) await s.prepare?.(repo);
    const latest = new Map<string, FileContent>();
    for (const s of group) for (const f of s.files) latest.set(f.path, f);
    const oid = await repo.commitContents([...latest.values()], sharedMessage(group.map((s) => s.message)), group[0]!.author);
    for (const s of group) s.resolve(oid);
  }

  /**
   * Holds `groups` (after any already held) for a retry, their promises unsettled. Beyond the cap
   * every held save is let go: rejected with the refusal, so GitSync repairs from the work tree
   * (which holds each file's last version; earlier versions of a file saved twice are then lost
   * to the history, never the file). `error` null: the groups wait behind held ones not yet retried.
   */
  private holdGroups(workspaceId: string, groups: QueuedSave[][], error: unknown): void {
    if (groups.length === 0) return;
    let held = this.held.get(workspaceId);
    if (!held) this.held.set(workspaceId, (held = { groups: [], saves: 0, bytes: 0, error, attempts: 0, timer: null }));
    if (error !== null) {
      held.error = error;
      this.deps.onHeld?.(error);
    }
    for (const group of groups) {
      held.groups.push(group);
      held.saves += group.length;
      held.bytes += groupBytes(group);
    }
    if (held.saves > HOLD_MAX_SAVES || held.bytes > HOLD_MAX_BYTES) {
      this.deps.log.warn("git commits held for a full disk exceed the cap: repairing from the work tree instead", {
        workspace_id: workspaceId,
        saves: held.saves,
        bytes: held.bytes,
      });
      this.letGo(workspaceId);
      return;
    }
    this.retryHeldLater(workspaceId, held);
  }

  /** Rejects every held save with the last refusal (GitSync repairs the history from the work tree). */
  private letGo(workspaceId: string): void {
    const held = this.held.get(workspaceId);
    if (!held) return;
    this.held.delete(workspaceId);
    if (held.timer) clearTimeout(held.timer);
    this.failed.add(workspaceId); // the marker stays until the repair is made
    for (const group of held.groups) for (const s of group) s.reject(held.error);
  }

  private retryHeldLater(workspaceId: string, held: Held): void {
    if (this.closed || held.timer) return;
    const delay = Math.min(HOLD_RETRY_MS * 2 ** held.attempts, HOLD_RETRY_MAX_MS);
    held.attempts++;
    held.timer = setTimeout(() => {
      held.timer = null;
      if (this.held.get(workspaceId) !== held) return;
      this.track(workspaceId, this.queue.run(workspaceId, () => this.flushHeld(workspaceId)));
    }, delay);
    held.timer.unref?.();
  }

  /**
   * Commits the held saves in order, inside the queue. True when none is held any more; false when
   * the disk still refuses (a retry is scheduled). Another failure lets them all go to the repair.
   */
  private async flushHeld(workspaceId: string): Promise<boolean> {
    const held = this.held.get(workspaceId);
    if (!held) return true;
    while (held.groups.length > 0) {
      const group = held.groups[0]!;
      try {
        await this.commitGroup(workspaceId, group);
      } catch (error) {
        held.error = error;
        if (storageFailureOf(error) === null) {
          this.letGo(workspaceId);
          return true;
        }
        this.retryHeldLater(workspaceId, held);
        return false;
      }
      held.groups.shift();
      held.saves -= group.length;
      held.bytes -= groupBytes(group);
    }
    this.held.delete(workspaceId);
    if (held.timer) clearTimeout(held.timer);
    this.scheduleIndexSync(workspaceId); // skipped while they were held
    return true;
  }

  /** Whether saves of this workspace are held for a retry (a repair or a merge would overtake them). */
  holding(workspaceId: string): boolean {
    return this.held.has(workspaceId);
  }

  /** The refusal that holds this workspace's saves, to throw from work that must not overtake them; null when none are held. */
  heldRefusal(workspaceId: string): unknown {
    return this.held.get(workspaceId)?.error ?? null;
  }

  /**
   * Shutdown: held saves are let go (rejected), the pending marker stays, and the next start
   * repairs the history from the work tree.
   */
  releaseHeld(): void {
    for (const id of [...this.held.keys()]) this.letGo(id);
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
      // Built from the work tree, which is newer than held saves: it waits until they are in.
      if (!(await this.flushHeld(workspaceId))) throw this.heldRefusal(workspaceId);
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
    if (!this.marked.has(workspaceId) || this.failed.has(workspaceId) || this.held.has(workspaceId)) return;
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
    if (!this.marked.has(workspaceId) || this.failed.has(workspaceId) || this.outstanding.has(workspaceId) || this.waiting.has(workspaceId) || this.holds.has(workspaceId) || this.held.has(workspaceId)) return;
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
      // Held saves too: staging now would fail the same way; their commit schedules it again.
      if (this.outstanding.has(workspaceId) || this.waiting.has(workspaceId) || this.held.has(workspaceId)) return;
      void this.queue
        .run(workspaceId, () => this.deps.repo(workspaceId).syncIndex(INDEX_SYNC_CHUNK))
        .then(() => {
          this.lockedOut.delete(workspaceId);
          if (this.deps.repo(workspaceId).indexLag > 0) this.scheduleIndexSync(workspaceId, 0);
          else this.clearPending(workspaceId);
        })
        .catch((error) => {
          if (!(error instanceof IndexLockedError)) {
            this.deps.log.warn("git index update failed", { workspace_id: workspaceId, error: String(error) });
            return;
          }
          // A person's git command holds the index (a commit's editor open): tried again until it
          // is done, the lock never removed (docs/decisions/git-commits.md §15). Said when it
          // starts, then every few minutes while it lasts, not at every retry.
          const now = Date.now();
          const out = this.lockedOut.get(workspaceId) ?? { since: now, warned: 0, retryMs: INDEX_LOCKED_RETRY_MS / 2 };
          if (now - out.warned >= INDEX_LOCKED_WARN_EVERY_MS) {
            this.deps.log.warn("git index update waits for another git command", {
              workspace_id: workspaceId,
              error: error.message,
              waiting_s: Math.round((now - out.since) / 1000),
            });
            out.warned = now;
          }
          // Each try holds the workspace's queue for the lock's wait: a lock kept for long (an
          // editor left open, a command killed) is tried less and less often, up to once a minute.
          out.retryMs = Math.min(out.retryMs * 2, INDEX_LOCKED_RETRY_MAX_MS);
          this.lockedOut.set(workspaceId, out);
          this.scheduleIndexSync(workspaceId, out.retryMs);
        });
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
    this.lockedOut.delete(workspaceId);
    const held = this.held.get(workspaceId);
    if (held?.timer) clearTimeout(held.timer);
    this.held.delete(workspaceId);
    // Their files are being erased with the workspace: nothing is left to commit them into.
    for (const group of held?.groups ?? []) for (const s of group) s.resolve(null);
  }

  /** Resolves when nothing is queued on any workspace (index updates waiting for their delay excluded). */
  idle(): Promise<void> {
    return this.queue.idle();
  }

  /**
   * Resolves once no index update waits for its delay or runs: what a large import leaves last
   * (staging its thousands of files, in chunks, a second after the last commit). For tests and
   * benchmarks that measure a settled workspace.
   */
  async indexSettled(): Promise<void> {
    for (;;) {
      await this.queue.idle();
      if (this.indexTimers.size === 0) return;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }

  /** On shutdown: lets queued commits finish, then brings every waiting index up to date. */
  async close(repos: Iterable<[string, Repo]>): Promise<void> {
    this.closed = true;
    this.releaseHeld();
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

const groupBytes = (group: Array<{ files: FileContent[] }>) =>
  group.reduce((n, s) => n + s.files.reduce((m, f) => m + (typeof f.data === "string" ? Buffer.byteLength(f.data) : (f.data?.byteLength ?? 0)), 0), 0);

const authorKey = (a: Author) => `${a.name}\u0000${a.email}`;

/** One save: its own message. Several: `Save {n} changes via {origin}`, then each save's line. */
export function sharedMessage(messages: string[]): string {
  if (messages.length === 1) return messages[0]!;
  const subjects = messages.map((m) => m.split("\n")[0]!);
  const origins = new Set(subjects.map((s) => / via (.+)$/.exec(s)?.[1] ?? "Quire"));
  const via = origins.size === 1 ? [...origins][0]! : "Quire";
  return `Save ${messages.length} changes via ${via}\n\n${subjects.join("\n")}`;
}
