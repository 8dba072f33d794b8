import type { Db } from "../db/database.ts";
import type { Logger } from "../core/log.ts";
import type { Principal } from "../access/principal.ts";
import type { Permissions } from "../access/permissions.ts";
import type { WorkspaceRecords } from "../workspaces/workspace-records.ts";
import type { EventBus, LedgerChange, PageSnapshot } from "../realtime/event-bus.ts";
import { isUlid } from "../core/ids.ts";
import { parseInput } from "../core/validate.ts";
import { WorkspaceIndex } from "./workspace-index.ts";
import { IndexStore, INDEX_FORMAT } from "./index-store.ts";
import { PageSource } from "./page-source.ts";
import { buildSnippet, type QueryTerms } from "./snippet.ts";
import { normalizeWord, splitJoiners } from "./tokenizer.ts";
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
  /** page_id → content_hash as indexed (see IndexStore). */
  stamps: Map<string, string>;
  savedVersion: number;
  timer: ReturnType<typeof setTimeout> | null;
  origin: "file" | "ledger";
}

const WARM_UP_DELAY_MS = 1000;
const MAX_QUERY_WORDS = 12;

export interface SearchOptions {
  /** How long writes to an index wait for more changes before the file is rewritten. */
  persistDebounceMs?: number;
}

/**
 * Full-text search: one Orama index per workspace, fed by the ledger's changes on the event bus,
 * persisted under `{DATA_DIR}/search/`. An index is loaded from its file the first time it is
 * needed (and eagerly in the background at start); a missing or unreadable file, or pages changed
 * while the server was down, are re-read from the ledger.
 */
