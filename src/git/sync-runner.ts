import { ValidationError } from "../core/errors.ts";
import { KeyedQueue } from "../core/write-queue.ts";
import type { WorkspaceRow } from "../workspaces/workspace-records.ts";
import { commitPath } from "./commit-message.ts";
import type { CommitWorker } from "./commit-worker.ts";
import type { ConflictStore } from "./conflict-store.ts";
import { applyUpstream } from "./pull.ts";
import { reportPull, type TriggerReason } from "./pull-report.ts";
import { assertRemoteAllowed, parseRemote, type RemoteSpec } from "./remote-url.ts";
import { readGitToken } from "../workspaces/remote-token.ts";
import { withIndexLock } from "./index-lock.ts";
import { loadGit, SYSTEM_AUTHOR, type Repo } from "./repo.ts";
import type { RepoLifecycle } from "./repo-lifecycle.ts";
import type { SkippedFiles } from "./skipped-files.ts";
import type { SyncContext } from "./sync-context.ts";
import type { SyncStatusBoard } from "./sync-status.ts";
import { RemoteError, trackingRef, type Transport } from "./transport.ts";

export type { TriggerReason } from "./pull-report.ts";

export interface SyncResult {
  /** `completed`; `conflict` when conflicts are open after the pull; `ignored` for another branch; `failed` when the remote could not be used. */
  status: "completed" | "conflict" | "ignored" | "failed";
  changes: { added: number; updated: number; deleted: number };
  conflicts?: number;
  error?: string;
}

const MAX_PUSH_ROUNDS = 3;

/**
 * Everything that talks to the remote: debounced pushes, the pull-reconcile-merge-push round
 * (manual sync, webhook, polling, a rejected push) and the poll timers. Network transfers run in
 * this runner's own per-workspace queue, so an unreachable remote never holds up local editing;
 * the work tree is taken (`withTree`) only to apply upstream files and record the merge.
 */
export class SyncRunner {
  /** Quick saves within this window share one push. */
  pushDelayMs = 250;
  private readonly netQueue = new KeyedQueue();
  private readonly pushTimers = new Map<string, ReturnType<typeof setTimeout>>();
  private readonly pollTimers = new Map<string, ReturnType<typeof setTimeout>>();

  constructor(
    private readonly ctx: SyncContext,
    private readonly parts: {
      transport: Transport;
      conflicts: ConflictStore;
      status: SyncStatusBoard;
      lifecycle: RepoLifecycle;
      worker: CommitWorker;
      skipped: SkippedFiles;
      /** Called with each sync round's result (metrics count them); a hook must not throw. */
      syncedHooks: Array<(status: SyncResult["status"]) => void>;
      /** Asked after each pull with the paths it brought; a message refuses what it names (the sync reports it). */
      pulledHooks: Array<(workspaceId: string, paths: ReadonlySet<string>) => string | null>;
    },
  ) {}

  /** What the pulls of the running sync refused, per workspace (reported when the sync settles). */
  private readonly refused = new Map<string, string>();

  // ---- timers --------------------------------------------------------------------------------

  /** At stop: no more polls; pushes that were waiting for their debounce go out now rather than being lost. */
  flushTimers(): void {
    for (const t of this.pollTimers.values()) clearTimeout(t);
    this.pollTimers.clear();
    for (const [id, t] of this.pushTimers) {
      clearTimeout(t);
      this.ctx.track(this.netQueue.run(id, () => this.pushNow(id)));
    }
    this.pushTimers.clear();
  }

  /** True while a debounced push has not started yet. */
  get pushWaiting(): boolean {
    return this.pushTimers.size > 0;
  }

  /** Resolves when no push or pull is queued. */
  idle(): Promise<void> {
    return this.netQueue.idle();
  }

  /** No poll or push starts for this workspace any more (pending ones are dropped). */
  cancelTimers(workspaceId: string): void {
    for (const timers of [this.pollTimers, this.pushTimers]) {
      const t = timers.get(workspaceId);
      if (t) clearTimeout(t);
      timers.delete(workspaceId);
    }
  }

  /** Resolves once the pushes and pulls queued for this workspace have finished. */
  drain(workspaceId: string): Promise<void> {
    return this.netQueue.run(workspaceId, () => undefined);
  }

