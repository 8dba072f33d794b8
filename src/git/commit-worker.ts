import type { CommittedWrite, Actor, Origin } from "../content/committed-write.ts";
import type { ReconciledPass } from "../content/reconcile.ts";
import { transientName } from "../content/file-watcher.ts";
import type { WorkspaceRow } from "../workspaces/workspace-records.ts";
import { commitPath, type Author } from "./commit-message.ts";
import { diskFilesMessage, historyFile, scanDiskFiles } from "./disk-files.ts";
import { recoveryGroups, saversSince } from "./recovery.ts";
import { SYSTEM_AUTHOR, type FileContent } from "./repo.ts";
import type { RepoLifecycle } from "./repo-lifecycle.ts";
import type { SkippedFiles } from "./skipped-files.ts";
import type { SyncContext } from "./sync-context.ts";
import type { SyncStatusBoard } from "./sync-status.ts";

const ORIGIN_LABEL: Partial<Record<Origin, string>> = { "web editor": "web editor", API: "API", MCP: "MCP" };
const VERB: Record<string, string> = { create: "Create", update: "Update", delete: "Delete", move: "Move", upload: "Upload" };
const DISK_VERB: Record<ReconciledPass["changes"][number]["action"], string> = { page_created: "Create", page_updated: "Update", page_deleted: "Delete", page_moved: "Move" };

/**
 * The outbound half of git sync, up to the commit: what becomes a commit (each committed ledger
 * write, each reconcile pass over pages changed on disk, other files changed on disk, edits left
 * pending while auto-commit was off), with which message and author, handed to the git worker
 * (the history queue) off the save path. A made commit marks the workspace ahead and asks for a
 * push (`schedulePush`, the sync runner's); a failed one queues a repair of the history.
 */
export class CommitWorker {
  /** Workspaces whose pull is between applying upstream files and recording the merge. */
  private readonly pulling = new Set<string>();
  /** Files changed on disk while a pull was under way: looked at once it has recorded its merge. */
  private readonly deferredFiles = new Map<string, Set<string>>();
  /** Workspaces with a repair queued after a failed commit. */
  private readonly repairing = new Set<string>();
  /** Workspaces where a commit failed while their repair was already running: one more repair after it. */
  private readonly repairAgain = new Set<string>();
  /**
   * Workspaces whose repair failed too (the disk still full): their saves are acknowledged but not
   * committed. The repair is tried again on a timer with backoff and at once when a commit succeeds.
   */
  private readonly owed = new Map<string, { attempts: number; timer: ReturnType<typeof setTimeout> | null }>();

  constructor(
    private readonly ctx: SyncContext,
    private readonly parts: { lifecycle: RepoLifecycle; skipped: SkippedFiles; status: SyncStatusBoard; schedulePush: (workspaceId: string) => void },
  ) {}

  /**
   * Queues a commit of exactly these file contents (conflict resolutions use it). Resolves once it
   * is made, with its id (null when nothing changed); safe to await while holding the ledger's writer.
   */
  commitFiles(workspaceId: string, files: FileContent[], message: string, author: Author): Promise<string | null> {
    // Its caller waits for it holding the ledger's writer (a conflict resolution), so it is never
    // held for a full disk: refused at once while saves are held, and refused if its own commit fails.
    return this.ctx.history.commitBuilt(workspaceId, async () => ({ files, message }), author).then((oid) => {
      this.ctx.announceCommit(workspaceId, oid);
      return oid;
    });
  }

  authorOf(actor: Actor): Author {
    if (actor.id === null) return SYSTEM_AUTHOR;
    const user = this.ctx.deps.users.byId(actor.id);
    return user ? { name: user.name || actor.name, email: user.email } : { name: actor.name || SYSTEM_AUTHOR.name, email: SYSTEM_AUTHOR.email };
  }

  onCommitted(write: CommittedWrite): void {
    if (this.ctx.stopping) return;
    const ws = this.ctx.deps.workspaces.byId(write.workspace_id);
    if (!ws || ws.git_auto_commit !== 1) return;
    const message = write.message ?? `${VERB[write.kind] ?? "Update"} ${commitPath(write.path)} via ${ORIGIN_LABEL[write.origin] ?? "Quire"}`;
    const author = this.authorOf(write.actor);
    // Made by the git worker from the bytes the write reported: the save does not wait for it,
    // and a later save of the same file cannot leak into this commit. A batch (a write group)
    // keeps its own commit and message: it never shares one with other waiting saves.
    this.queueCommit(ws, write.contents, message, author, write.kind === "batch");
  }

