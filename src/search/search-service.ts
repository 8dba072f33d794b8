import { storageFailureOf } from "../core/storage-errors.ts";
import type { Restrictions } from "../access/restrictions/restrictions-service.ts";
import { OPEN, type PageVisibility } from "../access/restrictions/visibility.ts";
import type { z } from "zod";
import type { Db } from "../db/database.ts";
import type { Logger } from "../core/log.ts";
import type { Principal } from "../core/principal.ts";
import type { Permissions } from "../access/permissions.ts";
import type { WorkspaceRecords } from "../workspaces/workspace-records.ts";
import type { EventBus, LedgerChange } from "../core/event-bus.ts";
import { isUlid } from "../core/ids.ts";
import { parseInput } from "../core/validate.ts";
import { WorkspaceIndex, type RankedRow } from "./workspace-index.ts";
import { IndexStore } from "./index-store.ts";
import { IndexJob } from "./index-job.ts";
import { PageSource } from "./page-source.ts";
import { planQuery } from "./query-plan.ts";
import { renderSnippet } from "./snippet.ts";
import { type searchHitOutput, searchQuery } from "./schemas.ts";

/** One result: the type is the documented output schema's, so the two cannot differ. */
type SearchHit = z.infer<typeof searchHitOutput>;

interface Loaded {
  index: WorkspaceIndex;
  /** Pages in the index, kept up to date by every change. */
  size: number;
  origin: "file" | "ledger";
  /** Background merging of the index's segments, scheduled after writes. */
  mergeTimer: ReturnType<typeof setTimeout> | null;
  /** A build, catch-up or reset in progress, a batch at a time; null once the index is complete. */
  job: IndexJob | null;
  jobTimer: ReturnType<typeof setImmediate> | null;
}

/** Progress of a workspace's index while it is being built: pages written (or found current) of those it will hold. */
interface IndexingProgress {
  indexed: number;
  total: number;
}

const WARM_UP_DELAY_MS = 1000;
/**
 * Ranking is the expensive part of a query (BM25 costs about a microsecond per matching page),
 * so when more than half the pages match (and more than RANK_ALL_MIN), not all of them are
 * ranked; see candidates(). RECENT_RANKED is how many of the newest matches are ranked then.
 */
const RANK_ALL_MIN = 2000;
const RECENT_RANKED = 1000;
/**
 * Quiet time after the last write before segments are merged, and the work done per step: at most
 * MERGE_STEP_PAGES pages of merged output: a merge starts at one page a step, doubles while a step
 * takes under a quarter of MERGE_STEP_MS and halves while it takes longer.
 * Merging a large index's segments ran up to 27 ms a step at 32 pages (after a 5,000-page import),
 * and every request arriving meanwhile waited for it: a published page's p99 went from 0.2 to 9 ms.
 */
const MERGE_DELAY_MS = 500;
const MERGE_STEP_PAGES = 32;
const MERGE_STEP_MS = 1;
/**
 * Time budget of one batch of a build (its own transaction); the event loop runs between batches.
 * The commit adds a few milliseconds on top, so the longest stall a build causes stays near 15 ms.
 */
const BATCH_MS = 10;
export interface SearchOptions {
  /** Override RANK_ALL_MIN and RECENT_RANKED (tests of the capped ranking on a small workspace). */
  rankAllMin?: number;
  recentRanked?: number;
  /** Override BATCH_MS. */
  batchMs?: number;
}

/**
 * Full-text search: one SQLite FTS5 index per workspace in `{DATA_DIR}/search/index.db`, fed by
 * the ledger's changes on the event bus. Every change is written at once (visible to the next
 * query, and on disk, so a restart loads nothing). A workspace the file does not hold yet is built
 * from the ledger the first time it is needed (and eagerly in the background at start); pages
 * changed while the server was down are re-read then too. Builds, catch-ups and resets run in
 * short batches with the event loop free in between (see IndexJob); while one runs, searches
 * answer from the pages indexed so far and say so (`indexing`).
 */
