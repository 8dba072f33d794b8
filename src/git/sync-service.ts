import type { ReconciledPass } from "../content/reconcile.ts";
import type { Actor } from "../content/committed-write.ts";
import type { WorkspaceRow } from "../workspaces/workspace-records.ts";
import type { StagedFolder } from "../access/workspace-service.ts";
import type { Author } from "./commit-message.ts";
import { CommitWorker } from "./commit-worker.ts";
import { ConflictStore } from "./conflict-store.ts";
import type { SkippedFile } from "./disk-files.ts";
import { SYSTEM_AUTHOR, type FileContent, type Repo } from "./repo.ts";
import { RepoLifecycle } from "./repo-lifecycle.ts";
import { SkippedFiles } from "./skipped-files.ts";
import { SyncContext, type SyncDeps } from "./sync-context.ts";
import { SyncRunner, type SyncResult, type TriggerReason } from "./sync-runner.ts";
import { SyncStatusBoard, type SyncStatus } from "./sync-status.ts";
import { Transport, trackingRef } from "./transport.ts";

export type { SyncResult } from "./sync-runner.ts";

/**
 * Git sync (docs/architecture.md §6). Every workspace is a git work tree:
 * - outbound: each committed ledger write becomes a commit (author = the acting user) when
 *   `git_auto_commit` is on; commits are pushed after a short debounce so quick saves share a push;
 *   a rejected push (remote moved on) pulls, reconciles and pushes again, never forced;
 * - inbound: `trigger` (manual sync, webhook, polling) fetches, applies upstream changes through
 *   the ledger's writer, records conflicts, reconciles, records a merge commit and pushes.
 *
 * Three per-workspace queues cooperate: commits are made by the history queue (the git worker)
 * from the bytes each write reported, off the save path; anything that reads or writes the work
 * tree as well (clone, pull, merge) holds the ledger's writer and then the history queue, so it
 * sees every commit queued before it and never interleaves with a save; network transfers run in
 * the sync runner's own queue, so an unreachable remote never holds up local editing.
 *
 * This class is the one the rest of the server holds: it wires the parts together and follows
 * the workspace's life (start, creation, settings, release, stop). The parts: the repositories'
 * creation (repo-lifecycle.ts), what becomes a commit (commit-worker.ts), pushes, pulls and polls
 * (sync-runner.ts), the status shown to users (sync-status.ts), the files the history leaves out
 * (skipped-files.ts), and what they share (sync-context.ts).
 */
export class GitSync {
  readonly conflicts: ConflictStore;
  /** Public so a test server can swap its address classification (`transport.network`). */
  readonly transport: Transport;
  /** Called with each commit the branch gained (see SyncContext.committedHooks); a hook must not throw. */
  get committedHooks(): Array<(workspaceId: string, commit: string) => void> {
    return this.ctx.committedHooks;
  }
  /** Called with each sync round's result (metrics count them); a hook must not throw. */
  readonly syncedHooks: Array<(status: SyncResult["status"]) => void>;
  /** Asked after each pull with the paths it brought; a message refuses what it names and the sync status says so. */
  readonly pulledHooks: Array<(workspaceId: string, paths: ReadonlySet<string>) => string | null> = [];
  private readonly ctx: SyncContext;
  private readonly status: SyncStatusBoard;
  private readonly skippedFiles: SkippedFiles;
  private readonly lifecycle: RepoLifecycle;
  private readonly worker: CommitWorker;
  private readonly runner: SyncRunner;
  private unsubscribe: Array<() => void> = [];

  constructor(private readonly deps: SyncDeps) {
    this.conflicts = new ConflictStore(deps.dataDir);
    this.transport = new Transport({ keyPath: deps.config.git.sshKeyPath, knownHosts: deps.config.git.sshKnownHosts }, deps.config.git.allowPrivate);
    this.syncedHooks = [];
    this.ctx = new SyncContext(deps);
    this.status = new SyncStatusBoard({ workspaces: deps.workspaces, bus: deps.bus, log: deps.log, conflicts: this.conflicts });
    this.skippedFiles = new SkippedFiles(deps.log);
    this.lifecycle = new RepoLifecycle(this.ctx, this.transport, this.skippedFiles);
    // The worker asks for pushes through a callback: the runner it reaches is built just below.
    this.worker = new CommitWorker(this.ctx, { lifecycle: this.lifecycle, skipped: this.skippedFiles, status: this.status, schedulePush: (id) => this.runner.schedulePush(id) });
    this.runner = new SyncRunner(this.ctx, {
      transport: this.transport,
      conflicts: this.conflicts,
      status: this.status,
      lifecycle: this.lifecycle,
      worker: this.worker,
      skipped: this.skippedFiles,
      syncedHooks: this.syncedHooks,
      pulledHooks: this.pulledHooks,
    });
  }

