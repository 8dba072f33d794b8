import type { Db } from "../db/database.ts";
import type { Logger } from "../core/log.ts";
import type { Principal } from "../access/principal.ts";
import type { Permissions } from "../access/permissions.ts";
import type { WorkspaceRecords } from "../workspaces/workspace-records.ts";
import type { EventBus, LedgerChange, PageSnapshot } from "../realtime/event-bus.ts";
import { isUlid } from "../core/ids.ts";
import { parseInput } from "../core/validate.ts";
import { WorkspaceIndex, type RankedRow } from "./workspace-index.ts";
import { IndexStore } from "./index-store.ts";
import { PageSource } from "./page-source.ts";
import { planQuery } from "./query-plan.ts";
import { renderSnippet } from "./snippet.ts";
import { searchQuery } from "./schemas.ts";

export interface SearchHit {
  page_id: string;
  path: string;
  title: string;
  description: string;
  score: number;
  snippet: string;
}

interface Loaded {
  index: WorkspaceIndex;
  /** Pages in the index, kept up to date by every change. */
  size: number;
  origin: "file" | "ledger";
  /** Background merging of the index's segments, scheduled after writes. */
  mergeTimer: ReturnType<typeof setTimeout> | null;
}

const WARM_UP_DELAY_MS = 1000;
/**
 * Ranking is the expensive part of a query (BM25 costs about a microsecond per matching page),
 * so when more than half the pages match (and more than RANK_ALL_MIN), not all of them are
 * ranked; see candidates(). RECENT_RANKED is how many of the newest matches are ranked then.
 */
const RANK_ALL_MIN = 2000;
const RECENT_RANKED = 1000;
/** Quiet time after the last write before segments are merged, and the work done per step. */
const MERGE_DELAY_MS = 500;
const MERGE_STEP_PAGES = 32;
export interface SearchOptions {
  /** Override RANK_ALL_MIN and RECENT_RANKED (tests of the capped ranking on a small workspace). */
  rankAllMin?: number;
  recentRanked?: number;
}

/**
 * Full-text search: one SQLite FTS5 index per workspace in `{DATA_DIR}/search/index.db`, fed by
 * the ledger's changes on the event bus. Every change is written at once (visible to the next
 * query, and on disk, so a restart loads nothing). A workspace the file does not hold yet is built
 * from the ledger the first time it is needed (and eagerly in the background at start); pages
 * changed while the server was down are re-read then too.
 */
export class SearchService {
  private readonly loaded = new Map<string, Loaded>();
  private readonly store: IndexStore;
  private readonly source: PageSource;
  private readonly rankAllMin: number;
  private readonly recentRanked: number;
  private unsubscribe: (() => void) | null = null;
  private warmTimer: ReturnType<typeof setTimeout> | null = null;

  constructor(
    private readonly deps: {
      db: Db;
      dataDir: string;
      bus: EventBus;
      permissions: Permissions;
      workspaces: WorkspaceRecords;
      log: Logger;
    },
    opts: SearchOptions = {},
  ) {
    this.store = new IndexStore(deps.dataDir, deps.log);
    this.source = new PageSource(deps.db, deps.dataDir);
    this.rankAllMin = opts.rankAllMin ?? RANK_ALL_MIN;
    this.recentRanked = opts.recentRanked ?? RECENT_RANKED;
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
      if (id === undefined) return;
      try {
        this.entry(id);
      } catch (error) {
        this.deps.log.warn("search index warm-up failed", { workspace_id: id, error: String(error) });
      }
      this.warmTimer = setTimeout(next, 0);
    };
    // Started a moment after boot so the first requests are not queued behind index builds.
    this.warmTimer = setTimeout(next, WARM_UP_DELAY_MS);
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

  apply(change: LedgerChange): void {
    this.guarded(() => {
      // A full reset of a workspace the file does not hold needs no pages from disk.
      if (change.kind === "reset" && !this.loaded.has(change.workspace_id) && !this.store.has(change.workspace_id)) {
        this.build(change.workspace_id, change.pages.map((p) => ({ ...p, stamp: this.source.stampOf(p.page_id) })));
        return;
      }
      const entry = this.entry(change.workspace_id);
      const { index } = entry;
      this.store.db.transaction(() => {
        switch (change.kind) {
          case "upsert":
            index.upsert(change.page, this.source.stampOf(change.page.page_id));
            break;
          case "remove":
            index.remove(change.page_id);
            break;
          case "reset": {
            const wanted = new Set(change.pages.map((p) => p.page_id));
            for (const page of change.pages) index.upsert(page, this.source.stampOf(page.page_id));
            for (const id of index.stamps().keys()) if (!wanted.has(id)) index.remove(id);
            break;
          }
        }
        entry.size = index.size;
      })();
      this.scheduleMerge(entry);
    });
  }

