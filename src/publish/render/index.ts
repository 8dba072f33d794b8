/**
 * The one Markdown renderer of published pages: the /p/ site, the export and the preview all call
 * `renderMarkdown`, each with its own `resolveLink` (site URLs, relative file names, preview URLs).
 * Output is sanitized HTML (see sanitize.ts for the policy) plus what the page needs around it:
 * its headings (ids unique per page), whether it holds diagrams, math or code (so the site loads
 * Mermaid or the KaTeX stylesheet only where needed), and notices for components written wrong.
 */
import { textOf } from "./escape.ts";
import { fillTocs } from "./components.ts";
import { resetDirectiveDepth } from "./directives.ts";
import { createMarked } from "./markdown.ts";
import { sanitizePage, stripPlaceholderMarks } from "./sanitize.ts";
import { beginRender, endRender, notice } from "./state.ts";
import type { RenderOptions, RenderResult } from "./types.ts";

export type { Heading, LinkTarget, RenderNotice, RenderOptions, RenderResult } from "./types.ts";

let instance: ReturnType<typeof createMarked> | null = null;

function marked(): ReturnType<typeof createMarked> {
  instance ??= createMarked();
  return instance;
}

/** Renders a page body (frontmatter already removed). Never throws for anything the page says. */
export function renderMarkdown(markdown: string, opts: RenderOptions): RenderResult {
  const source = stripPlaceholderMarks(markdown.replace(/\r\n?/g, "\n"));
  const state = beginRender(source, opts);
  resetDirectiveDepth();
  try {
    let html: string;
    try {
      html = marked().parse(source, { async: false }) as string;
    } catch (error) {
      // A renderer bug must not take the page down: show the text, say what happened.
      state.headings.length = 0;
      html = notice("page", `the page could not be rendered (${error instanceof Error ? error.message : String(error)}); its text is shown as written`) +
        `<pre class="render-fallback">${source.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;")}</pre>`;
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

/** The readable text of rendered HTML (search snippets, llms-full.txt): tags removed, whitespace collapsed. */
export function extractText(html: string): string {
  return textOf(html);
}