  stopPolling(workspaceId: string): void {
    const t = this.pollTimers.get(workspaceId);
    if (t) clearTimeout(t);
    this.pollTimers.delete(workspaceId);
  }

  schedulePoll(ws: WorkspaceRow): void {
    this.stopPolling(ws.id);
    if (this.ctx.stopping || !ws.git_remote) return;
    const { workspaces, log } = this.ctx.deps;
    const seconds = Math.max(10, ws.sync_interval);
    const timer = setTimeout(() => {
      this.pollTimers.delete(ws.id);
      const fresh = workspaces.byId(ws.id);
      if (!fresh?.git_remote || this.ctx.stopping) return;
      this.trigger(fresh.id, { reason: "poll" })
        .catch((error) => log.warn("git poll failed", { workspace_id: ws.id, error: String(error) }))
        .finally(() => {
          const again = workspaces.byId(ws.id);
          if (again) this.schedulePoll(again);
        });
    }, seconds * 1000);
    timer.unref?.();
    this.pollTimers.set(ws.id, timer);
  }

  // ---- outbound ------------------------------------------------------------------------------

  schedulePush(workspaceId: string): void {
    if (this.ctx.stopping || this.pushTimers.has(workspaceId)) return;
    const timer = setTimeout(() => {
      this.pushTimers.delete(workspaceId);
      this.ctx.track(this.netQueue.run(workspaceId, () => this.pushNow(workspaceId)));
    }, this.pushDelayMs);
    this.pushTimers.set(workspaceId, timer);
  }

  /** Pushes HEAD when the remote does not have it; a rejection pulls first and retries. */
  private async pushNow(workspaceId: string): Promise<void> {
    const { workspaces, db, config } = this.ctx.deps;
    const { status, transport } = this.parts;
    const ws = workspaces.byId(workspaceId);
    if (!ws?.git_remote) return;
    const repo = this.ctx.repo(ws.id);
    // After the commits queued so far: they go out in this push.
    const head = await this.ctx.history.run(ws.id, () => repo.head());
    if (head === null || head === (await repo.resolve(trackingRef(ws.git_branch)))) return;
    const spec = parseRemote(ws.git_remote, readGitToken(db, ws.id));
    try {
      await assertRemoteAllowed(spec, config.git.allowPrivate);
      await transport.push(repo.dir, spec, ws.git_branch, head);
      status.clearError(ws.id);
      status.set(ws, status.settled(ws.id));
    } catch (error) {
      if (error instanceof RemoteError && error.reason === "rejected") {
        await this.syncLocked(ws, "push-rejected");
        return;
      }
      status.fail(ws, spec, error, "push");
    }
  }

  // ---- inbound -------------------------------------------------------------------------------

  /**
   * Fetches and applies upstream changes (manual sync, webhook, polling). `branch`, when given
   * (a webhook's push), must be the workspace's branch; pushes to other branches are ignored.
   */
  async trigger(workspaceId: string, opts: { reason: TriggerReason; branch?: string }): Promise<SyncResult> {
    const { workspaces } = this.ctx.deps;
    const ws = workspaces.byId(workspaceId);
    if (!ws) return emptyResult("ignored");
    if (!ws.git_remote) throw new ValidationError("This workspace has no git remote to sync with", "git_remote");
    if (opts.branch !== undefined && opts.branch !== ws.git_branch) return emptyResult("ignored");
    const run = this.netQueue.run(workspaceId, async () => {
      const fresh = workspaces.byId(workspaceId);
      const result = fresh?.git_remote ? await this.syncLocked(fresh, opts.reason) : emptyResult("ignored");
      for (const hook of this.parts.syncedHooks) hook(result.status);
      return result;
    });
    this.ctx.track(run);
    return run;
  }

