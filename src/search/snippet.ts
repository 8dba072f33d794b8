import type { Tokenizer } from "@orama/orama";
import { normalizeWord } from "./tokenizer.ts";

const SNIPPET_CHARS = 200;
const LEAD_CHARS = 60;
const SCAN_CHARS = 20_000;
/** Raw Markdown kept before and after the anchor before cleaning (markup shrinks when cleaned). */
const RAW_LEAD = 400;
const RAW_TAIL = 1200;
const WORD = /[\p{L}\p{N}]+/gu;

const ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };
export const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (c) => ESCAPES[c]!);

/**
 * What to highlight: words whose normalized form starts with one of `prefixes` (the stems of the
 * words matched exactly or as a prefix, as Orama does), or is one of `words` (the indexed words a
 * misspelt query word matched with tolerance).
 */
export interface QueryTerms {
  prefixes: string[];
  words: Set<string>;
}

/** The first letters every highlighted word must share with a term: a cheap test before stemming. */
function headsOf(terms: QueryTerms): Set<string> {
  const heads = new Set<string>();
  for (const t of [...terms.prefixes, ...terms.words]) heads.add(t.slice(0, 3));
  return heads;
}

const foldDiacritics = (w: string) => (/^[\x00-\x7f]*$/.test(w) ? w : w.normalize("NFD").replace(/\p{M}/gu, ""));

/**
 * A short excerpt of the page around the first matching word, with each matching word wrapped in
 * <mark>. Everything else is HTML-escaped, so a page body holding markup can never inject it into
 * the page that shows the results. Matching follows the index: same stemming, prefixes, and one
 * letter of slack for long words.
 */
export function buildSnippet(tokenizer: Tokenizer, text: string, terms: QueryTerms): string {
  const heads = headsOf(terms);
  const matches = (word: string) => {
    const lower = foldDiacritics(word.toLowerCase());
    if (!heads.has(lower.slice(0, 3)) && !heads.has(lower.slice(0, 2)) && !heads.has(lower.slice(0, 1))) return false;
    const norm = normalizeWord(tokenizer, lower);
    if (norm === "") return false;
    return terms.words.has(norm) || terms.prefixes.some((p) => norm.startsWith(p));
  };
  // The anchor is looked for in the raw Markdown (only near the top of long pages), and only the
  // stretch around it is turned into plain text: cleaning whole pages cost more than the search.
  let first = -1;
  for (const m of text.slice(0, SCAN_CHARS).matchAll(WORD)) {
    if (matches(m[0])) {
      first = m.index;
      break;
    }
  }
  const rawStart = first <= RAW_LEAD ? 0 : text.lastIndexOf("\n", first - RAW_LEAD) + 1 || first - RAW_LEAD;
  const rawEnd = Math.min(text.length, Math.max(first, 0) + RAW_TAIL);
  const plain = plainText(text.slice(rawStart, rawEnd));
  if (plain === "") return "";
  let anchor = 0;
  for (const m of plain.matchAll(WORD)) {
    if (matches(m[0])) {
      anchor = m.index;
      break;
    }
  }
  let start = anchor <= LEAD_CHARS ? 0 : anchor - LEAD_CHARS;
  if (start > 0) {
    const space = plain.indexOf(" ", start);
    if (space !== -1 && space < anchor) start = space + 1;
  }
  let end = Math.min(plain.length, start + SNIPPET_CHARS);
  if (end < plain.length) {
    const space = plain.lastIndexOf(" ", end);
    if (space > start + SNIPPET_CHARS / 2) end = space;
  }
  const window = plain.slice(start, end);
  let out = "";
  let last = 0;
  for (const m of window.matchAll(WORD)) {
    if (!matches(m[0])) continue;
    out += escapeHtml(window.slice(last, m.index)) + "<mark>" + escapeHtml(m[0]) + "</mark>";
    last = m.index + m[0].length;
  }
  out += escapeHtml(window.slice(last));
  const cutBefore = start > 0 || rawStart > 0;
  const cutAfter = end < plain.length || rawEnd < text.length;
  return (cutBefore ? "…" : "") + out + (cutAfter ? "…" : "");
}

/** Markdown reduced to readable text: no fences, heading marks, emphasis or link targets. */
function plainText(markdown: string): string {
  return markdown
    .replace(/^```.*$/gm, " ")
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/\[\[([^\]|#]+)(?:#[^\]|]*)?(?:\|([^\]]*))?\]\]/g, (_m, target: string, text?: string) => text ?? target)
    .replace(/^\s{0,3}(#{1,6}|>|[-*+]|\d+\.)\s+/gm, "")
    .replace(/[*_`~]+/g, "")
    .replace(/\s+/g, " ")
    .trim();
}
