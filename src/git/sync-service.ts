import * as fs from "node:fs";
import { existsSync, mkdirSync, readdirSync, renameSync, rmdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { randomBase62 } from "../core/ids.ts";
import type { Config } from "../config.ts";
import type { Db } from "../db/database.ts";
import type { Logger } from "../core/log.ts";
import { nowIso } from "../core/clock.ts";
import { ValidationError } from "../core/errors.ts";
import type { ContentLedger } from "../content/ledger.ts";
import type { CommittedWrite } from "../content/committed-write.ts";
import type { ReconciledPass, Reconciler } from "../content/reconcile.ts";
import { KeyedQueue } from "../core/write-queue.ts";
import { HistoryQueue } from "./history-queue.ts";
import type { Actor, Origin } from "../content/committed-write.ts";
import type { EventBus } from "../core/event-bus.ts";
import type { Users } from "../identity/users.ts";
import type { WorkspaceRecords, WorkspaceRow } from "../workspaces/workspace-records.ts";
import type { StagedFolder } from "../workspaces/workspace-service.ts";
import { cloneInto } from "./clone.ts";
import { commitPath } from "./commit-message.ts";
import { recoveryGroups, saversSince } from "./recovery.ts";
import { transientName } from "../content/file-watcher.ts";
import { diskFilesMessage, historyFile, MAX_DISK_FILE_BYTES, outsideHistory, scanDiskFiles, type SkippedFile } from "./disk-files.ts";
import { ConflictStore } from "./conflict-store.ts";
import { applyUpstream, type PullPlan } from "./pull.ts";
import { assertRemoteAllowed, parseRemote, scrub, type RemoteSpec } from "./remote-url.ts";
import { loadGit, Repo, SYSTEM_AUTHOR, type FileContent } from "./repo.ts";
import type { Author } from "./commit-message.ts";
import { RemoteError, Transport, trackingRef } from "./transport.ts";
import { readGitToken } from "./remote-token.ts";

/**
 * Git sync (DESIGN.md §6). Every workspace is a git work tree:
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
 * this service's own queue, so an unreachable remote never holds up local editing.
 */
export type SyncStatus = "disabled" | "synced" | "syncing" | "ahead" | "behind" | "conflict" | "error";

export interface SyncResult {
  /** `completed`; `conflict` when conflicts are open after the pull; `ignored` for another branch; `failed` when the remote could not be used. */
  status: "completed" | "conflict" | "ignored" | "failed";
  changes: { added: number; updated: number; deleted: number };
  conflicts?: number;
  error?: string;
}

export type TriggerReason = "manual" | "webhook" | "poll" | "push-rejected" | "start";

const GIT_ACTOR: Actor = { id: null, name: "git sync" };
const ORIGIN_LABEL: Partial<Record<Origin, string>> = { "web editor": "web editor", API: "API", MCP: "MCP" };
const VERB: Record<string, string> = { create: "Create", update: "Update", delete: "Delete", move: "Move", upload: "Upload" };
const DISK_VERB: Record<ReconciledPass["changes"][number]["action"], string> = { page_created: "Create", page_updated: "Update", page_deleted: "Delete", page_moved: "Move" };
const MAX_PUSH_ROUNDS = 3;
/** Under `{DATA_DIR}/workspaces/`: clones of workspaces being created (never a ULID, so never a workspace). */
const STAGING_DIR = ".cloning";
/** In a clone's `.git/` until its workspace row is known to be committed. */
const CLONE_MARKER = "quire-create-pending";

export class GitSync {
  readonly conflicts: ConflictStore;
  /** Public so a test server can swap its address classification (`transport.network`). */
  readonly transport: Transport;
  private readonly netQueue = new KeyedQueue();
  private readonly pushTimers = new Map<string, ReturnType<typeof setTimeout>>();
  private readonly pollTimers = new Map<string, ReturnType<typeof setTimeout>>();
  private readonly pending = new Set<Promise<unknown>>();
  private readonly lastErrors = new Map<string, string>();
  private readonly repos = new Map<string, Repo>();
  private readonly history: HistoryQueue;
  /** Workspaces whose pull is between applying upstream files and recording the merge. */
  private readonly pulling = new Set<string>();
  /** Files changed on disk while a pull was under way: looked at once it has recorded its merge. */
  private readonly deferredFiles = new Map<string, Set<string>>();
  /** Files left out of the history (too large, symlinks), per workspace: path → what was logged. */
  private readonly skippedFiles = new Map<string, Map<string, SkippedFile>>();
  /** Workspaces with a repair queued after a failed commit. */
  private readonly repairing = new Set<string>();
  private unsubscribe: Array<() => void> = [];
  private stopping = false;
  /** Quick saves within this window share one push. */
  pushDelayMs = 250;

  constructor(
    private readonly deps: {
      db: Db;
      config: Config;
      dataDir: string;
      log: Logger;
      ledger: ContentLedger;
      reconciler: Reconciler;
      bus: EventBus;
      workspaces: WorkspaceRecords;
      users: Users;
    },
  ) {
    this.conflicts = new ConflictStore(deps.dataDir);
    this.transport = new Transport({ keyPath: deps.config.git.sshKeyPath, knownHosts: deps.config.git.sshKnownHosts }, deps.config.git.allowPrivate);
    this.history = new HistoryQueue({ repo: (id) => this.repo(id), log: deps.log });
  }

  /** Runs `op` holding the work tree (the ledger's writer) and then the history, after queued commits. */
  private withTree<T>(workspaceId: string, op: () => Promise<T> | T): Promise<T> {
    return this.deps.ledger.exclusive(workspaceId, () => this.history.run(workspaceId, op));
  }

  /**
   * Queues a commit of exactly these file contents (conflict resolutions use it). Resolves once it
   * is made, with its id (null when nothing changed); safe to await while holding the ledger's writer.
   */
  commitFiles(workspaceId: string, files: FileContent[], message: string, author: Author): Promise<string | null> {
    return this.history.commit(workspaceId, files, message, author).then((oid) => {
      if (oid) for (const hook of this.committedHooks) hook(workspaceId, oid);
      return oid;
    });
  }

  /** One Repo per workspace, so isomorphic-git's object cache lives across saves. */
  repo(workspaceId: string): Repo {
    let repo = this.repos.get(workspaceId);
    if (!repo) {
      repo = new Repo(this.deps.ledger.dir(workspaceId).root);
      this.repos.set(workspaceId, repo);
    }
    return repo;
  }

  /**
   * Called with each commit the branch gained (a save's, a pull's head): the page history index
   * reads it, and any commit before it it has not read, from git. A hook must not throw.
   */
  readonly committedHooks: Array<(workspaceId: string, commit: string) => void> = [];

  /** Called with each sync round's result (metrics count them); a hook must not throw. */
  readonly syncedHooks: Array<(status: SyncResult["status"]) => void> = [];

  /** Subscribes to the ledger, gives existing workspaces a repository, and starts polling. */
  start(): void {
    this.cleanStaging();
    this.unsubscribe = [
      this.deps.ledger.onCommitted((write) => this.onCommitted(write)),
      // A write group's files reach disk before its one commit is queued: the crash marker covers them.
      this.deps.ledger.onGroupOpened((workspaceId) => (this.stopping ? undefined : this.history.hold(workspaceId))),
      this.deps.reconciler.onReconciled((pass) => this.onReconciled(pass)),
    ];
    const rows = this.deps.db.query<WorkspaceRow, []>("SELECT * FROM workspaces WHERE deleted_at IS NULL ORDER BY id").all();
    for (const ws of rows) {
      // The last run stopped with saves handed to the git worker: they are committed (and, in the
      // start-up sync below, pushed) before the first pull can meet them.
      const unclean = this.history.pendingFromBefore(ws.id);
      const since = unclean ? this.history.committedThrough(ws.id) : 0;
      this.track(
        this.withTree(ws.id, async () => {
          await this.ensureRepo(ws);
          if (unclean) await this.recover(ws, "start", since);
        }),
      );
      // Catch up both ways after a restart: commits made while offline go out, upstream comes in.
      if (ws.git_remote) {
        // Files other than pages changed while the server was down (pages: the start-up
        // reconcile). Only where git is loaded anyway for the start-up sync (§3 of the decision).
        if (ws.git_auto_commit === 1) this.queueDiskFiles(ws, null);
        this.track(this.trigger(ws.id, { reason: "start" }));
      }
      this.schedulePoll(ws);
    }
  }

  /** Stops timers and waits for queued commits, pushes and pulls to finish. */
  async stop(): Promise<void> {
    this.stopping = true;
    for (const off of this.unsubscribe) off();
    for (const t of this.pollTimers.values()) clearTimeout(t);
    this.pollTimers.clear();
    // Pushes that were waiting for their debounce go out now rather than being lost.
    for (const [id, t] of this.pushTimers) {
      clearTimeout(t);
      this.track(this.netQueue.run(id, () => this.pushNow(id)));
    }
    this.pushTimers.clear();
    while (this.pending.size > 0) await Promise.allSettled([...this.pending]);
    await this.netQueue.idle();
    await this.history.close(this.repos);
  }

  /** Resolves when no commit, push (including debounced ones) or pull is queued (tests, benchmarks). */
  async idle(): Promise<void> {
    for (;;) {
      await this.deps.ledger.queue.idle();
      await this.history.idle();
      if (this.pushTimers.size > 0) {
        await Bun.sleep(this.pushDelayMs);
        continue;
      }
      if (this.pending.size === 0) return;
      await Promise.allSettled([...this.pending]);
    }
  }

  lastError(workspaceId: string): string | null {
    return this.lastErrors.get(workspaceId) ?? null;
  }

  // ---- workspace lifecycle -------------------------------------------------------------------

  /**
   * After a workspace row is committed: clone its remote, or `git init` without one. A failed
   * clone removes the row (members cascade), the folder and anything indexed, then throws the
   * ValidationError that says why.
   */
  async onWorkspaceCreated(ws: WorkspaceRow): Promise<void> {
    if (!ws.git_remote) {
      await this.withTree(ws.id, () => this.ensureRepo(ws));
      return;
    }
    // The clone ran before the row existed (prepareClone, inside workspace creation), so a
    // workspace with a remote and no repository is a bug, not a state to repair here.
    if (!this.repo(ws.id).exists()) throw new Error(`workspace ${ws.id} has a git remote but was not cloned first`);
    // Ids injected into files that had none are committed (one commit, from the texts the
    // reconciler wrote: no status walk over the fresh clone), then pushed with the first sync.
    const injected: FileContent[] = [];
    await this.deps.reconciler.reconcile(ws.id, { announce: true, source: "git", onIdsInjected: (files) => injected.push(...files.map((f) => ({ path: f.path, data: f.text }))) });
    const { head, tracking } = await this.history.run(ws.id, async () => {
      const repo = this.repo(ws.id);
      if (injected.length > 0) await repo.commitContents(injected, "Add page ids via Quire", SYSTEM_AUTHOR);
      return { head: await repo.head(), tracking: await repo.resolve(trackingRef(ws.git_branch)) };
    });
    this.history.scheduleIndexSync(ws.id);
    const fresh = this.deps.workspaces.byId(ws.id) ?? ws;
    this.setStatus(fresh, head !== null && head !== tracking ? "ahead" : "synced");
    if (head !== null && head !== tracking) this.schedulePush(ws.id);
    this.schedulePoll(fresh);
  }

  /**
   * Clones a remote into a staging folder next to the workspace folders (same file system, so
   * the move into place is a rename) before the workspace row exists; the workspace service
   * moves it into place inside the row's transaction. A marker in `.git/` says "row not known to
   * be committed" until `done`; `cleanStaging` at start removes what a crash left. A failed clone
   * removes its folder (cloneInto) and throws the ValidationError that says why.
   */
  async prepareClone(remote: { url: string; branch: string; token: string | null }): Promise<StagedFolder> {
    const staging = join(this.deps.dataDir, "workspaces", STAGING_DIR);
    mkdirSync(staging, { recursive: true, mode: 0o700 });
    const tmp = join(staging, randomBase62(16));
    // The staging folder exists only while a clone is in flight (another may still use it).
    const tidy = () => {
      try {
        rmdirSync(staging);
      } catch {
        // not empty, or gone already
      }
    };
    try {
      await cloneInto({ dir: tmp, remote: remote.url, token: remote.token, branch: remote.branch, transport: this.transport, allowPrivate: this.deps.config.git.allowPrivate });
      writeFileSync(join(tmp, ".git", CLONE_MARKER), "");
    } catch (error) {
      rmSync(tmp, { recursive: true, force: true });
      tidy();
      throw error;
    }
    let at = tmp;
    return {
      place: (workspaceId) => {
        const dest = this.deps.ledger.dir(workspaceId).root;
        renameSync(tmp, dest);
        at = dest;
        tidy();
      },
      discard: () => {
        rmSync(at, { recursive: true, force: true });
        tidy();
      },
      done: () => rmSync(join(at, ".git", CLONE_MARKER), { force: true }),
    };
  }

  /**
   * After a crash mid-create: staging folders are removed; a workspace folder still marked is
   * removed when its row was never committed, else only the marker goes.
   */
  private cleanStaging(): void {
    const root = join(this.deps.dataDir, "workspaces");
    rmSync(join(root, STAGING_DIR), { recursive: true, force: true });
    let names: string[];
    try {
      names = readdirSync(root);
    } catch {
      return;
    }
    const exists = this.deps.db.query<{ id: string }, [string]>("SELECT id FROM workspaces WHERE id = ?");
    for (const name of names) {
      if (!existsSync(join(root, name, ".git", CLONE_MARKER))) continue;
      if (exists.get(name)) rmSync(join(root, name, ".git", CLONE_MARKER), { force: true });
      else {
        rmSync(join(root, name), { recursive: true, force: true });
        this.deps.log.warn("removed the folder of a workspace whose creation did not finish", { folder: name });
      }
    }
  }

  /**
   * Lets go of a workspace whose folder is about to be erased (its account was deleted): no poll,
   * push or index update starts for it any more, and the writes, commits, pulls and pushes already
   * under way finish first, so none of them writes into the folder after it is gone.
   */
  async release(workspaceId: string): Promise<void> {
    for (const timers of [this.pollTimers, this.pushTimers]) {
      const t = timers.get(workspaceId);
      if (t) clearTimeout(t);
      timers.delete(workspaceId);
    }
    await this.withTree(workspaceId, () => this.history.forget(workspaceId));
    await this.netQueue.run(workspaceId, () => undefined);
    this.repos.delete(workspaceId);
  }

  onWorkspaceDeleted(ws: WorkspaceRow): void {
    this.repos.delete(ws.id);
    const t = this.pollTimers.get(ws.id);
    if (t) clearTimeout(t);
    this.pollTimers.delete(ws.id);
  }

  /** Settings changed (branch, interval, auto-commit): polling follows the new interval. */
  onSettingsChanged(ws: WorkspaceRow, keys: string[]): void {
    if (keys.includes("sync_interval") || keys.includes("git_branch")) this.schedulePoll(ws);
    if (keys.includes("git_auto_commit") && ws.git_auto_commit === 1 && !this.stopping) this.commitPending(ws);
  }

  /**
   * Local history for a workspace that has none yet (every workspace is a work tree), committing
   * the pages already there. Reads the work tree: run it with `withTree`.
   */
  private async ensureRepo(ws: WorkspaceRow): Promise<Repo> {
    const repo = this.repo(ws.id);
    if (repo.exists()) return repo;
    this.requireFolder(ws.id);
    await repo.init(ws.git_branch);
    if (ws.git_remote) await repo.setRemote(parseRemote(ws.git_remote).url);
    const dirty = this.withinLimits(ws.id, repo, await repo.dirtyPaths(), new Set());
    if (dirty.length > 0) await repo.commitPaths(dirty, "Initial commit of existing pages via Quire", SYSTEM_AUTHOR);
    return repo;
  }

  // ---- recovery ------------------------------------------------------------------------------

  /**
   * Repairs the history of a workspace whose saves may not all be committed: the last run stopped
   * uncleanly (its pending marker is still there) or a commit failed. Whatever differs from HEAD
   * is committed — one commit per person who alone saved those files since HEAD, the rest by
   * Quire saying who cannot be told (recovery.ts) — and the index is rebuilt from HEAD, so
   * `git status` is clean and a pull meets no uncommitted save. With auto-commit off only the
   * index is rebuilt: differences are the user's uncommitted edits there. Run it with `withTree`.
   * Resolves with the number of commits made.
   */
  private async recover(ws: WorkspaceRow, why: "start" | "failure", since: number): Promise<number> {
    const repo = this.repo(ws.id);
    if (!repo.exists()) return 0;
    const fresh = this.deps.workspaces.byId(ws.id) ?? ws;
    let commits = 0;
    let files = 0;
    if (fresh.git_auto_commit === 1) {
      const rows = await repo.statusRows();
      const differing = rows
        .filter(([path, h, w]) => !(h === w && h !== 2) && !transientName(path.slice(path.lastIndexOf("/") + 1)))
        .map((r) => r[0]);
      const paths = this.withinLimits(ws.id, repo, differing, new Set());
      if (paths.length > 0) {
        const savers = saversSince(this.deps.db, ws.id, since);
        const groups = recoveryGroups(paths, savers, (userId) => (this.deps.users.byId(userId) ? this.authorOf({ id: userId, name: "" }) : null));
        for (const g of groups) if ((await repo.commitPaths(g.paths, g.message, g.author)) !== null) commits++;
        files = paths.length;
      }
    }
    await repo.alignIndex();
    this.history.repaired(ws.id);
    this.deps.log.warn(why === "start" ? "git history repaired after an unclean stop" : "git history repaired after a failed commit", {
      workspace_id: ws.id,
      files,
      commits,
    });
    if (commits > 0 && fresh.git_remote) {
      this.markAhead(ws.id);
      if (why === "failure") this.schedulePush(ws.id);
    }
    return commits;
  }

  /** After a failed commit: one repair, queued behind whatever holds the work tree now. */
  private repairSoon(ws: WorkspaceRow): void {
    if (this.stopping || this.repairing.has(ws.id)) return;
    this.repairing.add(ws.id);
    const job = this.withTree(ws.id, () => this.recover(ws, "failure", this.history.committedThrough(ws.id))).finally(() => this.repairing.delete(ws.id));
    this.track(job.catch((error) => this.deps.log.error("git history repair failed", { workspace_id: ws.id, error: String(error) })));
  }

  // ---- outbound ------------------------------------------------------------------------------

  private onCommitted(write: CommittedWrite): void {
    if (this.stopping) return;
    const ws = this.deps.workspaces.byId(write.workspace_id);
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
  private onReconciled(pass: ReconciledPass): void {
    if (this.stopping || pass.source === "git" || pass.files.length === 0) return;
    const ws = this.deps.workspaces.byId(pass.workspace_id);
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
    if (this.stopping || paths.length === 0) return;
    const ws = this.deps.workspaces.byId(workspaceId);
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

  /** Files other than pages left out of the history (too large, symlinks), as last seen. */
  skipped(workspaceId: string): SkippedFile[] {
    return [...(this.skippedFiles.get(workspaceId)?.values() ?? [])];
  }

  /** `paths` null: every changed file the status walk finds (the start-up catch-up). */
  private queueDiskFiles(ws: WorkspaceRow, paths: string[] | null): void {
    const job = this.history.commitBuilt(
      ws.id,
      async (repo) => {
        if (paths === null && !repo.exists()) return null; // ensureRepo's initial commit takes everything
        const reported = paths ?? (await repo.dirtyPaths()).filter(historyFile);
        if (reported.length === 0) return null;
        const scan = await scanDiskFiles(repo, reported);
        this.noteSkipped(ws.id, scan.skipped, scan.changes.map((c) => c.path));
        return scan.changes.length === 0 ? null : { files: scan.changes.map((c) => ({ path: c.path, data: c.data })), message: diskFilesMessage(scan.changes) };
      },
      SYSTEM_AUTHOR,
      paths === null ? undefined : (repo) => this.initRepo(ws, repo),
    );
    this.followCommit(ws, job);
  }

  /**
   * A status walk's paths without the files the history leaves out (too large, symlinks), so a
   * merge never commits by surprise what the disk-file commits skipped. Files the pull itself
   * wrote are the remote's and always go in.
   */
  private withinLimits(workspaceId: string, repo: Repo, dirty: string[], pulled: Set<string>): string[] {
    const skipped: SkippedFile[] = [];
    const kept = dirty.filter((path) => {
      const out = pulled.has(path) ? null : outsideHistory(repo.dir, path);
      if (out) skipped.push(out);
      return out === null;
    });
    if (skipped.length > 0) this.noteSkipped(workspaceId, skipped, []);
    return kept;
  }

  /** Logs a skipped file once (until it changes size); forgets files committed or gone since. */
  private noteSkipped(workspaceId: string, skipped: SkippedFile[], committed: string[]): void {
    let known = this.skippedFiles.get(workspaceId);
    if (!known) this.skippedFiles.set(workspaceId, (known = new Map()));
    for (const path of committed) known.delete(path);
    for (const file of skipped) {
      const before = known.get(file.path);
      known.set(file.path, file);
      if (before && before.size === file.size && before.reason === file.reason) continue;
      const why = file.reason === "too_large" ? `larger than the ${MAX_DISK_FILE_BYTES / (1024 * 1024)} MB limit` : file.reason === "symlink" ? "a symbolic link (never followed)" : "not a regular file";
      this.deps.log.warn(`file on disk not committed: ${why}`, { workspace_id: workspaceId, path: file.path, size: file.size });
    }
  }

  /** Hands one commit to the git worker; once made, the workspace is ahead and a push follows. */
  private queueCommit(ws: WorkspaceRow, files: FileContent[], message: string, author: Author, alone = false): void {
    this.followCommit(ws, this.history.commit(ws.id, files, message, author, (repo) => this.initRepo(ws, repo), alone));
  }

  private followCommit(ws: WorkspaceRow, job: Promise<string | null>): void {
    this.track(
      job.then(
        (oid) => {
          if (oid) for (const hook of this.committedHooks) hook(ws.id, oid);
          if (oid && ws.git_remote) {
            this.markAhead(ws.id);
            this.schedulePush(ws.id);
          }
        },
        (error) => {
          this.deps.log.error("git commit failed", { workspace_id: ws.id, error: String(error) });
          this.repairSoon(ws);
        },
      ),
    );
  }

  /**
   * A repository for a workspace whose first write comes before any git set-up (the starter
   * workspace of a registration): init only; the writes that follow commit themselves.
   */
  private async initRepo(ws: WorkspaceRow, repo: Repo): Promise<void> {
    if (repo.exists()) return;
    this.requireFolder(ws.id);
    await repo.init(ws.git_branch);
    if (ws.git_remote) await repo.setRemote(parseRemote(ws.git_remote).url);
  }

  /**
   * Git never creates a workspace folder: a missing one may be an unmounted volume, and an empty
   * repository in its place would hide that from the reconciler's safety stop.
   */
  private requireFolder(workspaceId: string): void {
    const root = this.deps.ledger.dir(workspaceId).root;
    if (!existsSync(root)) throw new Error(`workspace folder is missing: ${root}`);
  }

  authorOf(actor: Actor): Author {
    if (actor.id === null) return SYSTEM_AUTHOR;
    const user = this.deps.users.byId(actor.id);
    return user ? { name: user.name || actor.name, email: user.email } : { name: actor.name || SYSTEM_AUTHOR.name, email: SYSTEM_AUTHOR.email };
  }

  schedulePush(workspaceId: string): void {
    if (this.stopping || this.pushTimers.has(workspaceId)) return;
    const timer = setTimeout(() => {
      this.pushTimers.delete(workspaceId);
      this.track(this.netQueue.run(workspaceId, () => this.pushNow(workspaceId)));
    }, this.pushDelayMs);
    this.pushTimers.set(workspaceId, timer);
  }

  /** Pushes HEAD when the remote does not have it; a rejection pulls first and retries. */
  private async pushNow(workspaceId: string): Promise<void> {
    const ws = this.deps.workspaces.byId(workspaceId);
    if (!ws?.git_remote) return;
    const repo = this.repo(ws.id);
    // After the commits queued so far: they go out in this push.
    const head = await this.history.run(ws.id, () => repo.head());
    if (head === null || head === (await repo.resolve(trackingRef(ws.git_branch)))) return;
    const spec = parseRemote(ws.git_remote, readGitToken(this.deps.db, ws.id));
    try {
      await assertRemoteAllowed(spec, this.deps.config.git.allowPrivate);
      await this.transport.push(repo.dir, spec, ws.git_branch, head);
      this.lastErrors.delete(ws.id);
      this.setStatus(ws, this.settledStatus(ws.id));
    } catch (error) {
      if (error instanceof RemoteError && error.reason === "rejected") {
        await this.syncLocked(ws, "push-rejected");
        return;
      }
      this.fail(ws, spec, error, "push");
    }
  }

  // ---- inbound -------------------------------------------------------------------------------

  /**
   * Fetches and applies upstream changes (manual sync, webhook, polling). `branch`, when given
   * (a webhook's push), must be the workspace's branch; pushes to other branches are ignored.
   */
  async trigger(workspaceId: string, opts: { reason: TriggerReason; branch?: string }): Promise<SyncResult> {
    const ws = this.deps.workspaces.byId(workspaceId);
    if (!ws) return emptyResult("ignored");
    if (!ws.git_remote) throw new ValidationError("This workspace has no git remote to sync with", "git_remote");
    if (opts.branch !== undefined && opts.branch !== ws.git_branch) return emptyResult("ignored");
    const run = this.netQueue.run(workspaceId, async () => {
      const fresh = this.deps.workspaces.byId(workspaceId);
      const result = fresh?.git_remote ? await this.syncLocked(fresh, opts.reason) : emptyResult("ignored");
      for (const hook of this.syncedHooks) hook(result.status);
      return result;
    });
    this.track(run);
    return run;
  }

  /** One pull-reconcile-merge-push round (or a few, when the remote keeps moving). Runs in the network queue. */
  private async syncLocked(ws: WorkspaceRow, reason: TriggerReason): Promise<SyncResult> {
    const spec = parseRemote(ws.git_remote!, readGitToken(this.deps.db, ws.id));
    const total = { added: 0, updated: 0, deleted: 0 };
    this.setStatus(ws, "syncing");
    try {
      await assertRemoteAllowed(spec, this.deps.config.git.allowPrivate);
      // At start, commits made since the last push (a repaired history among them) go out before
      // the first pull; a remote that moved on meanwhile refuses, and the round below merges first.
      if (reason === "start") await this.pushIfAhead(ws, spec);
      for (let round = 0; round < MAX_PUSH_ROUNDS; round++) {
        const repo = await this.withTree(ws.id, () => this.ensureRepo(ws));
        const remoteOid = await this.transport.fetch(repo.dir, spec, ws.git_branch);
        if (remoteOid !== null) {
          const counts = await this.pull(ws, repo, remoteOid, reason);
          total.added += counts.added;
          total.updated += counts.updated;
          total.deleted += counts.deleted;
        }
        const head = await this.history.run(ws.id, () => repo.head());
        if (head === null || head === remoteOid) break;
        try {
          await this.transport.push(repo.dir, spec, ws.git_branch, head);
          break;
        } catch (error) {
          if (!(error instanceof RemoteError && error.reason === "rejected") || round === MAX_PUSH_ROUNDS - 1) throw error;
        }
      }
    } catch (error) {
      this.fail(ws, spec, error, "sync");
      return { status: "failed", changes: total, error: this.lastErrors.get(ws.id) ?? "sync failed" };
    }
    this.lastErrors.delete(ws.id);
    const open = this.conflicts.list(ws.id).length;
    this.setStatus(ws, open > 0 ? "conflict" : "synced");
    return { status: open > 0 ? "conflict" : "completed", changes: total, conflicts: open };
  }

  private async pushIfAhead(ws: WorkspaceRow, spec: RemoteSpec): Promise<void> {
    const repo = this.repo(ws.id);
    if (!repo.exists()) return;
    const head = await this.history.run(ws.id, () => repo.head());
    if (head === null || head === (await repo.resolve(trackingRef(ws.git_branch)))) return;
    try {
      await this.transport.push(repo.dir, spec, ws.git_branch, head);
    } catch (error) {
      if (!(error instanceof RemoteError && error.reason === "rejected")) throw error;
    }
  }

  /** Applies `remoteOid` to the work tree, reconciles, records the merge, and announces it. */
  private async pull(ws: WorkspaceRow, repo: Repo, remoteOid: string, reason: TriggerReason) {
    this.pulling.add(ws.id);
    try {
      return await this.pullLocked(ws, repo, remoteOid, reason);
    } finally {
      this.pulling.delete(ws.id);
      const waiting = this.deferredFiles.get(ws.id);
      this.deferredFiles.delete(ws.id);
      if (waiting) this.onDiskFiles(ws.id, [...waiting]);
    }
  }

  private async pullLocked(ws: WorkspaceRow, repo: Repo, remoteOid: string, reason: TriggerReason) {
    const { ledger, reconciler } = this.deps;
    // The work tree and the history both held: every commit queued before the pull is made first.
    // Read now: auto-commit may have been switched since the sync started.
    const autoCommit = (this.deps.workspaces.byId(ws.id) ?? ws).git_auto_commit === 1;
    const plan = await this.withTree(ws.id, () =>
      applyUpstream({ repo, workspaceId: ws.id, remoteOid, records: ledger.records, conflicts: this.conflicts, noteWrite: (abs, text) => ledger.ownWrites.note(abs, text), keepUncommitted: !autoCommit }),
    );
    const touched = plan.applied.length + plan.merged.length;
    // A reconciler that announces the pages it changed itself (page events or one bulk-sync) is
    // left to do so; otherwise the pull announces them. Either way each change is told once.
    let announcedByReconcile = 0;
    const off = this.deps.bus.onEvent((e) => {
      if (e.workspace_id === ws.id && (e.type.startsWith("page-") || e.type === "bulk-sync")) announcedByReconcile++;
    });
    try {
      const opts = { announce: false, source: "git" as const };
      if (touched > 0) await reconciler.reconcile(ws.id, opts);
    } finally {
      off();
    }
    const pulled = new Set([...plan.applied.map((c) => c.path), ...plan.merged, ...plan.same]);
    const merged = await this.withTree(ws.id, async () => (await this.recordMerge(ws, repo, remoteOid, touched > 0, plan.conflicts.map((c) => c.path), pulled, autoCommit), await repo.head()));
    if (merged) for (const hook of this.committedHooks) hook(ws.id, merged);
    this.history.scheduleIndexSync(ws.id);
    return this.announce(ws, plan, remoteOid, reason, announcedByReconcile === 0);
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
   * them, stay uncommitted in the work tree (git-commits.md §8).
   */
  private async recordMerge(ws: WorkspaceRow, repo: Repo, remoteOid: string, reconciled: boolean, conflicted: string[], pulled: Set<string>, autoCommit: boolean): Promise<void> {
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
      const dirty = reconciled ? this.withinLimits(ws.id, repo, await repo.dirtyPaths(), pulled) : [];
      if (dirty.length > 0) await repo.commitPaths(dirty, "Add page ids via Quire", SYSTEM_AUTHOR);
      return;
    }
    // HEAD's tree plus what the pull changed; with auto-commit on, plus every local change too.
    const paths = autoCommit ? this.withinLimits(ws.id, repo, await repo.dirtyPaths(), pulled) : [...pulled];
    await repo.commitPaths(paths, `Merge origin/${ws.git_branch} via Quire`, SYSTEM_AUTHOR, [head, remoteOid]);
  }

  /**
   * Auto-commit switched on: edits made while it was off (saves, conflict resolutions, files
   * changed on disk) are committed now, as one commit by Quire, and pushed. One commit because
   * git has one author per commit and these edits may come from several people over days; who
   * changed what is in the activity log (git-commits.md §8).
   */
  private commitPending(ws: WorkspaceRow): void {
    const job = this.withTree(ws.id, async () => {
      const repo = this.repo(ws.id);
      if (!repo.exists()) return null;
      const dirty = this.withinLimits(ws.id, repo, await repo.dirtyPaths(), new Set());
      if (dirty.length === 0) return null;
      const subject = dirty.length === 1 ? `the pending edit of ${commitPath(dirty[0]!)}` : `${dirty.length} pending edits`;
      return repo.commitPaths(dirty, `Commit ${subject} (auto-commit turned on) via Quire`, SYSTEM_AUTHOR);
    });
    this.followCommit(ws, job);
  }

  /** Events and the activity entry for a pull: one bulk-sync when several pages changed. */
  private announce(ws: WorkspaceRow, plan: PullPlan, remoteOid: string, reason: TriggerReason, publishPages: boolean) {
    const { bus, ledger, db } = this.deps;
    const counts = { added: 0, updated: 0, deleted: 0 };
    const pages = plan.applied.filter((c) => c.path.endsWith(".md"));
    const events: Array<{ type: "page-created" | "page-updated" | "page-deleted" | "page-moved"; fields: Record<string, unknown> }> = [];
    // A deleted path whose page id reappears at an added path is a move: the id is kept.
    const added = pages.filter((c) => c.kind === "added");
    const movedFrom = new Map<string, string>();
    for (const d of pages.filter((c) => c.kind === "deleted" && c.previousId)) {
      const target = added.find((a) => ledger.records.live(ws.id, a.path)?.id === d.previousId);
      if (target) movedFrom.set(target.path, d.path);
    }
    const movedAway = new Set(movedFrom.values());
    for (const c of pages) {
      if (movedAway.has(c.path)) continue;
      const from = movedFrom.get(c.path);
      if (from) {
        counts.updated++;
        events.push({ type: "page-moved", fields: { old_path: from, new_path: c.path } });
      } else {
        counts[c.kind]++;
        events.push({ type: c.kind === "added" ? "page-created" : c.kind === "deleted" ? "page-deleted" : "page-updated", fields: { path: c.path } });
      }
    }
    for (const conflict of plan.conflicts) {
      this.deps.log.warn("git sync conflict: the local version is kept until it is resolved", { workspace_id: ws.id, path: conflict.path, page_id: conflict.page_id });
      bus.publish({ type: "conflict-detected", workspace_id: ws.id, payload: { workspace_id: ws.id, path: conflict.path } });
    }
    if (publishPages && events.length > 1) {
      const paths = [...new Set(pages.map((c) => c.path))];
      bus.publish({ type: "bulk-sync", workspace_id: ws.id, payload: { workspace_id: ws.id, changed_count: paths.length, paths } });
    } else if (publishPages && events.length === 1) {
      const e = events[0]!;
      bus.publish({ type: e.type, workspace_id: ws.id, payload: { workspace_id: ws.id, ...e.fields, actor: GIT_ACTOR } });
    }
    if (events.length > 0 || plan.conflicts.length > 0 || plan.merged.length > 0) {
      db.transaction(() => {
        ledger.activity.record({
          workspaceId: ws.id,
          action: "sync_completed",
          actorId: null,
          actorName: GIT_ACTOR.name,
          details: { ...counts, conflicts: plan.conflicts.length, merged: plan.merged, remote_commit: remoteOid, reason },
          now: nowIso(),
        });
      })();
    }
    return counts;
  }

  // ---- status --------------------------------------------------------------------------------

  private settledStatus(workspaceId: string): SyncStatus {
    return this.conflicts.list(workspaceId).length > 0 ? "conflict" : "synced";
  }

  /** Re-evaluates the status after conflicts were resolved. */
  refreshStatus(workspaceId: string): void {
    const ws = this.deps.workspaces.byId(workspaceId);
    if (!ws?.git_remote) return;
    if (ws.sync_status === "conflict" || ws.sync_status === "synced") this.setStatus(ws, this.settledStatus(ws.id));
  }

  private markAhead(workspaceId: string): void {
    const ws = this.deps.workspaces.byId(workspaceId);
    if (ws && (ws.sync_status === "synced" || ws.sync_status === "disabled")) this.setStatus(ws, "ahead");
  }

  setStatus(ws: WorkspaceRow, status: SyncStatus): void {
    const current = this.deps.workspaces.byId(ws.id);
    if (!current || current.sync_status === status) return;
    this.deps.workspaces.update(ws.id, { sync_status: status }, nowIso());
    this.deps.bus.publish({ type: "sync-status", workspace_id: ws.id, payload: { workspace_id: ws.id, status } });
  }

  private fail(ws: WorkspaceRow, spec: RemoteSpec, error: unknown, what: string): void {
    const message = scrub(error instanceof Error ? error.message : String(error), spec);
    this.lastErrors.set(ws.id, message);
    this.deps.log.warn(`git ${what} failed`, { workspace_id: ws.id, error: message });
    this.setStatus(ws, "error");
  }

  // ---- polling -------------------------------------------------------------------------------

  private schedulePoll(ws: WorkspaceRow): void {
    const existing = this.pollTimers.get(ws.id);
    if (existing) clearTimeout(existing);
    this.pollTimers.delete(ws.id);
    if (this.stopping || !ws.git_remote) return;
    const seconds = Math.max(10, ws.sync_interval);
    const timer = setTimeout(() => {
      this.pollTimers.delete(ws.id);
      const fresh = this.deps.workspaces.byId(ws.id);
      if (!fresh?.git_remote || this.stopping) return;
      this.trigger(fresh.id, { reason: "poll" })
        .catch((error) => this.deps.log.warn("git poll failed", { workspace_id: ws.id, error: String(error) }))
        .finally(() => {
          const again = this.deps.workspaces.byId(ws.id);
          if (again) this.schedulePoll(again);
        });
    }, seconds * 1000);
    timer.unref?.();
    this.pollTimers.set(ws.id, timer);
  }

  private track<T>(p: Promise<T>): void {
    const tracked = p.catch(() => {});
    this.pending.add(tracked);
    void tracked.finally(() => this.pending.delete(tracked));
  }
}

/** Points the index entries of `paths` back at HEAD's version (the work tree is left alone). */
async function resetIndexToHead(repo: Repo, paths: string[]): Promise<void> {
  if (paths.length === 0) return;
  const git = await loadGit();
  for (const filepath of paths) await git.resetIndex({ fs, dir: repo.dir, filepath });
}

const emptyResult = (status: SyncResult["status"]): SyncResult => ({ status, changes: { added: 0, updated: 0, deleted: 0 } });