  /**
   * Pages changed on disk outside Quire (an editor, a sync tool, files found at start-up) go
   * through the same git worker as saves: one commit per reconcile pass, from the texts the pass
   * read or wrote (ids it injected included), authored by Quire, pushed like any other commit.
   * A pull's own pass (source `git`) is left out: the pull records its merge itself.
   */
  onReconciled(pass: ReconciledPass): void {
    if (this.ctx.stopping || pass.source === "git" || pass.files.length === 0) return;
    const ws = this.ctx.deps.workspaces.byId(pass.workspace_id);
    if (!ws || ws.git_auto_commit !== 1) return;
    const only = pass.changes.length === 1 && pass.files.length <= 2 ? pass.changes[0]! : null;
    const message = only
      ? `${DISK_VERB[only.action]} ${commitPath(only.path)} via filesystem`
      : pass.files.length === 1
        ? `Update ${commitPath(pass.files[0]!.path)} via filesystem`
        : `Sync ${pass.files.length} files changed on disk`;
    this.queueCommit(ws, pass.files, message, SYSTEM_AUTHOR);
  }

  /**
   * Files that are not pages changed on disk (the file watcher's report, after its debounce):
   * one commit of whatever really differs from HEAD, authored by Quire like a page changed on
   * disk, pushed like any commit. Paths may be folders. See docs/decisions/git-commits.md §7.
   */
  onDiskFiles(workspaceId: string, paths: string[]): void {
    if (this.ctx.stopping || paths.length === 0) return;
    const ws = this.ctx.deps.workspaces.byId(workspaceId);
    if (!ws || ws.git_auto_commit !== 1) return;
    if (this.pulling.has(ws.id)) {
      // The pull's own writes are in the work tree but not yet in HEAD: committing them now would
      // record the remote's files as a local change. Look once the merge is recorded.
      let waiting = this.deferredFiles.get(ws.id);
      if (!waiting) this.deferredFiles.set(ws.id, (waiting = new Set()));
      for (const p of paths) waiting.add(p);
      return;
    }
    this.queueDiskFiles(ws, paths);
  }

  /** Runs a pull: files reported changed on disk meanwhile wait until it has recorded its merge. */
  async duringPull<T>(workspaceId: string, pull: () => Promise<T>): Promise<T> {
    this.pulling.add(workspaceId);
    try {
      return await pull();
    } finally {
      this.pulling.delete(workspaceId);
      const waiting = this.deferredFiles.get(workspaceId);
      this.deferredFiles.delete(workspaceId);
      if (waiting) this.onDiskFiles(workspaceId, [...waiting]);
    }
  }

  /** `paths` null: every changed file the status walk finds (the start-up catch-up). */
  queueDiskFiles(ws: WorkspaceRow, paths: string[] | null): void {
    const job = this.ctx.history.commitBuilt(
      ws.id,
      async (repo) => {
        if (paths === null && !repo.exists()) return null; // ensureRepo's initial commit takes everything
        const reported = paths ?? (await repo.dirtyPaths()).filter(historyFile);
        if (reported.length === 0) return null;
        const scan = await scanDiskFiles(repo, reported);
        this.parts.skipped.note(ws.id, scan.skipped, scan.changes.map((c) => c.path));
        return scan.changes.length === 0 ? null : { files: scan.changes.map((c) => ({ path: c.path, data: c.data })), message: diskFilesMessage(scan.changes) };
      },
      SYSTEM_AUTHOR,
      paths === null ? undefined : (repo) => this.parts.lifecycle.initRepo(ws, repo),
    );
    this.followCommit(ws, job);
  }

  /**
   * Auto-commit switched on: edits made while it was off (saves, conflict resolutions, files
   * changed on disk) are committed now, as one commit by Quire, and pushed. One commit because
   * git has one author per commit and these edits may come from several people over days; who
   * changed what is in the activity log (docs/decisions/git-commits.md §8).
   */
  commitPending(ws: WorkspaceRow): void {
    const job = this.ctx.withTree(ws.id, async () => {
      const repo = this.ctx.repo(ws.id);
      if (!repo.exists()) return null;
      const dirty = this.parts.skipped.withinLimits(ws.id, repo, await repo.dirtyPaths(), new Set());
      if (dirty.length === 0) return null;
      const subject = dirty.length === 1 ? `the pending edit of ${commitPath(dirty[0]!)}` : `${dirty.length} pending edits`;
      return repo.commitPaths(dirty, `Commit ${subject} (auto-commit turned on) via Quire`, SYSTEM_AUTHOR);
    });
    this.followCommit(ws, job);
  }

  // ---- recovery ------------------------------------------------------------------------------

