import type { Logger } from "../core/log.ts";
import { KeyedQueue } from "../content/write-queue.ts";
import type { Author, FileContent, Repo } from "./repo.ts";

/**
 * The git worker: one queue per workspace for everything that changes `.git/` (commits, merges,
 * ref moves), separate from the ledger's writer queue. A save hands over the bytes it wrote and
 * returns; its commit is made here afterwards, from those bytes, so it needs neither the work
 * tree nor the ledger's writer (docs/decisions/git-commits.md). Commits keep the order of the
 * writes, one per write. Work that also reads or writes the work tree (a pull, a merge) takes
 * the ledger's writer first and then this queue, which drains the commits queued before it;
 * nothing here ever waits for the ledger, so the two cannot deadlock.
 *
 * The index is brought up to date off the save path, a moment after the last commit
 * (`INDEX_SYNC_DELAY_MS`), in chunks so a large commit never holds the queue for long.
 */
export const INDEX_SYNC_DELAY_MS = 1000;
const INDEX_SYNC_CHUNK = 200;

export class HistoryQueue {
  private readonly queue = new KeyedQueue();
  private readonly indexTimers = new Map<string, ReturnType<typeof setTimeout>>();
  private closed = false;

  constructor(private readonly deps: { repo: (workspaceId: string) => Repo; log: Logger }) {}

  /** Runs `op` as the workspace's history writer, after every commit queued before it. */
  run<T>(workspaceId: string, op: () => Promise<T> | T): Promise<T> {
    return this.queue.run(workspaceId, op);
  }

  /**
   * Queues one commit of exactly `files`. `prepare` runs first inside the queue (a repository
   * that does not exist yet is initialised there). Resolves with the commit id, or null when the
   * files match HEAD already.
   */
  commit(workspaceId: string, files: FileContent[], message: string, author: Author, prepare?: (repo: Repo) => Promise<void>): Promise<string | null> {
    const job = this.queue.run(workspaceId, async () => {
      // A macrotask first: the request that made the write answers before its commit starts.
      await new Promise((resolve) => setImmediate(resolve));
      const repo = this.deps.repo(workspaceId);
      await prepare?.(repo);
      return repo.commitContents(files, message, author);
    });
    const after = () => this.scheduleIndexSync(workspaceId);
    job.then(after, after); // the caller handles the outcome; this only follows it
    return job;
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
    const after = () => this.scheduleIndexSync(workspaceId);
    job.then(after, after);
    return job;
  }

  /** Stages the paths commits left behind in the index, once the workspace has been quiet a moment. */
  scheduleIndexSync(workspaceId: string, delayMs = INDEX_SYNC_DELAY_MS): void {
    if (this.closed) return;
    const existing = this.indexTimers.get(workspaceId);
    if (existing) clearTimeout(existing);
    const timer = setTimeout(() => {
      this.indexTimers.delete(workspaceId);
      void this.queue
        .run(workspaceId, () => this.deps.repo(workspaceId).syncIndex(INDEX_SYNC_CHUNK))
        .then(() => {
          if (this.deps.repo(workspaceId).indexLag > 0) this.scheduleIndexSync(workspaceId, 0);
        })
        .catch((error) => this.deps.log.warn("git index update failed", { workspace_id: workspaceId, error: String(error) }));
    }, delayMs);
    timer.unref?.();
    this.indexTimers.set(workspaceId, timer);
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
  }
}
