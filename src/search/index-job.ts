import type { Db } from "../db/database.ts";
import type { PageSnapshot } from "../core/event-bus.ts";
import type { WorkspaceIndex } from "./workspace-index.ts";
import type { PageSource } from "./page-source.ts";

/** How many pages' files are read from disk at a time while filling an index from the ledger. */
const READ_CHUNK = 32;

/**
 * Brings one workspace's index to what the ledger holds (or to the pages of a `reset`), a batch at
 * a time: each batch is its own short transaction, ended when its time budget is spent, and the
 * caller yields to the event loop between batches. Building 10,000 pages in one transaction held
 * the server for seconds; in batches, requests (and the ledger's own changes) are served between
 * them.
 *
 * Changes the ledger publishes while the job runs are applied to the index at once by the
 * service, which records their pages in `touched`. The job skips touched pages whenever it
 * reaches them, so a page saved or deleted mid-build is never overwritten by the older text the
 * job read (or was handed) before. Pages are checked at the moment they are written, not when the
 * job was planned.
 *
 * Every committed batch leaves a consistent index: a job cut short (shutdown, crash) is finished
 * by the next start, which compares each page's content hash in the ledger with the one recorded
 * when it was indexed and indexes only what differs.
 */
export class IndexJob {
  /** Pages changed by the ledger since the job began: theirs is the newer text, the job leaves them be. */
  readonly touched = new Set<string>();
  /** Pages the finished index will hold, and how many of them are written (or found current) so far. */
  total = 0;
  done = 0;
  private readonly work: Generator<void, void, void>;
  private finished = false;

  private constructor(
    private readonly db: Db,
    readonly index: WorkspaceIndex,
    /** Creates the tables in the first batch's transaction (a workspace the file does not hold). */
    private create: boolean,
    plan: (job: IndexJob) => Generator<void, void, void>,
  ) {
    this.work = plan(this);
  }

  /** Indexes what the ledger holds and the index does not (all of it for a new index), and removes pages the ledger no longer has. */
  static fromLedger(db: Db, index: WorkspaceIndex, source: PageSource, create: boolean): IndexJob {
    return new IndexJob(db, index, create, function* (job) {
      const live = source.stamps(index.workspaceId) ?? new Map<string, string>();
      const indexed = create ? new Map<string, string>() : index.stamps();
      job.total = live.size;
      for (const id of indexed.keys()) {
        if (live.has(id) || job.touched.has(id)) continue;
        index.remove(id);
        yield;
      }
      const todo: string[] = [];
      for (const [id, stamp] of live) {
        if (indexed.get(id) === stamp) job.done++;
        else todo.push(id);
      }
      for (let i = 0; i < todo.length; i += READ_CHUNK) {
        const ids = todo.slice(i, i + READ_CHUNK).filter((id) => !job.touched.has(id));
        for (const page of source.snapshotsById(index.workspaceId, ids)) {
          // Checked again here: the chunk was read before the previous yield.
          if (!job.touched.has(page.page_id)) index.upsert(page, page.stamp);
          job.done++;
          yield;
        }
      }
    });
  }

  /** Makes the index hold exactly `pages` (a reset: the reconciler read the whole workspace), skipping pages already indexed as they are. */
  static fromPages(db: Db, index: WorkspaceIndex, source: PageSource, create: boolean, pages: PageSnapshot[]): IndexJob {
    return new IndexJob(db, index, create, function* (job) {
      job.total = pages.length;
      for (const page of pages) {
        if (!job.touched.has(page.page_id)) index.upsert(page, source.stampOf(page.page_id));
        job.done++;
        yield;
      }
      const wanted = new Set(pages.map((p) => p.page_id));
      for (const id of create ? [] : index.stamps().keys()) {
        if (wanted.has(id) || job.touched.has(id)) continue;
        index.remove(id);
        yield;
      }
    });
  }

  get complete(): boolean {
    return this.finished;
  }

  /**
   * Runs one batch in one transaction: pages until `budgetMs` has passed (at least one). Returns
   * true when the job is complete. A throw rolls the batch back; the index stays as the last
   * committed batch left it.
   */
  step(budgetMs: number): boolean {
    if (this.finished) return true;
    const deadline = performance.now() + budgetMs;
    this.db.transaction(() => {
      if (this.create) {
        this.index.drop();
        this.index.create();
      }
      for (;;) {
        if (this.work.next().done) {
          this.finished = true;
          break;
        }
        if (performance.now() >= deadline) break;
      }
    })();
    this.create = false;
    return this.finished;
  }

  /** Abandons the work left (the committed batches stay). */
  cancel(): void {
    this.finished = true;
    this.work.return();
  }
}
