import type { Db } from "../db/database.ts";
import type { PageSnapshot } from "../core/event-bus.ts";
import { isUlid } from "../core/ids.ts";
import { sha256Hex } from "../core/crypto.ts";
import { indexedText, MARK_CLOSE, MARK_OPEN } from "./snippet.ts";
import { Vocabulary } from "./vocabulary.ts";

/** bm25 weights per column, in the FTS5 table's column order: title, tags, description, body, path. */
const WEIGHTS = [3, 2, 1.5, 1, 0.5] as const;
const SNIPPET_TOKENS = 24;

export interface RankedRow {
  id: number;
  score: number;
}

interface HitRow {
  page_id: string;
  path: string;
  title: string;
  description: string;
  score: number;
  snippet: string;
}

/** The signature of a snapshot: equal signatures mean a reset can skip re-indexing the page. */
function snapshotSig(page: PageSnapshot): string {
  return sha256Hex(JSON.stringify([page.path, page.title, page.description, page.tags, page.body])).slice(0, 16);
}

/**
 * One workspace's index inside the shared index file: its own FTS5 table (so BM25's document
 * counts and the vocabulary are the workspace's alone, and no query can reach another
 * workspace's rows), a vocabulary view of it, and a table mapping FTS rowids to pages. The
 * workspace id names the tables, so it is checked to be a ULID before any SQL is built from it.
 */
export class WorkspaceIndex {
  private readonly docs: string;
  private readonly fts: string;
  private readonly vocab: string;
  /** The terms in memory for typo tolerance, loaded on first need. */
  readonly vocabulary = new Vocabulary(() => this.terms());

  constructor(
    private readonly db: Db,
    readonly workspaceId: string,
  ) {
    if (!isUlid(workspaceId)) throw new Error(`not a workspace id: ${workspaceId}`);
    this.docs = `"d_${workspaceId}"`;
    this.fts = `"f_${workspaceId}"`;
    this.vocab = `"v_${workspaceId}"`;
  }

  /**
   * Creates the tables (empty) and records the workspace as indexed. The prefix indexes of two-
   * and three-letter prefixes make a half-typed last word cheap: without them FTS5 merges the
   * document lists of every term starting with "con" on each query (tens of milliseconds at
   * 10,000 pages), with them it reads one list; they cost about a quarter more file.
   */
  create(): void {
    this.db.exec(
      `CREATE TABLE IF NOT EXISTS ${this.docs} (id INTEGER PRIMARY KEY, page_id TEXT NOT NULL UNIQUE, path TEXT NOT NULL,
        title TEXT NOT NULL, description TEXT NOT NULL, stamp TEXT NOT NULL, sig TEXT NOT NULL)`,
    );
    this.db.exec(
      `CREATE VIRTUAL TABLE IF NOT EXISTS ${this.fts} USING fts5(title, tags, description, body, path,
        tokenize = 'porter unicode61 remove_diacritics 2', prefix = '2 3')`,
    );
    this.db.exec(`CREATE VIRTUAL TABLE IF NOT EXISTS ${this.vocab} USING fts5vocab(${this.fts}, row)`);
    this.db
      .query("INSERT OR REPLACE INTO indexed (workspace_id, built_at) VALUES (?, ?)")
      .run(this.workspaceId, new Date().toISOString());
  }

  drop(): void {
    this.db.exec(`DROP TABLE IF EXISTS ${this.vocab}`);
    this.db.exec(`DROP TABLE IF EXISTS ${this.fts}`);
    this.db.exec(`DROP TABLE IF EXISTS ${this.docs}`);
    this.db.query("DELETE FROM indexed WHERE workspace_id = ?").run(this.workspaceId);
  }

  get size(): number {
    return this.db.query<{ n: number }, []>(`SELECT count(*) AS n FROM ${this.docs}`).get()!.n;
  }

  /** page_id → the content hash the page had when it was indexed. */
  stamps(): Map<string, string> {
    const rows = this.db.query<{ page_id: string; stamp: string }, []>(`SELECT page_id, stamp FROM ${this.docs}`).all();
    return new Map(rows.map((r) => [r.page_id, r.stamp]));
  }

