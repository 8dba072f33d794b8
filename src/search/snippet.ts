import { escapeHtml } from "../core/escape.ts";
import type { PageSnapshot } from "../core/event-bus.ts";


/** The private-use characters FTS5's snippet() is told to put around matches. */
export const MARK_OPEN = "\uE000";
export const MARK_CLOSE = "\uE001";
const MARKERS = /[\uE000\uE001]/g;

/**
 * FTS5's snippet, made safe to show as HTML: everything is escaped first, then the markers (which
 * indexed text can never contain, see indexedText) become <mark>…</mark>. A page body holding
 * markup therefore comes back as text, and only <mark> is ever markup.
 */
export function renderSnippet(marked: string): string {
  let open = false;
  const html = escapeHtml(marked).replace(MARKERS, (m) => {
    open = m === MARK_OPEN;
    return open ? "<mark>" : "</mark>";
  });
  return open ? html + "</mark>" : html;
}

/** What the FTS5 columns hold for a page: plain text, with the snippet markers removed. */
export function indexedText(page: PageSnapshot) {
  const clean = (s: string) => s.replace(MARKERS, " ");
  return {
    title: clean(page.title),
    tags: clean(page.tags.join(" ")),
    description: clean(page.description),
    body: clean(plainText(page.body)),
    // The folders and file name, without the extension every page shares.
    path: clean(page.path.replace(/\.md$/i, "")),
  };
}

/**
 * Markdown reduced to readable text: no fences, heading marks, emphasis or link targets. Indexing
 * this rather than the raw Markdown keeps URLs and markup out of the vocabulary, and lets
 * snippets quote prose ("the deployment pipeline", not "the **deployment** pipeline").
 */
function plainText(markdown: string): string {
  return markdown
    .replace(/^(```|~~~).*$/gm, " ")
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/\[\[([^\]|#]+)(?:#[^\]|]*)?(?:\|([^\]]*))?\]\]/g, (_m, target: string, text?: string) => text ?? target)
    .replace(/^\s{0,3}(#{1,6}|>|[-*+]|\d+\.)\s+/gm, "")
    .replace(/[*`~]+/g, "")
    // An underscore separates words for the tokenizer anyway; removing it would glue "api_key" together.
    .replace(/_+/g, " ")
    .replace(/\s+/g, " ")
    .trim();
}
