import katex from "katex";
import { current, trust } from "./state.ts";

/**
 * KaTeX on the server. `trust: false` keeps \href, \url, \includegraphics and \htmlClass from
 * producing links or attributes; a parse error renders KaTeX's own red error span with the source
 * (never throws). KaTeX's inline `style` attributes are why its markup bypasses the sanitizer
 * (trusted; the site's CSP allows them with `style-src-attr`). Output is memoized per formula: a
 * page re-rendered after an edit usually keeps most of its formulas.
 */
const MEMO_LIMIT = 2000;
const memo = new Map<string, string>();

export function renderMath(tex: string, display: boolean): string {
  current().hasMath = true;
  const key = (display ? "D" : "I") + tex;
  let html = memo.get(key);
  if (html === undefined) {
    try {
      html = katex.renderToString(tex, { displayMode: display, throwOnError: false, trust: false, strict: "ignore", maxExpand: 1000, maxSize: 50, output: "htmlAndMathml" });
    } catch (error) {
      // throwOnError:false covers parse errors; anything else (a KaTeX bug) still must not break the page.
      html = `<code class="katex-error">${tex.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;")}</code>`;
      void error;
    }
    if (memo.size >= MEMO_LIMIT) memo.delete(memo.keys().next().value!);
    memo.set(key, html);
  }
  return trust(display ? `<div class="math math-display">${html}</div>\n` : `<span class="math math-inline">${html}</span>`);
}