  /** Adds or replaces a page (the caller holds a transaction); false when it was already indexed as it is. */
  upsert(page: PageSnapshot, stamp: string): boolean {
    const sig = snapshotSig(page);
    const existing = this.db
      .query<{ id: number; sig: string }, [string]>(`SELECT id, sig FROM ${this.docs} WHERE page_id = ?`)
      .get(page.page_id);
    if (existing?.sig === sig) {
      this.db.query(`UPDATE ${this.docs} SET stamp = ? WHERE id = ?`).run(stamp, existing.id);
      return false;
    }
    const text = indexedText(page);
    if (existing) {
      this.db.query(`DELETE FROM ${this.fts} WHERE rowid = ?`).run(existing.id);
      this.db
        .query(`UPDATE ${this.docs} SET path = ?, title = ?, description = ?, stamp = ?, sig = ? WHERE id = ?`)
        .run(page.path, page.title, page.description, stamp, sig, existing.id);
    }
    const id =
      existing?.id ??
      this.db
        .query<{ id: number }, [string, string, string, string, string, string]>(
          `INSERT INTO ${this.docs} (page_id, path, title, description, stamp, sig) VALUES (?, ?, ?, ?, ?, ?) RETURNING id`,
        )
        .get(page.page_id, page.path, page.title, page.description, stamp, sig)!.id;
    this.db
      .query(`INSERT INTO ${this.fts} (rowid, title, tags, description, body, path) VALUES (?, ?, ?, ?, ?, ?)`)
      .run(id, text.title, text.tags, text.description, text.body, text.path);
    this.vocabulary.add(text.title, text.tags, text.description, text.body, text.path);
    return true;
  }

  remove(pageId: string): boolean {
    const row = this.db.query<{ id: number }, [string]>(`SELECT id FROM ${this.docs} WHERE page_id = ?`).get(pageId);
    if (!row) return false;
    this.db.query(`DELETE FROM ${this.fts} WHERE rowid = ?`).run(row.id);
    this.db.query(`DELETE FROM ${this.docs} WHERE id = ?`).run(row.id);
    return true;
  }

  /** Whether some page holds the word (FTS5 stems it, as it did the pages). */
  hasWord(word: string): boolean {
    return this.db.query(`SELECT rowid FROM ${this.fts} WHERE ${this.fts} MATCH ? LIMIT 1`).get(`"${word}"`) !== null;
  }

  /** Whether some page holds a word starting with the word's stem. */
  hasPrefix(word: string): boolean {
    return this.db.query(`SELECT rowid FROM ${this.fts} WHERE ${this.fts} MATCH ? LIMIT 1`).get(`"${word}"*`) !== null;
  }

  /** Every term of the index (stems, as FTS5 stored them). */
  terms(): string[] {
    return this.db.query<{ term: string }, []>(`SELECT term FROM ${this.vocab}`).all().map((r) => r.term);
  }

  /**
   * One step of background merging of the index's segments (every commit adds one, and each
   * lookup visits them all); false once they are merged into one and there is nothing to do.
   */
  mergeStep(pages: number): boolean {
    const before = this.db.query<{ n: number }, []>("SELECT total_changes() AS n").get()!.n;
    this.db.query(`INSERT INTO ${this.fts} (${this.fts}, rank) VALUES ('merge', ?)`).run(-pages);
    // The command itself counts as one change; FTS5 documents "more than one" as "work was done".
    return this.db.query<{ n: number }, []>("SELECT total_changes() AS n").get()!.n - before > 1;
  }

  /** Merges every segment into one (after a build). */
  optimize(): void {
    this.db.query(`INSERT INTO ${this.fts} (${this.fts}) VALUES ('optimize')`).run();
  }