export class SearchService {
  private readonly loaded = new Map<string, Loaded>();
  private readonly store: IndexStore;
  private readonly source: PageSource;
  private readonly rankAllMin: number;
  private readonly recentRanked: number;
  private readonly batchMs: number;
  private unsubscribe: (() => void) | null = null;
  private warmTimer: ReturnType<typeof setTimeout> | null = null;
  private windingDown = false;
  /**
   * Called after each search a person makes through the app (analytics counts the query and
   * whether it found anything; metrics count searches); a hook must not throw.
   */
  readonly searchedHooks: Array<(search: { workspaceId: string; query: string; results: number; restricted: boolean }) => void> = [];

  constructor(
    private readonly deps: {
      db: Db;
      dataDir: string;
      bus: EventBus;
      permissions: Permissions;
      restrictions: Restrictions;
      workspaces: WorkspaceRecords;
      log: Logger;
    },
    opts: SearchOptions = {},
  ) {
    this.store = new IndexStore(deps.dataDir, deps.log);
    this.source = new PageSource(deps.db, deps.dataDir);
    this.rankAllMin = opts.rankAllMin ?? RANK_ALL_MIN;
    this.recentRanked = opts.recentRanked ?? RECENT_RANKED;
    this.batchMs = opts.batchMs ?? BATCH_MS;
  }

  /** Listens to the ledger and checks the indexes of live workspaces one at a time, off the request path. */
  start(): void {
    this.unsubscribe ??= this.deps.bus.onChange((change) => this.apply(change));
    const ids = this.deps.db
      .query<{ id: string }, []>("SELECT id FROM workspaces WHERE deleted_at IS NULL ORDER BY id")
      .all()
      .map((r) => r.id);
    const next = () => {
      this.warmTimer = null;
      const id = ids.shift();
      if (id === undefined || !this.unsubscribe) return;
      try {
        this.guarded(() => this.entry(id));
      } catch (error) {
        this.deps.log.warn("search index warm-up failed", { workspace_id: id, error: String(error) });
      }
      // One workspace's build at a time: the next starts once this one is complete.
      void this.whenIndexed(id).then(() => {
        if (this.unsubscribe) this.warmTimer = setTimeout(next, 0);
      });
    };
    // Started a moment after boot so the first requests are not queued behind index builds.
    this.warmTimer = setTimeout(next, WARM_UP_DELAY_MS);
  }

  /**
   * Shutdown has begun: builds stop after the batch they are in, so draining the requests in
   * flight (up to its deadline) is not spent indexing. What the batches committed stays in the
   * file and the next start resumes from there; searches and page changes are served until stop().
   */
  windDown(): void {
    this.windingDown = true;
    if (this.warmTimer) clearTimeout(this.warmTimer);
    this.warmTimer = null;
  }

  /** Hands the index file's page cache back when the server goes idle (ops/idle-release.ts). */
  releaseMemory(): void {
    this.store.releaseMemory();
  }

  /** Stops listening and closes the index file (its WAL is checkpointed on close). */
  stop(): void {
    this.unsubscribe?.();
    this.unsubscribe = null;
    if (this.warmTimer) clearTimeout(this.warmTimer);
    this.warmTimer = null;
    this.forgetAll();
    this.store.close();
  }

  /**
   * Applies one of the ledger's changes. A page change is written at once (and marked touched for
   * a build in progress, so the build never writes its older copy over it). A reset makes the
   * index hold exactly the pages it lists: it replaces any build in progress (it is newer than
   * everything that build read) and runs in batches itself; a workspace the file does not hold
   * needs no pages from disk then.
   */
  apply(change: LedgerChange): void {
    this.guarded(() => {
      const workspaceId = change.workspace_id;
      if (change.kind === "reset") {
        const known = this.loaded.get(workspaceId);
        const create = !known && !this.store.has(workspaceId);
        const entry = known ?? this.track(workspaceId, create ? "ledger" : "file");
        this.startJob(entry, IndexJob.fromPages(this.store.db, entry.index, this.source, create, change.pages));
        return;
      }
      const entry = this.entry(workspaceId);
      const { index } = entry;
      const pageId = change.kind === "upsert" ? change.page.page_id : change.page_id;
      entry.job?.touched.add(pageId);
      try {
        this.store.db.transaction(() => {
          if (change.kind === "upsert") index.upsert(change.page, this.source.stampOf(pageId));
          else index.remove(pageId);
          entry.size = index.size;
        })();
      } catch (error) {
        // The index file could not take the change (a full disk: the save itself went through).
        // Forgotten, the workspace's index is caught up from the ledger at its next use, which
        // re-reads every page whose stamp differs: the entry is not lost, only late.
        if (storageFailureOf(error) === null) throw error;
        this.forget(workspaceId);
        this.deps.log.warn("search index update deferred: the disk is full or read-only", { workspace_id: workspaceId, error: String(error) });
        return;
      }
      this.scheduleMerge(entry);
    });
  }

