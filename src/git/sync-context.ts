import type { Config } from "../config.ts";
import type { Db } from "../db/database.ts";
import type { Logger } from "../core/log.ts";
import type { StorageHealth } from "../core/storage-errors.ts";
import type { EventBus } from "../core/event-bus.ts";
import type { ContentLedger } from "../content/ledger.ts";
import type { Reconciler } from "../content/reconcile.ts";
import type { Users } from "../identity/users.ts";
import type { WorkspaceRecords } from "../workspaces/workspace-records.ts";
import { HistoryQueue } from "./history-queue.ts";
import { Repo } from "./repo.ts";

/** What git sync is built from (GitSync's constructor options). */
export interface SyncDeps {
  db: Db;
  config: Config;
  dataDir: string;
  log: Logger;
  ledger: ContentLedger;
  reconciler: Reconciler;
  bus: EventBus;
  workspaces: WorkspaceRecords;
  users: Users;
  /** The data directory's storage: a commit refused by a full disk is a warning, not an error. */
  storage?: StorageHealth;
}

/**
 * What the parts of git sync share: the repositories, the history queue (the git worker), the
 * background jobs still running, and whether the service is stopping. One instance per GitSync;
 * the parts hold it rather than each other so none of them has to know the others exist.
 */
export class SyncContext {
  readonly history: HistoryQueue;
  /** Set once `stop` begins: no new commit, push, poll or repair starts after it. */
  stopping = false;
  /**
   * Called with each commit the branch gained (a save's, a pull's head): the page history index
   * reads it, and any commit before it it has not read, from git. A hook must not throw.
   */
  readonly committedHooks: Array<(workspaceId: string, commit: string) => void> = [];
  private readonly repos = new Map<string, Repo>();
  private readonly pending = new Set<Promise<unknown>>();

  constructor(readonly deps: SyncDeps) {
    this.history = new HistoryQueue({
      repo: (id) => this.repo(id),
      log: deps.log,
      onHeld: (error) => void deps.storage?.refusal(error, "git commit"),
    });
  }

  /** Tells the committed hooks of a commit the branch gained. */
  announceCommit(workspaceId: string, commit: string | null): void {
    if (commit) for (const hook of this.committedHooks) hook(workspaceId, commit);
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

  forgetRepo(workspaceId: string): void {
    this.repos.delete(workspaceId);
  }

  /** Runs `op` holding the work tree (the ledger's writer) and then the history, after queued commits. */
  withTree<T>(workspaceId: string, op: () => Promise<T> | T): Promise<T> {
    return this.deps.ledger.exclusive(workspaceId, () => this.history.run(workspaceId, op));
  }

  /** Keeps a background job until it settles, so `stop` and `idle` can wait for it; its failure is the job's own business. */
  track<T>(p: Promise<T>): void {
    const tracked = p.catch(() => {});
    this.pending.add(tracked);
    void tracked.finally(() => this.pending.delete(tracked));
  }

  get busy(): boolean {
    return this.pending.size > 0;
  }

  /** Waits for the jobs tracked now (jobs they start are tracked too: loop on `busy` to see those). */
  async settle(): Promise<void> {
    await Promise.allSettled([...this.pending]);
  }

  /** Finishes the git worker and lets every repository go. */
  closeHistory(): Promise<void> {
    return this.history.close(this.repos);
  }
}