  /**
   * The best `limit` matches of an FTS5 expression, by weighted BM25 (FTS5's bm25 is lower for
   * better matches; the score returned is its negation). `minRowid` restricts the candidates to
   * a rowid range (see SearchService's cap on ranking work).
   */
  rank(match: string, limit: number, opts: { minRowid?: number; columns?: string } = {}): RankedRow[] {
    const expr = opts.columns ? `${opts.columns} : (${match})` : match;
    return this.db
      .query<RankedRow, [string, number, number]>(
        `SELECT rowid AS id, -bm25(${this.fts}, ${WEIGHTS.join(", ")}) AS score FROM ${this.fts}
         WHERE ${this.fts} MATCH ? AND rowid >= ? ORDER BY score DESC, rowid LIMIT ?`,
      )
      .all(expr, opts.minRowid ?? 0, limit);
  }

  /** The rowid of the n-th newest match (0-based), or null when there are no more than n. */
  nthNewest(match: string, n: number): number | null {
    return (
      this.db
        .query<{ id: number }, [string, number]>(
          `SELECT rowid AS id FROM ${this.fts} WHERE ${this.fts} MATCH ? ORDER BY rowid DESC LIMIT 1 OFFSET ?`,
        )
        .get(match, n)?.id ?? null
    );
  }

  /** Full BM25 scores of some rows (one pass over the matches, filtered by id before scoring). */
  scores(match: string, ids: number[]): RankedRow[] {
    if (ids.length === 0) return [];
    return this.db
      .query<RankedRow, [string, string]>(
        `SELECT rowid AS id, -bm25(${this.fts}, ${WEIGHTS.join(", ")}) AS score FROM ${this.fts}
         WHERE ${this.fts} MATCH ? AND +rowid IN (SELECT value FROM json_each(?))`,
      )
      .all(match, JSON.stringify(ids));
  }

  /**
   * The pages behind ranked rows, in the same order, each with a snippet of its body (or
   * description, or title) around the matches, the matches between the marker characters.
   */
  /** The paths of indexed rows, by row id (to leave out the pages a reader may not see before any snippet is made). */
  pathsOf(ids: number[]): Map<number, string> {
    const rows = this.db
      .query<{ id: number; path: string }, [string]>(`SELECT id, path FROM ${this.docs} WHERE id IN (SELECT value FROM json_each(?))`)
      .all(JSON.stringify(ids));
    return new Map(rows.map((r) => [r.id, r.path]));
  }

  hits(match: string, ranked: RankedRow[]): HitRow[] {
    if (ranked.length === 0) return [];
    const ids = JSON.stringify(ranked.map((r) => r.id));
    const snippet = (col: number) => `snippet(${this.fts}, ${col}, '${MARK_OPEN}', '${MARK_CLOSE}', '…', ${SNIPPET_TOKENS})`;
    // "+rowid": one pass over the matches, filtered by id before any snippet is made. A plain
    // rowid constraint would make FTS5 evaluate the whole expression once per id.
    const snippets = this.db
      .query<{ id: number; snippet: string }, [string, string]>(
        `SELECT rowid AS id, CASE WHEN body <> '' THEN ${snippet(3)} WHEN description <> '' THEN ${snippet(2)} ELSE ${snippet(0)} END AS snippet
         FROM ${this.fts} WHERE ${this.fts} MATCH ? AND +rowid IN (SELECT value FROM json_each(?))`,
      )
      .all(match, ids);
    const pages = this.db
      .query<{ id: number; page_id: string; path: string; title: string; description: string }, [string]>(
        `SELECT id, page_id, path, title, description FROM ${this.docs} WHERE id IN (SELECT value FROM json_each(?))`,
      )
      .all(ids);
    const snippetOf = new Map(snippets.map((r) => [r.id, r.snippet]));
    const pageOf = new Map(pages.map((r) => [r.id, r]));
    const out: HitRow[] = [];
    for (const { id, score } of ranked) {
      const page = pageOf.get(id);
      if (!page) continue;
      out.push({ page_id: page.page_id, path: page.path, title: page.title, description: page.description, score, snippet: snippetOf.get(id) ?? "" });
    }
    return out;
  }
}