  /**
   * Searches one workspace the principal can read (404 otherwise). While the workspace's index is
   * being built the results come from the pages indexed so far, and `indexing` says how far the
   * build is (it is absent once the index is complete).
   */
  search(principal: Principal, workspaceRef: string, input: unknown): { items: SearchHit[]; indexing?: IndexingProgress } {
    const query = parseInput(searchQuery, input);
    const ref = isUlid(workspaceRef) ? { id: workspaceRef } : { slug: workspaceRef };
    const { workspace, role } = this.deps.permissions.require(principal, ref, "viewer");
    const items = this.searchWorkspace(workspace.id, query.q, query.limit, this.deps.restrictions.visibilityOf(principal, workspace, role));
    // A query that found a page not everyone may see is flagged, so its words reach no report (docs/decisions/restricted-folders.md).
    const everyone = this.deps.restrictions.everyoneVisibility(workspace);
    const restricted = everyone.restricted && items.some((h) => !everyone.sees(h.path));
    for (const hook of this.searchedHooks) hook({ workspaceId: workspace.id, query: query.q, results: items.length, restricted });
    const indexing = this.indexing(workspace.id);
    return indexing ? { items, indexing } : { items };
  }

  /** How far a build (or catch-up, or reset) of the workspace's index is; null when none is running. */
  indexing(workspaceId: string): IndexingProgress | null {
    const job = this.loaded.get(workspaceId)?.job;
    return job ? { indexed: Math.min(job.done, job.total), total: job.total } : null;
  }

  /** Resolves once no build of the workspace's index is running (at once when none is). */
  async whenIndexed(workspaceId: string): Promise<void> {
    while (this.loaded.get(workspaceId)?.job) await new Promise((r) => setTimeout(r, 5));
  }

  /** Pages in the workspace's index (0 before first use). */
  indexedPages(workspaceId: string): number {
    return this.loaded.get(workspaceId)?.size ?? 0;
  }

  /** The search itself, without the permission check (benchmarks, the MCP server after its own check). */
  searchWorkspace(workspaceId: string, q: string, limit: number, visibility: PageVisibility = OPEN): SearchHit[] {
    return this.guarded(() => {
      const entry = this.entry(workspaceId);
      const match = planQuery(entry.index, q);
      if (match === null) return [];
      const ranked = visibility.restricted ? this.visibleCandidates(entry, match, limit, visibility) : this.candidates(entry, match, limit);
      const rows = entry.index.hits(match, ranked);
      return rows.map((r) => ({
        page_id: r.page_id,
        path: r.path,
        title: r.title,
        description: r.description,
        score: Number(r.score.toPrecision(4)),
        snippet: renderSnippet(r.snippet),
      }));
    });
  }

  /**
   * Rebuilds a workspace's index from the ledger (pages table + files), now, in one transaction:
   * for `quire rebuild --search`, which runs while no server does.
   */
  rebuild(workspaceId: string): { pages: number } {
    return this.guarded(() => {
      this.forget(workspaceId);
      const entry = this.track(workspaceId, "ledger");
      const job = IndexJob.fromLedger(this.store.db, entry.index, this.source, true);
      job.step(Number.POSITIVE_INFINITY);
      this.finish(entry);
      if (entry.mergeTimer) clearTimeout(entry.mergeTimer);
      entry.mergeTimer = null;
      entry.index.optimize();
      this.store.db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
      return { pages: entry.size };
    });
  }

  /** Drops a workspace's index, e.g. after the workspace is deleted. */
  drop(workspaceId: string): void {
    this.guarded(() => {
      this.forget(workspaceId);
      this.store.db.transaction(() => new WorkspaceIndex(this.store.db, workspaceId).drop())();
    });
  }