export class SearchService {
  private readonly loaded = new Map<string, Loaded>();
  private readonly store: IndexStore;
  private readonly source: PageSource;
  private readonly debounceMs: number;
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
    this.store = new IndexStore(deps.dataDir);
    this.source = new PageSource(deps.db, deps.dataDir);
    this.debounceMs = opts.persistDebounceMs ?? 500;
  }

  /** Listens to the ledger and warms the indexes of live workspaces one at a time, off the request path. */
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
        this.indexOf(id);
      } catch (error) {
        this.deps.log.warn("search index warm-up failed", { workspace_id: id, error: String(error) });
      }
      this.warmTimer = setTimeout(next, 0);
    };
    // Started a moment after boot so the first requests are not queued behind big index files.
    this.warmTimer = setTimeout(next, WARM_UP_DELAY_MS);
  }

  /** Writes every pending index and stops listening. */
  stop(): void {
    this.unsubscribe?.();
    this.unsubscribe = null;
    if (this.warmTimer) clearTimeout(this.warmTimer);
    this.flush();
  }

  apply(change: LedgerChange): void {
    // A full reset of an index not in memory needs neither its file nor the pages on disk.
    if (change.kind === "reset" && !this.loaded.has(change.workspace_id) && !this.store.exists(change.workspace_id)) {
      this.schedulePersist(change.workspace_id, this.fresh(change.workspace_id, change.pages));
      return;
    }
    const entry = this.indexOf(change.workspace_id);
    switch (change.kind) {
      case "upsert":
        entry.index.upsert(change.page);
        entry.stamps.set(change.page.page_id, this.source.stampOf(change.page.page_id));
        break;
      case "remove":
        entry.index.remove(change.page_id);
        entry.stamps.delete(change.page_id);
        break;
      case "reset":
        entry.index.reset(change.pages);
        entry.stamps = new Map(change.pages.map((p) => [p.page_id, this.source.stampOf(p.page_id)]));
        break;
    }
    this.schedulePersist(change.workspace_id, entry);
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
    const { index } = this.indexOf(workspaceId);
    // At most MAX_QUERY_WORDS distinct words: each costs index lookups, a misspelt one a fuzzy walk.
    const words = [...new Set(splitJoiners(q).split(/[^\p{L}\p{N}]+/u).filter(Boolean))].slice(0, MAX_QUERY_WORDS);
    const plan = index.plan(words);
    if (plan.exact.length + plan.fuzzy.length === 0) return [];
    const terms: QueryTerms = {
      prefixes: plan.exact.map((w) => normalizeWord(index.tokenizer, w)).filter(Boolean),
      words: new Set(plan.fuzzy.flatMap((w) => index.fuzzyMatches(w))),
    };
    return index.query(plan, limit).map(({ page, score }) => ({
      page_id: page.page_id,
      path: page.path,
      title: page.title,
      description: page.description,
      score: Math.round(score * 1000) / 1000,
      snippet: buildSnippet(index.tokenizer, page.body || page.description || page.title, terms),
    }));
  }

  /** Rebuilds a workspace's index from the ledger (pages table + files) and writes it now. */
  rebuild(workspaceId: string): { pages: number } {
    const pages = this.source.snapshots(workspaceId);
    const entry = this.fresh(workspaceId, pages);
    this.persist(workspaceId, entry);
    return { pages: pages.length };
  }

  /** Drops a workspace's index (in memory and on disk), e.g. after the workspace is deleted. */
  drop(workspaceId: string): void {
    const entry = this.loaded.get(workspaceId);
    if (entry?.timer) clearTimeout(entry.timer);
    this.loaded.delete(workspaceId);
    this.store.delete(workspaceId);
  }

  /** Writes every index with unsaved changes. */
  flush(): void {
    for (const [id, entry] of this.loaded) {
      if (entry.timer) clearTimeout(entry.timer);
      entry.timer = null;
      if (entry.index.version !== entry.savedVersion) this.persist(id, entry);
    }
  }

  indexFile(workspaceId: string): string {
    return this.store.pathOf(workspaceId);
  }

  /** Where the workspace's index in memory came from: its file, or the ledger (rebuilt). Null before first use. */
  loadedFrom(workspaceId: string): "file" | "ledger" | null {
    return this.loaded.get(workspaceId)?.origin ?? null;
  }

  private indexOf(workspaceId: string): Loaded {
    const existing = this.loaded.get(workspaceId);
    if (existing) return existing;
    const stored = this.store.read(workspaceId);
    if (!stored) {
      const entry = this.fresh(workspaceId, this.source.snapshots(workspaceId));
      if (entry.index.size > 0) this.schedulePersist(workspaceId, entry);
      return entry;
    }
    let index: WorkspaceIndex;
    try {
      index = new WorkspaceIndex(stored.raw);
    } catch (error) {
      this.deps.log.warn("search index file unusable; rebuilding", { workspace_id: workspaceId, error: String(error) });
      const entry = this.fresh(workspaceId, this.source.snapshots(workspaceId));
      this.schedulePersist(workspaceId, entry);
      return entry;
    }
    const entry: Loaded = {
      index,
      stamps: new Map(Object.entries(stored.stamps)),
      savedVersion: index.version,
      timer: null,
      origin: "file",
    };
    this.loaded.set(workspaceId, entry);
    this.catchUp(workspaceId, entry);
    return entry;
  }

  /** Re-reads only the pages whose content changed since the file was written (a crash, an edit while down). */
  private catchUp(workspaceId: string, entry: Loaded): void {
    const live = this.source.stamps(workspaceId);
    if (live === null) return;
    const changed = new Set<string>();
    for (const [id, hash] of live) if (entry.stamps.get(id) !== hash) changed.add(id);
    for (const id of entry.stamps.keys()) {
      if (!live.has(id)) {
        entry.index.remove(id);
        entry.stamps.delete(id);
      }
    }
    for (const page of changed.size > 0 ? this.source.snapshots(workspaceId, changed) : []) {
      entry.index.upsert(page);
      entry.stamps.set(page.page_id, live.get(page.page_id) ?? "");
    }
    if (entry.index.version !== entry.savedVersion) this.schedulePersist(workspaceId, entry);
  }

  private fresh(workspaceId: string, pages: PageSnapshot[]): Loaded {
    const old = this.loaded.get(workspaceId);
    if (old?.timer) clearTimeout(old.timer);
    const index = new WorkspaceIndex();
    for (const page of pages) index.upsert(page);
    const entry: Loaded = {
      index,
      stamps: new Map(pages.map((p) => [p.page_id, this.source.stampOf(p.page_id)])),
      savedVersion: -1,
      timer: null,
      origin: "ledger",
    };
    this.loaded.set(workspaceId, entry);
    return entry;
  }

  private schedulePersist(workspaceId: string, entry: Loaded): void {
    if (entry.timer) return;
    entry.timer = setTimeout(() => {
      entry.timer = null;
      try {
        this.persist(workspaceId, entry);
      } catch (error) {
        this.deps.log.error("search index write failed", { workspace_id: workspaceId, error: String(error) });
      }
    }, this.debounceMs);
  }

  private persist(workspaceId: string, entry: Loaded): void {
    if (entry.timer) clearTimeout(entry.timer);
    entry.timer = null;
    const version = entry.index.version;
    this.store.write({
      format: INDEX_FORMAT,
      workspace_id: workspaceId,
      saved_at: new Date().toISOString(),
      stamps: Object.fromEntries(entry.stamps),
      raw: entry.index.serialize(),
    });
    entry.savedVersion = version;
  }
}
