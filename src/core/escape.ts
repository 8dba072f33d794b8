/**
 * HTML escaping, the one copy every domain uses (pages, sites, snippets, emails). Lone UTF-16
 * surrogates (from a broken title) become U+FFFD first: nothing that reaches HTML, XML or JSON may
 * carry one.
 */
const HTML: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };
const HTML_SPECIAL = /[&<>"']/;

/** Lone surrogates → U+FFFD (String.prototype.toWellFormed). */
export function wellFormed(text: string): string {
  return text.toWellFormed();
}

/** HTML text and attribute values (double- or single-quoted): the five characters that matter in either place. */
export function escapeHtml(text: string): string {
  // Most strings (titles, relative URLs) need nothing: skip the copies.
  if (!HTML_SPECIAL.test(text) && text.isWellFormed()) return text;
  return wellFormed(text).replace(/[&<>"']/g, (c) => HTML[c]!);
}
