/**
 * The export's own site search (docs/architecture.md §2: "an export ships its own prebuilt JavaScript index
 * that works from file://"). A browser opening a page from file:// may not fetch() other files, but
 * it may load scripts, so the index is a set of scripts that call `window.__quireSearchLoad(name,
 * data)`: `_quire/search/docs.js` (per page: url, title, snippet) and one shard per first character
 * of the terms (`_quire/search/t-a.js` …), loaded on demand by `_quire/search.js`. A query loads the
 * docs table once and only the shards its words start with, so a 10,000-page site costs a search a
 * few hundred kilobytes, not the whole index.
 *
 * Each term keeps its best TERM_POSTINGS pages (title hits weigh most, then headings, then text):
 * memory stays bounded by the vocabulary while the export streams pages, and a word found on more
 * pages than that is not what distinguishes the page a reader wants.
 */
const TERM_POSTINGS = 64;
const MAX_TERM = 32;
const SNIPPET = 180;

const NON_ASCII = /[^\x00-\x7f]/;

function tokenize(text: string): string[] {
  const lower = text.toLowerCase();
  // Folding accents (NFKD, then dropping the combining marks) changes nothing in ASCII text: skipped there.
  const folded = NON_ASCII.test(lower) ? lower.normalize("NFKD").replace(/[\u0300-\u036f]/g, "") : lower;
  return (folded.match(/[\p{L}\p{N}]+/gu) ?? []).filter(
    (t) => t.length >= 2 && t.length <= MAX_TERM,
  );
}

/** The shard a term lives in: its first character when it is a-z or 0-9, `_` otherwise. */
function shardOf(term: string): string {
  const c = term.charAt(0);
  return /[a-z0-9]/.test(c) ? c : "_";
}

interface SearchPage {
  url: string;
  title: string;
  headings: string[];
  text: string;
  description: string;
}

/** One page's share of the index, before it has a number: its docs row and its terms with their scores. */
export interface ScoredPage {
  doc: [string, string, string];
  terms: string[];
  scores: number[];
}

/** A page's docs row and term scores: the costly half of `add`, which any thread may do. */
export function scorePage(page: SearchPage): ScoredPage {
  const snippet = (page.description.trim() || page.text.trim()).replace(/\s+/g, " ");
  const cut = snippet.length > SNIPPET ? snippet.slice(0, SNIPPET - 1).trimEnd() + "…" : snippet;
  // The site's search dialog reads snippets as escaped text (with <mark> around matches, as the
  // /p/ search sends them), so the text is escaped here.
  const doc: [string, string, string] = [page.url, page.title, cut.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;")];
  const counts = new Map<string, number>();
  const count = (text: string, weight: number) => {
    for (const t of tokenize(text)) counts.set(t, (counts.get(t) ?? 0) + weight);
  };
  count(page.title, 10);
  count(page.headings.join(" "), 3);
  count(page.description, 2);
  count(page.text, 1);
  const terms: string[] = [];
  const scores: number[] = [];
  for (const [term, score] of counts) {
    terms.push(term);
    scores.push(Math.round(Math.log2(1 + score) * 100) / 100);
  }
  return { doc, terms, scores };
}

export class SearchIndexBuilder {
  private readonly docs: Array<[string, string, string]> = [];
  /** term → flat [doc, score, doc, score, …], trimmed to the best TERM_POSTINGS now and then. */
  private readonly postings = new Map<string, number[]>();

  add(page: SearchPage): void {
    this.addScored(scorePage(page));
  }

  /** Adds a scored page as the next document (pages are numbered in the order added). */
  addScored(page: ScoredPage): void {
    const doc = this.docs.length;
    this.docs.push(page.doc);
    for (let i = 0; i < page.terms.length; i++) {
      const term = page.terms[i]!;
      let list = this.postings.get(term);
      if (!list) this.postings.set(term, (list = []));
      list.push(doc, page.scores[i]!);
      if (list.length >= TERM_POSTINGS * 4) trim(list);
    }
  }

  /** The index files, ZIP path → script text; deterministic (terms sorted, pages in the order added). */
  files(): Array<{ path: string; text: string }> {
    const shards = new Map<string, Array<[string, number[]]>>();
    for (const term of [...this.postings.keys()].sort()) {
      const list = this.postings.get(term)!;
      trim(list);
      const shard = shardOf(term);
      if (!shards.has(shard)) shards.set(shard, []);
      shards.get(shard)!.push([term, list]);
    }
    const out = [{ path: "_quire/search/docs.js", text: script("docs", JSON.stringify(this.docs)) }];
    for (const [shard, entries] of [...shards].sort(([a], [b]) => (a < b ? -1 : 1))) {
      out.push({ path: `_quire/search/t-${shard}.js`, text: script(shard, JSON.stringify(Object.fromEntries(entries))) });
    }
    return out;
  }
}

/** Keeps the best TERM_POSTINGS (doc, score) pairs, ordered by doc. */
function trim(list: number[]): void {
  if (list.length <= TERM_POSTINGS * 2) return;
  const pairs: Array<[number, number]> = [];
  for (let i = 0; i < list.length; i += 2) pairs.push([list[i]!, list[i + 1]!]);
  pairs.sort((a, b) => b[1] - a[1] || a[0] - b[0]);
  const kept = pairs.slice(0, TERM_POSTINGS).sort((a, b) => a[0] - b[0]);
  list.length = 0;
  for (const [d, s] of kept) list.push(d, s);
}

function script(name: string, json: string): string {
  // JSON is JavaScript, but U+2028/2029 were not inside strings before ES2019; escape them anyway.
  return `window.__quireSearchLoad(${JSON.stringify(name)},${json.replace(/\u2028/g, "\\u2028").replace(/\u2029/g, "\\u2029")});\n`;
}
