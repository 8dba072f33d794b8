import type { Tokenizer } from "@orama/orama";
import { normalizeWord } from "./tokenizer.ts";
import type { QueryPlan } from "./workspace-index.ts";

const SNIPPET_CHARS = 200;
const LEAD_CHARS = 60;
const WORD = /[\p{L}\p{N}]+/gu;

const ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };
export const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (c) => ESCAPES[c]!);

/** A query word as the index sees it, plus whether one-letter slips may match it. */
export interface QueryTerm {
  stem: string;
  fuzzy: boolean;
}

export function queryTerms(tokenizer: Tokenizer, plan: QueryPlan): QueryTerm[] {
  const terms: QueryTerm[] = [];
  for (const word of plan.exact) {
    const stem = normalizeWord(tokenizer, word);
    if (stem !== "") terms.push({ stem, fuzzy: false });
  }
  for (const word of plan.fuzzy) {
    const stem = normalizeWord(tokenizer, word);
    if (stem !== "") terms.push({ stem, fuzzy: true });
  }
  return terms;
}

/**
 * A short excerpt of the page around the first matching word, with each matching word wrapped in
 * <mark>. Everything else is HTML-escaped, so a page body holding markup can never inject it into
 * the page that shows the results. Matching follows the index: same stemming, prefixes, and one
 * letter of slack for long words.
 */
export function buildSnippet(tokenizer: Tokenizer, text: string, terms: QueryTerm[]): string {
  const plain = plainText(text);
  if (plain === "") return "";
  const matches = (word: string) => {
    const norm = normalizeWord(tokenizer, word);
    if (norm === "") return false;
    return terms.some((t) => norm.startsWith(t.stem) || (t.fuzzy && withinOneEdit(norm, t.stem)));
  };
  let first = -1;
  for (const m of plain.matchAll(WORD)) {
    if (matches(m[0])) {
      first = m.index;
      break;
    }
  }
  let start = first <= LEAD_CHARS ? 0 : first - LEAD_CHARS;
  if (start > 0) {
    const space = plain.indexOf(" ", start);
    if (space !== -1 && space < first) start = space + 1;
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
  return (start > 0 ? "…" : "") + out + (end < plain.length ? "…" : "");
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

/** True when a and b differ by at most one inserted, deleted or substituted character. */
export function withinOneEdit(a: string, b: string): boolean {
  if (a === b) return true;
  if (Math.abs(a.length - b.length) > 1) return false;
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  if (a.length === b.length) return a.slice(i + 1) === b.slice(i + 1);
  return a.length > b.length ? a.slice(i + 1) === b.slice(i) : a.slice(i) === b.slice(i + 1);
}
