/**
 * The one Markdown renderer of published pages: the /p/ site, the export and the preview all call
 * `renderMarkdown`, each with its own `resolveLink` (site URLs, relative file names, preview URLs).
 * Output is sanitized HTML (see sanitize.ts for the policy) plus what the page needs around it:
 * its headings (ids unique per page), whether it holds diagrams, math or code (so the site loads
 * Mermaid or the KaTeX stylesheet only where needed), and notices for components written wrong.
 */
import { escapeHtml } from "../../core/escape.ts";
import { textOf } from "./escape.ts";
import { fillTocs } from "./components.ts";
import { createMarked } from "./markdown.ts";
import { sanitizePage, stripPlaceholderMarks } from "./sanitize.ts";
import { beginRender, endRender, notice, trust } from "./state.ts";
import type { RenderOptions, RenderResult } from "./types.ts";

export type { LinkTarget, RenderOptions, RenderResult } from "./types.ts";

/**
 * Markdown longer than this is not parsed: the page shows a notice and its whole text, escaped,
 * in a <pre>. marked and the sanitizer are linear but not fast (about 1–2 MB/s together on one
 * core), and a published page must render in bounded time however big the file is; real
 * documentation pages are a few KB to a few hundred KB.
 */
export const MAX_RENDER_CHARS = 500_000;

/**
 * marked's time grows with the square of list nesting (500 levels: tens of seconds). A list item
 * indented this far is nested beyond any real document (50+ levels), and the page is shown as text.
 */
const MAX_LIST_INDENT = 200;

/** The first line (1-based) holding a list item indented past MAX_LIST_INDENT outside fenced code, or null. */
function deepListLine(source: string): number | null {
  if (source.length < MAX_LIST_INDENT) return null;
  const deep = new RegExp(`^[ \\t>]{${MAX_LIST_INDENT},}(?:[-*+]|\\d{1,9}[.)])(?:[ \\t]|$)`, "m");
  const m = deep.exec(source);
  if (!m) return null;
  // A match inside fenced code is code, not a list: check the fences before it.
  const before = source.slice(0, m.index);
  const fences = before.match(/^ {0,3}(?:`{3,}|~{3,})/gm)?.length ?? 0;
  if (fences % 2 === 1) return null;
  return before.split("\n").length;
}

let instance: ReturnType<typeof createMarked> | null = null;

function marked(): ReturnType<typeof createMarked> {
  instance ??= createMarked();
  return instance;
}

/** Renders a page body (frontmatter already removed). Never throws for anything the page says. */
export function renderMarkdown(markdown: string, opts: RenderOptions): RenderResult {
  const source = stripPlaceholderMarks(markdown.replace(/\r\n?/g, "\n"));
  const state = beginRender(source, opts);
  try {
    let html: string;
    const tooDeep = deepListLine(source);
    if (source.length > MAX_RENDER_CHARS) {
      html = asText(`the page is too large to render (${source.length.toLocaleString("en")} characters, the limit is ${MAX_RENDER_CHARS.toLocaleString("en")}); its text is shown as written`, source);
    } else if (tooDeep !== null) {
      html = asText(`a list on line ${tooDeep} is nested too deeply to render (more than ${MAX_LIST_INDENT} columns of indentation); the page's text is shown as written`, source);
    } else {
      try {
        html = marked().parse(source, { async: false }) as string;
      } catch (error) {
        // A renderer bug (or a stack exhausted by absurd nesting) must not take the page down.
        state.headings.length = 0;
        state.tocs.length = 0;
        html = asText(`the page could not be rendered (${error instanceof Error ? error.message : String(error)}); its text is shown as written`, source);
      }
    }
    fillTocs();
    return {
      html: sanitizePage(html, state.trusted),
      headings: state.headings,
      hasMermaid: state.hasMermaid,
      hasMath: state.hasMath,
      hasCode: state.hasCode,
      notices: state.notices,
    };
  } finally {
    endRender();
  }
}

function asText(message: string, source: string): string {
  return notice("page", message) + trust(`<pre class="render-fallback">${escapeHtml(source)}</pre>\n`);
}

/** The renderer's own markup that is not the page's text: KaTeX's rendering (its TeX annotation stays), anchors, buttons, the toc (a copy of the headings), notices. */
const NOT_TEXT = ".katex-html, .katex-mathml mrow, a.heading-anchor, button.copy-code, nav.toc, .render-notice, .footnotes > h2.sr-only";

/**
 * The readable text of rendered HTML (search snippets, llms-full.txt, descriptions): the
 * renderer's chrome removed (heading anchors, copy buttons, KaTeX's duplicate visual layer), tags
 * dropped with block boundaries kept as spaces, entities decoded, whitespace collapsed.
 */
export function extractText(html: string): string {
  const stripped = html.includes("class=") ? new HTMLRewriter().on(NOT_TEXT, { element: (e) => void e.remove() }).transform(html) : html;
  return textOf(stripped);
}