  /**
   * Repairs the history of a workspace whose saves may not all be committed: the last run stopped
   * uncleanly (its pending marker is still there) or a commit failed. Whatever differs from HEAD
   * is committed — in the order of the saves, a commit per run of one person's saves of files
   * they alone saved since HEAD, the rest by Quire saying who cannot be told (recovery.ts) — and the index is rebuilt from HEAD, so
   * `git status` is clean and a pull meets no uncommitted save. With auto-commit off only the
   * index is rebuilt: differences are the user's uncommitted edits there. Run it with `withTree`.
   * Resolves with the number of commits made.
   */
  async recover(ws: WorkspaceRow, why: "start" | "failure", since: number): Promise<number> {
    const { db, users, workspaces, log } = this.ctx.deps;
    const repo = this.ctx.repo(ws.id);
    if (!repo.exists()) return 0;
    // Saves held for a full disk are older than the work tree: committing it first would put their
    // versions after newer ones. The repair waits (retried) until they are in.
    if (this.ctx.history.holding(ws.id)) throw this.ctx.history.heldRefusal(ws.id);
    const fresh = workspaces.byId(ws.id) ?? ws;
    let commits = 0;
    let files = 0;
    if (fresh.git_auto_commit === 1) {
      const rows = await repo.statusRows();
      const differing = rows
        .filter(([path, h, w]) => !(h === w && h !== 2) && !transientName(path.slice(path.lastIndexOf("/") + 1)))
        .map((r) => r[0]);
      const paths = this.parts.skipped.withinLimits(ws.id, repo, differing, new Set());
      if (paths.length > 0) {
        const savers = saversSince(db, ws.id, since);
        const groups = recoveryGroups(paths, savers, (userId) => (users.byId(userId) ? this.authorOf({ id: userId, name: "" }) : null), why);
        for (const g of groups) if ((await repo.commitPaths(g.paths, g.message, g.author)) !== null) commits++;
        files = paths.length;
      }
    }
    await repo.alignIndex();
    this.ctx.history.repaired(ws.id);
    log.warn(why === "start" ? "git history repaired after an unclean stop" : "git history repaired after a failed commit", {
      workspace_id: ws.id,
      files,
      commits,
    });
    if (commits > 0 && fresh.git_remote) {
      this.parts.status.markAhead(ws.id);
      if (why === "failure") this.parts.schedulePush(ws.id);
    }
    return commits;
  }

  /**
   * After a failed commit: one repair, queued behind whatever holds the work tree now. One that
   * fails too (the disk still full) is retried until it goes through (`owe`), so every
   * acknowledged save reaches the history and the remote without a restart.
   */
  private repairSoon(ws: WorkspaceRow): void {
    if (this.ctx.stopping) return;
    if (this.repairing.has(ws.id)) {
      this.repairAgain.add(ws.id);
      return;
    }
    this.repairing.add(ws.id);
    const owed = this.owed.get(ws.id);
    if (owed?.timer) clearTimeout(owed.timer);
    if (owed) owed.timer = null;
    const job = this.ctx
      .withTree(ws.id, () => this.recover(ws, "failure", this.ctx.history.committedThrough(ws.id)))
      .then(
        () => {
          this.owed.delete(ws.id);
        },
        (error) => {
          this.logFailure("git history repair failed", ws, error);
          this.owe(ws);
        },
      )
      .finally(() => {
        this.repairing.delete(ws.id);
        if (this.repairAgain.delete(ws.id)) this.repairSoon(ws);
      });
    this.ctx.track(job);
  }

  /** The first retry of a failed repair waits this long, doubling up to `REPAIR_RETRY_MAX_MS`. */
  static REPAIR_RETRY_MS = 1_000;
  static REPAIR_RETRY_MAX_MS = 30_000;

  private owe(ws: WorkspaceRow): void {
    if (this.ctx.stopping) return;
    const owed = this.owed.get(ws.id) ?? { attempts: 0, timer: null };
    this.owed.set(ws.id, owed);
    const delay = Math.min(CommitWorker.REPAIR_RETRY_MS * 2 ** owed.attempts, CommitWorker.REPAIR_RETRY_MAX_MS);
    owed.attempts++;
    if (owed.timer) clearTimeout(owed.timer);
    owed.timer = setTimeout(() => {
      owed.timer = null;
      this.repairSoon(ws);
    }, delay);
    owed.timer.unref?.();
  }

  /** Stops the retry timers (shutdown); the next start's repair picks up what is still uncommitted. */
  stopRetries(): void {
    for (const owed of this.owed.values()) if (owed.timer) clearTimeout(owed.timer);
    this.owed.clear();
  }

  /** A full or read-only disk is a warning the storage check logs once a minute; anything else an error. */
  private logFailure(msg: string, ws: WorkspaceRow, error: unknown): void {
    if (this.ctx.deps.storage?.refusal(error, "git commit")) return;
    this.ctx.deps.log.error(msg, { workspace_id: ws.id, error: String(error) });
  }

  // ---- handing commits to the worker ---------------------------------------------------------

  /** Hands one commit to the git worker; once made, the workspace is ahead and a push follows. */
  private queueCommit(ws: WorkspaceRow, files: FileContent[], message: string, author: Author, alone = false): void {
    this.followCommit(ws, this.ctx.history.commit(ws.id, files, message, author, (repo) => this.parts.lifecycle.initRepo(ws, repo), alone));
  }

  private followCommit(ws: WorkspaceRow, job: Promise<string | null>): void {
    this.ctx.track(
      job.then(
        (oid) => {
          this.ctx.announceCommit(ws.id, oid);
          this.ctx.deps.storage?.writeSucceeded();
          // The disk has room again: what an earlier failed commit left uncommitted goes in now.
          if (this.owed.has(ws.id)) this.repairSoon(ws);
          if (oid && ws.git_remote) {
            this.parts.status.markAhead(ws.id);
            this.parts.schedulePush(ws.id);
          }
        },
        (error) => {
          this.logFailure("git commit failed", ws, error);
          this.repairSoon(ws);
        },
      ),
    );
  }
}