  /** Searches one workspace the principal can read (404 otherwise). */
  search(principal: Principal, workspaceRef: string, input: unknown): { items: SearchHit[] } {
    const query = parseInput(searchQuery, input);
    const ref = isUlid(workspaceRef) ? { id: workspaceRef } : { slug: workspaceRef };
    const { workspace } = this.deps.permissions.require(principal, ref, "viewer");
    return { items: this.searchWorkspace(workspace.id, query.q, query.limit) };
  }

  /** The search itself, without the permission check (benchmarks, the MCP server after its own check). */
  searchWorkspace(workspaceId: string, q: string, limit: number): SearchHit[] {
    return this.guarded(() => {
      const entry = this.entry(workspaceId);
      const match = planQuery(entry.index, q);
      if (match === null) return [];
      const rows = entry.index.hits(match, this.candidates(entry, match, limit));
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

  /** Rebuilds a workspace's index from the ledger (pages table + files), now. */
  rebuild(workspaceId: string): { pages: number } {
    return this.guarded(() => {
      const pages = this.build(workspaceId, this.source.snapshots(workspaceId));
      this.store.db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
      return { pages };
    });
  }

  /** Drops a workspace's index, e.g. after the workspace is deleted. */
  drop(workspaceId: string): void {
    this.guarded(() => {
      this.store.db.transaction(() => new WorkspaceIndex(this.store.db, workspaceId).drop())();
      const entry = this.loaded.get(workspaceId);
      if (entry?.mergeTimer) clearTimeout(entry.mergeTimer);
      this.loaded.delete(workspaceId);
    });
  }

  /**
   * Every change is committed as it is applied; this finishes the background merging now (so
   * lookups visit one segment) and checkpoints the WAL.
   */
  flush(): void {
    this.guarded(() => {
      for (const entry of this.loaded.values()) {
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

  private entry(workspaceId: string): Loaded {
    const existing = this.loaded.get(workspaceId);
    if (existing) return existing;
    if (!this.store.has(workspaceId)) {
      this.build(workspaceId, this.source.snapshots(workspaceId));
      return this.loaded.get(workspaceId)!;
    }
    const index = new WorkspaceIndex(this.store.db, workspaceId);
    const entry: Loaded = { index, size: index.size, origin: "file", mergeTimer: null };
    this.loaded.set(workspaceId, entry);
    this.catchUp(entry);
    return entry;
  }

  /** Re-reads only the pages whose content changed since they were indexed (a crash, an edit while down). */
  private catchUp(entry: Loaded): void {
    const { index } = entry;
    const live = this.source.stamps(index.workspaceId);
    if (live === null) return;
    const indexed = index.stamps();
    const changed = new Set<string>();
    for (const [id, hash] of live) if (indexed.get(id) !== hash) changed.add(id);
    const gone = [...indexed.keys()].filter((id) => !live.has(id));
    if (changed.size === 0 && gone.length === 0) return;
    this.store.db.transaction(() => {
      for (const id of gone) index.remove(id);
      for (const page of this.source.snapshots(index.workspaceId, changed)) index.upsert(page, page.stamp);
      entry.size = index.size;
    })();
    this.scheduleMerge(entry);
  }

  /** Merges segments a step at a time once writes pause, yielding to requests between steps. */
  private scheduleMerge(entry: Loaded): void {
    if (entry.mergeTimer) clearTimeout(entry.mergeTimer);
    const step = () => {
      entry.mergeTimer = null;
      if (this.loaded.get(entry.index.workspaceId) !== entry) return;
      try {
        if (entry.index.mergeStep(MERGE_STEP_PAGES)) entry.mergeTimer = setTimeout(step, 1);
      } catch (error) {
        this.deps.log.warn("search index merge failed", { workspace_id: entry.index.workspaceId, error: String(error) });
      }
    };
    entry.mergeTimer = setTimeout(step, MERGE_DELAY_MS);
  }

  private forgetAll(): void {
    for (const entry of this.loaded.values()) if (entry.mergeTimer) clearTimeout(entry.mergeTimer);
    this.loaded.clear();
  }

  /** Replaces a workspace's index with exactly `pages`, in one transaction. */
  private build(workspaceId: string, pages: Iterable<PageSnapshot & { stamp: string }>): number {
    const old = this.loaded.get(workspaceId);
    if (old?.mergeTimer) clearTimeout(old.mergeTimer);
    const index = new WorkspaceIndex(this.store.db, workspaceId);
    this.store.db.transaction(() => {
      index.drop();
      index.create();
      for (const page of pages) index.upsert(page, page.stamp);
    })();
    index.optimize();
    // A build fills SQLite's page cache with pages written once; hand that memory back.
    this.store.db.exec("PRAGMA shrink_memory");
    const entry: Loaded = { index, size: index.size, origin: "ledger", mergeTimer: null };
    this.loaded.set(workspaceId, entry);
    return entry.size;
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