  /** Quick saves within this window share one push. */
  get pushDelayMs(): number {
    return this.runner.pushDelayMs;
  }

  set pushDelayMs(ms: number) {
    this.runner.pushDelayMs = ms;
  }

  /**
   * Queues a commit of exactly these file contents (conflict resolutions use it). Resolves once it
   * is made, with its id (null when nothing changed); safe to await while holding the ledger's writer.
   */
  commitFiles(workspaceId: string, files: FileContent[], message: string, author: Author): Promise<string | null> {
    return this.worker.commitFiles(workspaceId, files, message, author);
  }

  /** One Repo per workspace, so isomorphic-git's object cache lives across saves. */
  repo(workspaceId: string): Repo {
    return this.ctx.repo(workspaceId);
  }

  /** Subscribes to the ledger, gives existing workspaces a repository, and starts polling. */
  start(): void {
    const { ctx, worker, runner } = this;
    this.lifecycle.cleanStaging();
    this.unsubscribe = [
      this.deps.ledger.onCommitted((write) => worker.onCommitted(write)),
      // A write group's files reach disk before its one commit is queued: the crash marker covers them.
      this.deps.ledger.onGroupOpened((workspaceId) => (ctx.stopping ? undefined : ctx.history.hold(workspaceId))),
      this.deps.reconciler.onReconciled((pass: ReconciledPass) => worker.onReconciled(pass)),
    ];
    const rows = this.deps.db.query<WorkspaceRow, []>("SELECT * FROM workspaces WHERE deleted_at IS NULL ORDER BY id").all();
    for (const ws of rows) {
      // The last run stopped with saves handed to the git worker: they are committed (and, in the
      // start-up sync below, pushed) before the first pull can meet them.
      const unclean = ctx.history.pendingFromBefore(ws.id);
      const since = unclean ? ctx.history.committedThrough(ws.id) : 0;
      ctx.track(
        ctx.withTree(ws.id, async () => {
          await this.lifecycle.ensureRepo(ws);
          if (unclean) await worker.recover(ws, "start", since);
        }),
      );
      // Catch up both ways after a restart: commits made while offline go out, upstream comes in.
      if (ws.git_remote) {
        // Files other than pages changed while the server was down (pages: the start-up
        // reconcile). Only where git is loaded anyway for the start-up sync (§3 of the decision).
        if (ws.git_auto_commit === 1) worker.queueDiskFiles(ws, null);
        ctx.track(runner.trigger(ws.id, { reason: "start" }));
      }
      runner.schedulePoll(ws);
    }
  }

  /** Stops timers and waits for queued commits, pushes and pulls to finish. */
  async stop(): Promise<void> {
    this.ctx.stopping = true;
    this.worker.stopRetries();
    // Saves held for a full disk would keep the busy loop below waiting: they go to the next start's repair.
    this.ctx.history.releaseHeld();
    for (const off of this.unsubscribe) off();
    this.runner.flushTimers();
    while (this.ctx.busy) await this.ctx.settle();
    await this.runner.idle();
    await this.ctx.closeHistory();
  }

  /** Resolves when no commit, push (including debounced ones) or pull is queued (tests, benchmarks). */
  async idle(): Promise<void> {
    for (;;) {
      await this.deps.ledger.queue.idle();
      await this.ctx.history.idle();
      if (this.runner.pushWaiting) {
        await Bun.sleep(this.pushDelayMs);
        continue;
      }
      if (!this.ctx.busy) return;
      await this.ctx.settle();
    }
  }

  /** idle(), then the git index brought up to date as well (tests, benchmarks: a settled workspace). */
  async settled(): Promise<void> {
    await this.idle();
    await this.ctx.history.indexSettled();
    await this.idle();
  }

  lastError(workspaceId: string): string | null {
    return this.status.lastError(workspaceId);
  }

  // ---- workspace lifecycle -------------------------------------------------------------------

