import Prism from "prismjs";
import { escapeHtml } from "../../core/escape.ts";
import { PRISM_ALIASES, PRISM_LANGUAGES } from "./prism-languages.ts";

/**
 * Fenced code blocks: Prism's class-based highlighting (no inline styles; 297 languages, each
 * loaded on first use — docs/decisions/highlighting.md), one `<span class="line">` per line (line
 * numbers come from a CSS counter, so copying the code copies no numbers), an optional title, line
 * highlights, and a copy button the site's script wires up. The info string is author input: only
 * its first word names the language, `title="…"` and `{1,3-5}` are read, everything is escaped.
 */
interface CodeInfo {
  lang: string;
  title?: string;
  highlights: Set<number>;
  lineNumbers: boolean;
}

/** The most lines a `{a-b}` range may mark (a range like {1-999999999} must not allocate forever). */
const MAX_HIGHLIGHTS = 10_000;

export function parseInfo(info: string | undefined): CodeInfo {
  const raw = (info ?? "").trim();
  const result: CodeInfo = { lang: "", highlights: new Set(), lineNumbers: true };
  if (raw === "") return result;
  const first = /^[^\s{]+/.exec(raw);
  if (first && !first[0].includes("=")) result.lang = first[0];
  const title = /(?:^|\s)title=(?:"([^"]*)"|'([^']*)'|(\S+))/.exec(raw);
  if (title) result.title = (title[1] ?? title[2] ?? title[3] ?? "").slice(0, 200);
  const ranges = /\{([\d,\s-]*)\}/.exec(raw);
  if (ranges) {
    for (const part of ranges[1]!.split(",")) {
      const m = /^\s*(\d{1,7})\s*(?:-\s*(\d{1,7}))?\s*$/.exec(part);
      if (!m) continue;
      const from = Number(m[1]);
      const to = Math.min(m[2] === undefined ? from : Number(m[2]), from + MAX_HIGHLIGHTS);
      for (let n = from; n <= to && result.highlights.size < MAX_HIGHLIGHTS; n++) result.highlights.add(n);
    }
  }
  if (/(?:^|\s)(?:nolinenumbers|showLineNumbers=false)(?:\s|$)/i.test(raw)) result.lineNumbers = false;
  return result;
}

const loaded = new Set(["markup", "css", "clike", "javascript"]);

/** The Prism grammar for a language name or alias, loading it (and what it needs) on first use. */
function grammarFor(lang: string): { id: string; grammar: Prism.Grammar } | null {
  const name = lang.toLowerCase();
  if (!/^[a-z0-9+#_-]{1,40}$/.test(name)) return null;
  const id = Object.hasOwn(PRISM_LANGUAGES, name) ? name : Object.hasOwn(PRISM_ALIASES, name) ? PRISM_ALIASES[name]! : null;
  if (id === null) return null;
  try {
    load(id, 0);
  } catch {
    return null;
  }
  const grammar = Prism.languages[id] ?? Prism.languages[name];
  return grammar ? { id, grammar } : null;
}

function load(id: string, depth: number): void {
  if (loaded.has(id) || depth > 10) return;
  const entry = PRISM_LANGUAGES[id];
  if (!entry) return;
  for (const dep of entry.requires) load(dep, depth + 1);
  entry.load();
  loaded.add(id);
}

/** Splits highlighted HTML into lines, closing the spans open at each line end and reopening them after. */
function splitLines(html: string): string[] {
  const lines: string[] = [];
  const open: string[] = [];
  let line = "";
  const tag = /<span[^>]*>|<\/span>|\n/g;
  let last = 0;
  for (let m = tag.exec(html); m !== null; m = tag.exec(html)) {
    line += html.slice(last, m.index);
    last = m.index + m[0].length;
    if (m[0] === "\n") {
      lines.push(line + "</span>".repeat(open.length));
      line = open.join("");
    } else if (m[0] === "</span>") {
      open.pop();
      line += m[0];
    } else {
      open.push(m[0]);
      line += m[0];
    }
  }
  lines.push(line + html.slice(last));
  return lines;
}

/**
 * Blocks longer than this are shown unhighlighted: Prism's time grows with the text (and a few
 * grammars backtrack badly on crafted input), and a published page must render in bounded time.
 */
const MAX_HIGHLIGHT_CHARS = 100_000;

/** The block's HTML (trusted: built from escaped parts and Prism's own span markup). */
export function renderCodeBlock(code: string, info: CodeInfo): string {
  const found = info.lang === "" || code.length > MAX_HIGHLIGHT_CHARS ? null : grammarFor(info.lang);
  let body: string;
  if (found) {
    try {
      body = Prism.highlight(code, found.grammar, found.id);
    } catch {
      body = escapeHtml(code);
    }
  } else {
    body = escapeHtml(code);
  }
  const lines = code === "" ? [] : splitLines(body);
  const inner = lines
    .map((l, i) => `<span class="line${info.highlights.has(i + 1) ? " highlighted" : ""}">${l}</span>`)
    .join("\n");
  const langClass = info.lang === "" ? "" : ` class="language-${escapeHtml(info.lang)}"`;
  const preClasses = [info.lang === "" ? "language-none" : `language-${escapeHtml(info.lang)}`];
  if (info.lineNumbers && lines.length > 1) preClasses.push("line-numbers");
  const title = info.title ? `<figcaption class="code-title">${escapeHtml(info.title)}</figcaption>` : "";
  const dataLang = info.lang === "" ? "" : ` data-lang="${escapeHtml(info.lang)}"`;
  return (
    `<figure class="code-block"${dataLang}>${title}` +
    `<button class="copy-code" type="button" data-copy aria-label="Copy code">Copy</button>` +
    // Focusable: a keyboard reader scrolls a block wider than the column with the arrow keys.
    `<pre class="${preClasses.join(" ")}" tabindex="0"><code${langClass}>${inner}${lines.length > 0 ? "\n" : ""}</code></pre></figure>\n`
  );
}
