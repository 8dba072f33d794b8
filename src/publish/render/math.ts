import katex from "katex";
import { escapeHtml } from "../../core/escape.ts";
import { current, notice, trust } from "./state.ts";

/**
 * KaTeX on the server. `trust: false` keeps \href, \url, \includegraphics and \htmlClass from
 * producing links or attributes; a parse error renders KaTeX's own red error span with the source
 * (never throws). KaTeX's inline `style` attributes are why its markup bypasses the sanitizer
 * (trusted; the site's CSP allows them with `style-src-attr`). Output is memoized per formula: a
 * page re-rendered after an edit usually keeps most of its formulas.
 */
const MEMO_LIMIT = 2000;
const memo = new Map<string, string>();
/** Formulas KaTeX typesets per page (about 0.1–0.5 ms each); the rest show their TeX as code. */
const MAX_FORMULAS = 2000;
/** A formula longer than this is shown as TeX: KaTeX's time grows with it. */
const MAX_FORMULA_CHARS = 10_000;

export function renderMath(tex: string, display: boolean): string {
  const s = current();
  s.hasMath = true;
  const key = (display ? "D" : "I") + tex;
  let html = memo.get(key);
  if (html === undefined && (++s.formulas > MAX_FORMULAS || tex.length > MAX_FORMULA_CHARS)) {
    const why = tex.length > MAX_FORMULA_CHARS ? `a formula longer than ${MAX_FORMULA_CHARS} characters` : `more than ${MAX_FORMULAS} formulas on the page`;
    const warn = s.mathLimitNoticed ? "" : notice("katex", `${why}: shown as TeX source`, undefined, !display);
    s.mathLimitNoticed = true;
    const code = `<code class="math-source">${escapeHtml(tex)}</code>`;
    return warn + trust(display ? `<pre class="math math-display">${code}</pre>\n` : `<span class="math math-inline">${code}</span>`);
  }
  if (html === undefined) {
    try {
      html = katex.renderToString(tex, { displayMode: display, throwOnError: false, trust: false, strict: "ignore", maxExpand: 1000, maxSize: 50, output: "htmlAndMathml" });
    } catch (error) {
      // throwOnError:false covers parse errors; anything else (a KaTeX bug) still must not break the page.
      void error;
      html = `<code class="katex-error">${escapeHtml(tex)}</code>`;
    }
    if (memo.size >= MEMO_LIMIT) memo.delete(memo.keys().next().value!);
    memo.set(key, html);
  }
  return trust(display ? `<div class="math math-display">${html}</div>\n` : `<span class="math math-inline">${html}</span>`);
}