  /**
   * After a workspace row is committed: clone its remote, or `git init` without one. A failed
   * clone removes the row (members cascade), the folder and anything indexed, then throws the
   * ValidationError that says why.
   */
  async onWorkspaceCreated(ws: WorkspaceRow): Promise<void> {
    const { ctx } = this;
    if (!ws.git_remote) {
      await ctx.withTree(ws.id, () => this.lifecycle.ensureRepo(ws));
      return;
    }
    // The clone ran before the row existed (prepareClone, inside workspace creation), so a
    // workspace with a remote and no repository is a bug, not a state to repair here.
    if (!ctx.repo(ws.id).exists()) throw new Error(`workspace ${ws.id} has a git remote but was not cloned first`);
    // Ids injected into files that had none are committed (one commit, from the texts the
    // reconciler wrote: no status walk over the fresh clone), then pushed with the first sync.
    const injected: FileContent[] = [];
    await this.deps.reconciler.reconcile(ws.id, { announce: true, source: "git", onIdsInjected: (files) => injected.push(...files.map((f) => ({ path: f.path, data: f.text }))) });
    const { head, tracking } = await ctx.history.run(ws.id, async () => {
      const repo = ctx.repo(ws.id);
      if (injected.length > 0) await repo.commitContents(injected, "Add page ids via Quire", SYSTEM_AUTHOR);
      return { head: await repo.head(), tracking: await repo.resolve(trackingRef(ws.git_branch)) };
    });
    ctx.history.scheduleIndexSync(ws.id);
    const fresh = this.deps.workspaces.byId(ws.id) ?? ws;
    this.status.set(fresh, head !== null && head !== tracking ? "ahead" : "synced");
    if (head !== null && head !== tracking) this.runner.schedulePush(ws.id);
    this.runner.schedulePoll(fresh);
  }

  /** See RepoLifecycle.prepareClone: the clone made before the workspace row exists. */
  prepareClone(remote: { url: string; branch: string; token: string | null }): Promise<StagedFolder> {
    return this.lifecycle.prepareClone(remote);
  }

  /**
   * Lets go of a workspace whose folder is about to be erased (its account was deleted): no poll,
   * push or index update starts for it any more, and the writes, commits, pulls and pushes already
   * under way finish first, so none of them writes into the folder after it is gone.
   */
  async release(workspaceId: string): Promise<void> {
    this.runner.cancelTimers(workspaceId);
    await this.ctx.withTree(workspaceId, () => this.ctx.history.forget(workspaceId));
    await this.runner.drain(workspaceId);
    this.ctx.forgetRepo(workspaceId);
  }

  onWorkspaceDeleted(ws: WorkspaceRow): void {
    this.ctx.forgetRepo(ws.id);
    this.runner.stopPolling(ws.id);
  }

  /** Settings changed (branch, interval, auto-commit): polling follows the new interval. */
  onSettingsChanged(ws: WorkspaceRow, keys: string[]): void {
    if (keys.includes("sync_interval") || keys.includes("git_branch")) this.runner.schedulePoll(ws);
    if (keys.includes("git_auto_commit") && ws.git_auto_commit === 1 && !this.ctx.stopping) this.worker.commitPending(ws);
  }

  // ---- commits, pushes, pulls ----------------------------------------------------------------

  /** Files that are not pages changed on disk (the file watcher's report): see CommitWorker.onDiskFiles. */
  onDiskFiles(workspaceId: string, paths: string[]): void {
    this.worker.onDiskFiles(workspaceId, paths);
  }

  /** Files other than pages left out of the history (too large, symlinks), as last seen. */
  skipped(workspaceId: string): SkippedFile[] {
    return this.skippedFiles.list(workspaceId);
  }

  authorOf(actor: Actor): Author {
    return this.worker.authorOf(actor);
  }

  schedulePush(workspaceId: string): void {
    this.runner.schedulePush(workspaceId);
  }

  /**
   * Fetches and applies upstream changes (manual sync, webhook, polling). `branch`, when given
   * (a webhook's push), must be the workspace's branch; pushes to other branches are ignored.
   */
  trigger(workspaceId: string, opts: { reason: TriggerReason; branch?: string }): Promise<SyncResult> {
    return this.runner.trigger(workspaceId, opts);
  }

  // ---- status --------------------------------------------------------------------------------

  /** Re-evaluates the status after conflicts were resolved. */
  refreshStatus(workspaceId: string): void {
    this.status.refresh(workspaceId);
  }

  setStatus(ws: WorkspaceRow, status: SyncStatus): void {
    this.status.set(ws, status);
  }
}