  /**
   * Every change is committed as it is applied; this finishes builds in progress and the
   * background merging now (so lookups visit one segment) and checkpoints the WAL.
   */
  flush(): void {
    this.guarded(() => {
      for (const entry of this.loaded.values()) {
        if (entry.job) {
          if (entry.jobTimer) clearImmediate(entry.jobTimer);
          entry.jobTimer = null;
          entry.job.step(Number.POSITIVE_INFINITY);
          this.finish(entry);
        }
        if (!entry.mergeTimer) continue;
        clearTimeout(entry.mergeTimer);
        entry.mergeTimer = null;
        entry.index.optimize();
      }
      this.store.db.exec("PRAGMA wal_checkpoint(PASSIVE)");
    });
  }

  /** The index file (one for every workspace). */
  indexFile(_workspaceId?: string): string {
    return this.store.file;
  }

  /** Where the workspace's index came from in this process: the file, or the ledger (built). Null before first use. */
  loadedFrom(workspaceId: string): "file" | "ledger" | null {
    return this.loaded.get(workspaceId)?.origin ?? null;
  }

  /**
   * The best `limit` rows, by full BM25 score. When more than half the pages match (and more than
   * RANK_ALL_MIN), every query word is in more than half the pages, and BM25 gives such a word no
   * weight (its inverse document frequency is below zero, which FTS5 clamps to about nothing):
   * ranking every match would cost milliseconds to order pages by little more than length. The
   * candidates are then the best pages holding the words in their title, tags or description,
   * plus the best of the RECENT_RANKED most recently indexed matches, and their full scores decide.
   */
  /**
   * The best `limit` rows the reader may see (docs/decisions/restricted-folders.md): hidden pages
   * are dropped by path before any snippet or title is read, so nothing of theirs reaches a result,
   * a count or a snippet. Widens the candidates while hidden ones crowd the visible out.
   */
  private visibleCandidates(entry: Loaded, match: string, limit: number, visibility: PageVisibility): RankedRow[] {
    for (let want = Math.max(limit * 4, 64); ; want *= 8) {
      const ranked = this.candidates(entry, match, want);
      const paths = entry.index.pathsOf(ranked.map((r) => r.id));
      const visible = ranked.filter((r) => {
        const path = paths.get(r.id);
        return path !== undefined && visibility.sees(path);
      });
      if (visible.length >= limit || ranked.length < want || want >= entry.size) return visible.slice(0, limit);
    }
  }

  private candidates(entry: Loaded, match: string, limit: number): RankedRow[] {
    const { index } = entry;
    const rankAll = Math.max(this.rankAllMin, Math.floor(entry.size / 2));
    if (entry.size <= rankAll || index.nthNewest(match, rankAll) === null) return index.rank(match, limit);
    const ids = new Set(index.rank(match, limit, { columns: "{title tags description}" }).map((r) => r.id));
    const recent = index.nthNewest(match, Math.max(this.recentRanked, limit));
    for (const r of index.rank(match, limit, recent === null ? {} : { minRowid: recent })) ids.add(r.id);
    return index
      .scores(match, [...ids])
      .sort((a, b) => b.score - a.score || a.id - b.id)
      .slice(0, limit);
  }

  /**
   * The workspace's index, ready to query. A workspace the file does not hold is built from the
   * ledger; one it holds has the pages changed while the server was down (a crash, an edit on
   * disk, a build cut short) re-read. Either runs as a job whose first batch runs now, so a small
   * workspace is complete on return; a large one goes on in the background.
   */
  private entry(workspaceId: string): Loaded {
    const existing = this.loaded.get(workspaceId);
    if (existing) return existing;
    const create = !this.store.has(workspaceId);
    const entry = this.track(workspaceId, create ? "ledger" : "file");
    this.startJob(entry, IndexJob.fromLedger(this.store.db, entry.index, this.source, create));
    return entry;
  }

  private track(workspaceId: string, origin: Loaded["origin"]): Loaded {
    const index = new WorkspaceIndex(this.store.db, workspaceId);
    const entry: Loaded = { index, size: origin === "file" ? index.size : 0, origin, mergeTimer: null, job: null, jobTimer: null };
    this.loaded.set(workspaceId, entry);
    return entry;
  }

  /** Replaces the entry's job (if any) with `job` and runs its first batch now. */
  private startJob(entry: Loaded, job: IndexJob): void {
    this.stopJob(entry);
    entry.job = job;
    entry.index.vocabulary.pause();
    if (entry.mergeTimer) clearTimeout(entry.mergeTimer);
    entry.mergeTimer = null;
    this.runBatch(entry, job);
  }

