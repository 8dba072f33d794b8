import { count, create, getByID, load, remove, save, search, upsert, type Orama, type RawData, type Results } from "@orama/orama";
import type { PageSnapshot } from "../realtime/event-bus.ts";
import { createSearchTokenizer, normalizeWord } from "./tokenizer.ts";
import { sha256Hex } from "../core/crypto.ts";

const SCHEMA = {
  page_id: "string",
  path: "string",
  title: "string",
  description: "string",
  tags: "string[]",
  body: "string",
} as const;

type SearchDb = Orama<typeof SCHEMA>;

/** What an index document holds besides the indexed fields: `sig` tells a reset what changed. */
export interface IndexedPage extends PageSnapshot {
  id: string;
  sig: string;
}

export interface QueryPlan {
  /** Words matched as they are (after stemming), or as the start of a longer word. */
  exact: string[];
  /** Words also matched with one letter inserted, dropped or changed. */
  fuzzy: string[];
}

interface RadixNode {
  find(params: { term: string; exact?: boolean; tolerance?: number }): Record<string, unknown>;
}

export interface RawHit {
  page: IndexedPage;
  score: number;
}

/** Field weights: a hit in the title counts three times one in the body. */
export const BOOST = { title: 3, tags: 2, description: 1.5, body: 1, path: 1 } as const;
/** Words this long or longer still match with one letter wrong. */
export const TYPO_MIN_LENGTH = 5;
const SEARCH_PROPERTIES = ["title", "tags", "description", "body", "path"] as const;

/** The signature of a snapshot: equal signatures mean a reset can skip re-indexing the page. */
export function snapshotSig(page: PageSnapshot): string {
  return sha256Hex(JSON.stringify([page.path, page.title, page.description, page.tags, page.body])).slice(0, 16);
}

/**
 * One workspace's Orama index. The page id is the document id, so an upsert replaces the page
 * wherever it moved. Orama's own search is OR across words with BM25 scoring per field; typo
 * tolerance is applied only to long words (see query()).
 */
export class WorkspaceIndex {
  private db: SearchDb;
  /** Bumped on every change, so the store knows whether there is anything to persist. */
  version = 0;

  constructor(raw?: RawData) {
    this.db = WorkspaceIndex.empty();
    if (raw) load(this.db, raw);
  }

  private static empty(): SearchDb {
    return create({ schema: SCHEMA, components: { tokenizer: createSearchTokenizer() } }) as SearchDb;
  }

  get size(): number {
    return count(this.db);
  }

  upsert(page: PageSnapshot): void {
    const doc = { id: page.page_id, ...toDoc(page), sig: snapshotSig(page) };
    upsert(this.db, doc as never);
    this.version++;
  }

  remove(pageId: string): void {
    if (getByID(this.db, pageId)) {
      remove(this.db, pageId);
      this.version++;
    }
  }

  /** Makes the index hold exactly `pages`, touching only the pages whose content changed. */
  reset(pages: PageSnapshot[]): { upserted: number; removed: number } {
    const wanted = new Set(pages.map((p) => p.page_id));
    let upserted = 0;
    let removed = 0;
    for (const page of pages) {
      const existing = getByID(this.db, page.page_id) as unknown as IndexedPage | undefined;
      if (existing && existing.sig === snapshotSig(page)) continue;
      this.upsert(page);
      upserted++;
    }
    for (const id of this.ids()) {
      if (!wanted.has(id)) {
        this.remove(id);
        removed++;
      }
    }
    return { upserted, removed };
  }

  ids(): string[] {
    const docs = (this.db.data.docs as unknown as { docs: Record<string, IndexedPage> }).docs;
    return Object.values(docs).map((d) => d.id);
  }

  /**
   * Splits the query words into those matched as they are (after stemming, or as the start of a
   * longer indexed word) and those allowed one letter of slack. Typo tolerance is a fallback: a
   * word of TYPO_MIN_LENGTH letters or more whose stem the index does not know is searched with
   * tolerance 1. (Searching every word with tolerance costs several times more and mostly adds
   * noise.) Orama applies the tolerance to the stem, which covers a slip in the word's root; a
   * slip in the ending defeats the stemmer instead ("environmnt" keeps its letters while
   * "environment" stems to "environ"), so the longest prefix of such a word (at most five letters
   * shorter) that is an indexed stem is searched as well.
   */
  plan(words: string[]): QueryPlan {
    const plan: QueryPlan = { exact: [], fuzzy: [] };
    for (const raw of words) {
      const word = raw.toLowerCase();
      const stem = normalizeWord(this.db.tokenizer, word);
      if (stem === "") continue;
      if (word.length < TYPO_MIN_LENGTH || this.hasTerm(stem, false)) {
        plan.exact.push(word);
        continue;
      }
      plan.fuzzy.push(word);
      for (let k = word.length - 1; k >= Math.max(4, word.length - 5); k--) {
        const prefix = word.slice(0, k);
        if (this.hasTerm(prefix, true)) {
          plan.exact.push(prefix);
          break;
        }
      }
    }
    return plan;
  }

  /** The indexed words a fuzzy query word matches (for highlighting exactly what was found). */
  fuzzyMatches(word: string): string[] {
    const stem = normalizeWord(this.db.tokenizer, word.toLowerCase());
    const out = new Set<string>();
    for (const node of this.radixNodes()) for (const w of Object.keys(node.find({ term: stem, tolerance: 1 }))) out.add(w);
    return [...out];
  }

  /** Orama takes one tolerance per query, so the two groups run as two searches whose scores add up per page. */
  query(plan: QueryPlan, limit: number): RawHit[] {
    const groups = [
      { term: plan.exact.join(" "), tolerance: 0 },
      { term: plan.fuzzy.join(" "), tolerance: 1 },
    ].filter((g) => g.term !== "");
    // With two groups every hit of each is needed to add the scores up correctly.
    const fetch = groups.length > 1 ? Math.max(limit, this.size) : limit;
    const scores = new Map<string, RawHit>();
    for (const { term, tolerance } of groups) {
      const result = search(this.db, {
        term,
        tolerance,
        boost: BOOST,
        properties: [...SEARCH_PROPERTIES],
        limit: fetch,
      }) as Results<IndexedPage>;
      for (const hit of result.hits) {
        const seen = scores.get(hit.id);
        if (seen) seen.score += hit.score;
        else scores.set(hit.id, { page: hit.document as IndexedPage, score: hit.score });
      }
    }
    return [...scores.values()].sort((a, b) => b.score - a.score || a.page.path.localeCompare(b.page.path)).slice(0, limit);
  }

  /** Whether some searchable field holds the stem exactly (or, with exact false, a word starting with it). */
  private hasTerm(stem: string, exact: boolean): boolean {
    return this.radixNodes().some((node) => Object.keys(node.find({ term: stem, exact })).length > 0);
  }

  private radixNodes(): RadixNode[] {
    const indexes = (this.db.data.index as unknown as { indexes: Record<string, { node: RadixNode }> }).indexes;
    return SEARCH_PROPERTIES.map((prop) => indexes[prop]?.node).filter((n): n is RadixNode => n !== undefined);
  }

  serialize(): RawData {
    return save(this.db);
  }

  /** The tokenizer this index uses, for highlighting with the same rules. */
  get tokenizer() {
    return this.db.tokenizer;
  }
}

function toDoc(page: PageSnapshot) {
  return {
    page_id: page.page_id,
    path: page.path,
    title: page.title,
    description: page.description,
    tags: page.tags,
    body: page.body,
  };
}