  /** One pull-reconcile-merge-push round (or a few, when the remote keeps moving). Runs in the network queue. */
  private async syncLocked(ws: WorkspaceRow, reason: TriggerReason): Promise<SyncResult> {
    const { db, config } = this.ctx.deps;
    const { status, transport, lifecycle } = this.parts;
    const spec = parseRemote(ws.git_remote!, readGitToken(db, ws.id));
    const total = { added: 0, updated: 0, deleted: 0 };
    status.set(ws, "syncing");
    try {
      await assertRemoteAllowed(spec, config.git.allowPrivate);
      // At start, commits made since the last push (a repaired history among them) go out before
      // the first pull; a remote that moved on meanwhile refuses, and the round below merges first.
      if (reason === "start") await this.pushIfAhead(ws, spec);
      for (let round = 0; round < MAX_PUSH_ROUNDS; round++) {
        const repo = await this.ctx.withTree(ws.id, () => lifecycle.ensureRepo(ws));
        const remoteOid = await transport.fetch(repo.dir, spec, ws.git_branch);
        if (remoteOid !== null) {
          const counts = await this.pull(ws, repo, remoteOid, reason);
          total.added += counts.added;
          total.updated += counts.updated;
          total.deleted += counts.deleted;
        }
        const head = await this.ctx.history.run(ws.id, () => repo.head());
        if (head === null || head === remoteOid) break;
        try {
          await transport.push(repo.dir, spec, ws.git_branch, head);
          break;
        } catch (error) {
          if (!(error instanceof RemoteError && error.reason === "rejected") || round === MAX_PUSH_ROUNDS - 1) throw error;
        }
      }
    } catch (error) {
      status.fail(ws, spec, error, "sync");
      return { status: "failed", changes: total, error: status.lastError(ws.id) ?? "sync failed" };
    }
    const open = this.parts.conflicts.list(ws.id).length;
    const refused = this.refused.get(ws.id);
    this.refused.delete(ws.id);
    if (refused !== undefined) {
      // The pages came in; what was refused (an invalid .quire/access.yaml) holds the status at error until fixed.
      status.refuse(ws, refused);
      return { status: open > 0 ? "conflict" : "completed", changes: total, conflicts: open, error: refused };
    }
    status.clearError(ws.id);
    status.set(ws, open > 0 ? "conflict" : "synced");
    return { status: open > 0 ? "conflict" : "completed", changes: total, conflicts: open };
  }

  private async pushIfAhead(ws: WorkspaceRow, spec: RemoteSpec): Promise<void> {
    const repo = this.ctx.repo(ws.id);
    if (!repo.exists()) return;
    const head = await this.ctx.history.run(ws.id, () => repo.head());
    if (head === null || head === (await repo.resolve(trackingRef(ws.git_branch)))) return;
    try {
      await this.parts.transport.push(repo.dir, spec, ws.git_branch, head);
    } catch (error) {
      if (!(error instanceof RemoteError && error.reason === "rejected")) throw error;
    }
  }

  /** Applies `remoteOid` to the work tree, reconciles, records the merge, and announces it. */
  private pull(ws: WorkspaceRow, repo: Repo, remoteOid: string, reason: TriggerReason) {
    return this.parts.worker.duringPull(ws.id, () => this.pullLocked(ws, repo, remoteOid, reason));
  }

  private async pullLocked(ws: WorkspaceRow, repo: Repo, remoteOid: string, reason: TriggerReason) {
    const { ledger, reconciler, workspaces, bus } = this.ctx.deps;
    // The work tree and the history both held: every commit queued before the pull is made first.
    // Read now: auto-commit may have been switched since the sync started.
    const autoCommit = (workspaces.byId(ws.id) ?? ws).git_auto_commit === 1;
    const plan = await this.ctx.withTree(ws.id, () => {
      // A merge over saves held for a full disk would put them after the remote's versions.
      if (this.ctx.history.holding(ws.id)) throw this.ctx.history.heldRefusal(ws.id);
      return applyUpstream({ repo, workspaceId: ws.id, remoteOid, records: ledger.records, conflicts: this.parts.conflicts, noteWrite: (abs, text) => ledger.ownWrites.note(abs, text), keepUncommitted: !autoCommit });
    });
    const touched = plan.applied.length + plan.merged.length;
    // A reconciler that announces the pages it changed itself (page events or one bulk-sync) is
    // left to do so; otherwise the pull announces them. Either way each change is told once.
    let announcedByReconcile = 0;
    const off = bus.onEvent((e) => {
      if (e.workspace_id === ws.id && (e.type.startsWith("page-") || e.type === "bulk-sync")) announcedByReconcile++;
    });
    try {
      const opts = { announce: false, source: "git" as const };
      if (touched > 0) await reconciler.reconcile(ws.id, opts);
    } finally {
      off();
    }
    const pulled = new Set([...plan.applied.map((c) => c.path), ...plan.merged, ...plan.same]);
    for (const hook of this.parts.pulledHooks) {
      const problem = hook(ws.id, pulled);
      if (problem !== null) this.refused.set(ws.id, problem);
    }
    let head: string | null;
    try {
      head = await this.ctx.withTree(ws.id, async () => {
        await this.recordMerge(ws, repo, remoteOid, touched > 0, plan.conflicts.map((c) => c.path), pulled, autoCommit);
        return repo.head();
      });
    } finally {
      // Also when the merge failed: paths it could not stage (another git command held the
      // index) wait in the repository for the catch-up.
      this.ctx.history.scheduleIndexSync(ws.id);
    }
    this.ctx.announceCommit(ws.id, head);
    return reportPull(this.ctx.deps, ws, plan, remoteOid, reason, announcedByReconcile === 0);
  }