  /**
   * One batch of the entry's job, then the next after the event loop has run. A batch that fails
   * is rolled back and the workspace forgotten, so its next use starts over from the ledger
   * (re-reading only what the committed batches did not index); a corrupt file is replaced.
   */
  private runBatch(entry: Loaded, job: IndexJob): void {
    entry.jobTimer = null;
    if (this.loaded.get(entry.index.workspaceId) !== entry || entry.job !== job || this.windingDown) return;
    let complete: boolean;
    try {
      complete = job.step(this.batchMs);
      entry.size = entry.index.size;
    } catch (error) {
      this.forget(entry.index.workspaceId);
      throw error;
    }
    if (complete) this.finish(entry);
    else entry.jobTimer = setImmediate(() => this.continueJob(entry, job));
  }

  private continueJob(entry: Loaded, job: IndexJob): void {
    try {
      this.runBatch(entry, job);
    } catch (error) {
      this.deps.log.warn("search index build failed; it starts again at the next use", { workspace_id: entry.index.workspaceId, error: String(error) });
      if (isCorruption(error)) {
        this.forgetAll();
        this.store.recreate();
      }
    }
  }

  /** After a job: merge the segments its batches wrote, in the background, and hand back the page cache it filled. */
  private finish(entry: Loaded): void {
    const created = entry.job !== null && entry.origin === "ledger";
    entry.job = null;
    entry.size = entry.index.size;
    entry.index.vocabulary.resume();
    this.scheduleMerge(entry);
    // A build fills SQLite's page cache with pages written once; hand that memory back.
    if (created) this.store.db.exec("PRAGMA shrink_memory");
  }

  private stopJob(entry: Loaded): void {
    entry.job?.cancel();
    entry.job = null;
    if (entry.jobTimer) clearImmediate(entry.jobTimer);
    entry.jobTimer = null;
  }

  /** Forgets a workspace's index in this process (timers and job stopped; the file is untouched). */
  private forget(workspaceId: string): void {
    const entry = this.loaded.get(workspaceId);
    if (!entry) return;
    this.stopJob(entry);
    if (entry.mergeTimer) clearTimeout(entry.mergeTimer);
    this.loaded.delete(workspaceId);
  }

  /** Merges segments a step at a time once writes pause, yielding to requests between steps. */
  private scheduleMerge(entry: Loaded): void {
    if (entry.mergeTimer) clearTimeout(entry.mergeTimer);
    entry.mergeTimer = null;
    // A build in progress writes on; the merge is scheduled when it finishes.
    if (entry.job) return;
    // From one page up: the first step of a merge must not be the one that overruns.
    let pages = 1;
    const step = () => {
      entry.mergeTimer = null;
      if (this.loaded.get(entry.index.workspaceId) !== entry) return;
      try {
        const started = performance.now();
        const more = entry.index.mergeStep(pages);
        // The step's size follows its cost: halved while a step overruns, grown back while it is cheap.
        const took = performance.now() - started;
        if (took > MERGE_STEP_MS) pages = Math.max(1, pages >> 1);
        else if (took < MERGE_STEP_MS / 4) pages = Math.min(MERGE_STEP_PAGES, pages << 1);
        if (more) entry.mergeTimer = setTimeout(step, 1);
      } catch (error) {
        this.deps.log.warn("search index merge failed", { workspace_id: entry.index.workspaceId, error: String(error) });
      }
    };
    entry.mergeTimer = setTimeout(step, MERGE_DELAY_MS);
  }

  private forgetAll(): void {
    for (const id of [...this.loaded.keys()]) this.forget(id);
  }

  /** Runs an index operation; when SQLite finds the file corrupt, starts a new file and tries once more. */
  private guarded<T>(op: () => T): T {
    try {
      return op();
    } catch (error) {
      if (!isCorruption(error)) throw error;
      this.deps.log.warn("search index file corrupt; rebuilding from the ledger", { error: String(error) });
      this.forgetAll();
      this.store.recreate();
      return op();
    }
  }
}

function isCorruption(error: unknown): boolean {
  const code = (error as { code?: unknown })?.code;
  return typeof code === "string" && (code.startsWith("SQLITE_CORRUPT") || code.startsWith("SQLITE_NOTADB"));
}