  /**
   * Makes the reconciled work tree the branch's next commit: a fast-forward when nothing was
   * committed locally since the merge base, else a merge commit with both parents. After a
   * fast-forward, local versions kept in a conflict (a file changed on disk but not committed,
   * such as an image under assets/) are committed on top, so HEAD and the remote hold what the
   * work tree holds, as a merge commit would; then the ids the reconciler injected.
   *
   * With auto-commit off, Quire's commits hold only what the pull brought (`pulled`, ids injected
   * into those files included): the user's uncommitted edits, conflicting local versions among
   * them, stay uncommitted in the work tree (docs/decisions/git-commits.md §8).
   */
  private async recordMerge(ws: WorkspaceRow, repo: Repo, remoteOid: string, reconciled: boolean, conflicted: string[], pulled: Set<string>, autoCommit: boolean): Promise<void> {
    const { skipped } = this.parts;
    const head = await repo.head();
    if (head === remoteOid || (head !== null && (await repo.isAncestor(remoteOid, head)))) return;
    if (head === null || (await repo.isAncestor(head, remoteOid))) {
      await repo.setRef(`refs/heads/${ws.git_branch}`, remoteOid);
      if (!autoCommit) {
        // The index follows the new HEAD for the pulled files; conflicted paths keep the remote's
        // version there too, so `git status` shows the local version as an unstaged change.
        await repo.stage([...pulled]);
        await resetIndexToHead(repo, conflicted);
        if (reconciled && pulled.size > 0) await repo.commitPaths([...pulled], "Add page ids via Quire", SYSTEM_AUTHOR);
        return;
      }
      if (conflicted.length > 0) {
        const subject = conflicted.length === 1 ? `the local version of ${commitPath(conflicted[0]!)}` : `the local versions of ${conflicted.length} files`;
        await repo.commitPaths(conflicted, `Keep ${subject} (conflict) via Quire`, SYSTEM_AUTHOR);
      }
      const dirty = reconciled ? skipped.withinLimits(ws.id, repo, await repo.dirtyPaths(), pulled) : [];
      if (dirty.length > 0) await repo.commitPaths(dirty, "Add page ids via Quire", SYSTEM_AUTHOR);
      return;
    }
    // HEAD's tree plus what the pull changed; with auto-commit on, plus every local change too.
    const paths = autoCommit ? skipped.withinLimits(ws.id, repo, await repo.dirtyPaths(), pulled) : [...pulled];
    await repo.commitPaths(paths, `Merge origin/${ws.git_branch} via Quire`, SYSTEM_AUTHOR, [head, remoteOid]);
  }
}

/** Points the index entries of `paths` back at HEAD's version (the work tree is left alone). */
async function resetIndexToHead(repo: Repo, paths: string[]): Promise<void> {
  if (paths.length === 0) return;
  const git = await loadGit();
  for (const filepath of paths) await withIndexLock(repo.dir, (fs) => git.resetIndex({ fs, dir: repo.dir, filepath }));
}

const emptyResult = (status: SyncResult["status"]): SyncResult => ({ status, changes: { added: 0, updated: 0, deleted: 0 } });
