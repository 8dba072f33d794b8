/**
 * Inline content (text with marks, hard breaks, images) → Markdown, with the escaping that makes
 * the written text read back as the same text. Shared by block serialization (serialize.ts) and
 * table cells (table.ts).
 */
import type { PMMark, PMNode } from "./pm.ts";
import { badgeMarkdown } from "./badge.ts";
import { parseImgTag, withAlt } from "./image-html.ts";

// Marks open outermost first; code is innermost because nothing can nest inside a code span.
const MARK_ORDER = ["link", "bold", "italic", "strike", "code"];
const DELIM: Record<string, string> = { bold: "**", italic: "*", strike: "~~" };

function sameMark(a: PMMark, b: PMMark): boolean {
  if (a.type !== b.type) return false;
  if (a.type !== "link") return true;
  return a.attrs?.href === b.attrs?.href && (a.attrs?.title ?? null) === (b.attrs?.title ?? null);
}

function sortedMarks(marks: PMMark[] | undefined): PMMark[] {
  // Most text has no mark or one: nothing to sort (this runs for every text node of a page).
  if (!marks || marks.length === 0) return [];
  if (marks.length === 1) return MARK_ORDER.includes(marks[0]!.type) ? [marks[0]!] : [];
  return [...marks]
    .filter((m) => MARK_ORDER.includes(m.type))
    .sort((a, b) => MARK_ORDER.indexOf(a.type) - MARK_ORDER.indexOf(b.type));
}

/** Wikilinks, inline components and inline math, as the site's renderer finds them (src/publish/render/directives.ts). */
export const QUIRE_INLINE = /(\[\[[^\[\]\n]+\]\]|:[a-zA-Z][\w-]*\[[^\[\]\n]*\](?:\{[^{}\n]*\})?|\$\$(?!\s)(?:\\.|[^\\$\n])+?\$\$|\$(?![\s$])(?:\\.|[^\\$\n])*?[^\\\s$]\$(?!\d)|\$[^\s$\\]\$(?!\d))/;

/**
 * Escapes characters that would otherwise start Markdown syntax. `atLineStart`: the text begins a
 * line of the block (lines after a "\n" inside the text always do).
 */
function escapeText(text: string, atLineStart = true): string {
  // Most text nodes hold none of the characters anything below escapes: return them as they are
  // (opening a long page serializes every text node once, for the faithfulness check).
  if (!NEEDS_ESCAPE.test(text) && !(atLineStart && LINE_START.test(text))) return text;
  // Quire's own inline syntax — wikilinks, inline components (`:badge[New]{variant=info}`) and
  // math (`$x^2$`) — is read by the renderer before Markdown escapes are: keep it verbatim.
  const parts = text.split(QUIRE_INLINE);
  if (parts.length > 1) {
    return parts.map((part, i) => (i % 2 === 1 ? part : escapeText(part, i === 0 ? atLineStart : false))).join("");
  }
  const inline = text
    .replace(/\\/g, "\\\\")
    .replace(/[*`[\]<~]/g, (c) => "\\" + c)
    .replace(/&(?=#?[A-Za-z0-9]+;)/g, "&amp;")
    // `_` only starts emphasis at a word boundary; inside snake_case words it is left alone.
    .replace(/_/g, (c, i: number, s: string) => (/[A-Za-z0-9]/.test(s[i - 1] ?? "") && /[A-Za-z0-9]/.test(s[i + 1] ?? "") ? c : "\\" + c));
  return inline
    .split("\n")
    .map((line, i) => (i === 0 && !atLineStart ? line : escapeLineStart(line)))
    .join("\n");
}

/** Characters the escapes below (or Quire's inline syntax) start with; a line end starts a line. */
const NEEDS_ESCAPE = /[\\*`[\]<~&_$:\n]/;
/** What `escapeLineStart` can escape: a line beginning, after up to three spaces, with one of these. */
const LINE_START = /^ {0,3}[#>+=\d-]/;

function escapeLineStart(line: string): string {
  return line
    .replace(/^( {0,3})(#{1,6})(?=\s|$)/, "$1\\$2")
    .replace(/^( {0,3})>/, "$1\\>")
    .replace(/^( {0,3})([-+])(?=\s|$)/, "$1\\$2")
    .replace(/^( {0,3})([=-])(?=[=-]*\s*$)/, "$1\\$2")
    .replace(/^( {0,3}\d{1,9})([.)])(?=\s|$)/, "$1\\$2");
}

function codeSpan(text: string): string {
  const runs = text.match(/`+/g) ?? [];
  const longest = runs.reduce((n, r) => Math.max(n, r.length), 0);
  const fence = "`".repeat(longest + 1);
  const pad = text.startsWith("`") || text.endsWith("`") || (/^ .* $/.test(text) && text.trim() !== "") ? " " : "";
  return fence + pad + text + pad + fence;
}

function linkDestination(href: string): string {
  const escaped = href.replace(/\\/g, "\\\\");
  return /[\s()<>]/.test(href) ? `<${escaped.replace(/[<>]/g, (c) => encodeURIComponent(c))}>` : escaped;
}

function linkTail(attrs: Record<string, unknown> | undefined): string {
  const href = String(attrs?.href ?? "");
  const title = attrs?.title ? ` "${String(attrs.title).replace(/["\\]/g, (c) => "\\" + c)}"` : "";
  return `](${linkDestination(href)}${title})`;
}

const isWhitespace = (ch: string | undefined) => ch !== undefined && /\s/u.test(ch);
// CommonMark 0.31 counts Unicode punctuation and symbols as punctuation for emphasis (marked agrees).
const isPunctuation = (ch: string | undefined) => ch !== undefined && /[\p{P}\p{S}]/u.test(ch);

/** The code point ending just before `at` (surrogate pairs taken whole), with its start index. */
function charBefore(text: string, at: number): { ch: string; at: number } | undefined {
  if (at <= 0) return undefined;
  const start = at >= 2 && /[\udc00-\udfff]/.test(text[at - 1]!) && /[\ud800-\udbff]/.test(text[at - 2]!) ? at - 2 : at - 1;
  return { ch: text.slice(start, at), at: start };
}

function charAt(text: string, at: number): { ch: string; at: number } | undefined {
  if (at >= text.length) return undefined;
  return { ch: String.fromCodePoint(text.codePointAt(at)!), at };
}

/**
 * An emphasis delimiter (`*`, `**`, `~~`) only opens when the text inside does not start with
 * punctuation right after a letter outside (CommonMark's left-flanking rule), and only closes when
 * the text inside does not end with punctuation right before a letter outside (right-flanking):
 * `**Note:**text` and `a**(x)**b` stay literal asterisks. The letter outside is then written as a
 * character reference (`&#x74;`), which counts as punctuation for the rule and reads back as the
 * same letter. `runs` marks which characters of `out` are delimiters that open or close.
 */
function keepDelimitersFlanking(out: string, runs: Array<"open" | "close" | undefined>): string {
  const encode = new Set<number>();
  for (let i = 0; i < out.length; ) {
    if (!runs[i]) {
      i++;
      continue;
    }
    // One delimiter run: the same character repeated, whatever marks it opens or closes.
    let j = i;
    let opens = false;
    let closes = false;
    while (j < out.length && runs[j] && out[j] === out[i]) {
      if (runs[j] === "open") opens = true;
      else closes = true;
      j++;
    }
    const before = charBefore(out, i);
    const after = charAt(out, j);
    // An emoji outside counts as a letter: marked judges it by half of its surrogate pair.
    const plain = (c: { ch: string } | undefined) => c !== undefined && !isWhitespace(c.ch) && (!isPunctuation(c.ch) || c.ch.length > 1);
    if (opens && isPunctuation(after?.ch) && plain(before)) encode.add(before!.at);
    if (closes && isPunctuation(before?.ch) && plain(after)) encode.add(after!.at);
    i = j;
  }
  let fixed = out;
  for (const at of [...encode].sort((a, b) => b - a)) {
    const cp = fixed.codePointAt(at)!;
    fixed = fixed.slice(0, at) + `&#x${cp.toString(16).toUpperCase()};` + fixed.slice(at + String.fromCodePoint(cp).length);
  }
  return fixed;
}

/** A wikilink node's Markdown: `[[target]]` or `[[target|label]]`. */
function wikilinkText(attrs: Record<string, unknown> | undefined): string {
  const target = String(attrs?.target ?? "");
  return attrs?.label ? `[[${target}|${String(attrs.label)}]]` : `[[${target}]]`;
}

/** Inline content (text with marks, hard breaks, images, wikilinks, badges) → Markdown. */
export function serializeInline(nodes: PMNode[] | undefined): string {
  const items = nodes ?? [];
  let out = "";
  let open: PMMark[] = [];
  // Which characters of `out` are emphasis delimiters, and whether each opens or closes.
  const runs: Array<"open" | "close" | undefined> = [];
  const delimiter = (text: string, role: "open" | "close") => {
    for (let k = 0; k < text.length; k++) runs[out.length + k] = role;
    out += text;
  };

  const close = (keep: number) => {
    // Closing delimiters must hug the text: move trailing spaces after them.
    const trailing = /\s*$/.exec(out)![0];
    out = out.slice(0, out.length - trailing.length);
    runs.length = Math.min(runs.length, out.length);
    for (let i = open.length - 1; i >= keep; i--) {
      const m = open[i]!;
      if (m.type === "link") out += linkTail(m.attrs);
      else delimiter(DELIM[m.type] ?? "", "close");
    }
    out += trailing;
    open = open.slice(0, keep);
  };

  const openMarks = (marks: PMMark[], keep: number) => {
    if (keep >= marks.length) return;
    for (const m of marks.slice(keep)) {
      if (m.type === "link") out += "[";
      else delimiter(DELIM[m.type] ?? "", "open");
    }
    open = marks;
  };

  for (let i = 0; i < items.length; i++) {
    const node = items[i]!;
    let marks = sortedMarks(node.marks).filter((m) => m.type !== "code");
    const isCode = (node.marks ?? []).some((m) => m.type === "code");
    let keep = 0;
    while (keep < open.length && keep < marks.length && sameMark(open[keep]!, marks[keep]!)) keep++;
    // Bold or italic spaces alone look like nothing, and `** **` would be literal asterisks:
    // whitespace carries on the marks already open but never opens new ones.
    if (node.type === "text" && !isCode && /^\s+$/.test(node.text ?? "")) {
      const own = marks;
      keep = 0;
      while (keep < open.length && own.some((m) => sameMark(m, open[keep]!))) keep++;
      marks = open.slice(0, keep);
    }
    if (keep < open.length) close(keep);

    if (node.type === "text") {
      let text = node.text ?? "";
      // A bare URL right after a delimiter would be read as a letter outside the emphasis; the
      // bracketed form starts with "[" instead.
      const afterDelimiter = out.length > 0 && runs[out.length - 1] !== undefined;
      const autolink = marks.length === 1 && marks[0]!.type === "link" && keep === 0 && !isCode && !afterDelimiter && marks[0]!.attrs?.href === text && /^https?:\/\/[^\s<>]+$/.test(text);
      const next = items[i + 1];
      const nextSameLink = autolink && next !== undefined && sortedMarks(next.marks).some((m) => sameMark(m, marks[0]!));
      if (autolink && !nextSameLink) {
        out += text;
        continue;
      }
      // Opening delimiters must hug the text too: leading spaces go before them.
      if (keep < marks.length) {
        const leading = /^\s*/.exec(text)![0];
        out += leading;
        text = text.slice(leading.length);
        openMarks(marks, keep);
      }
      if (isCode) {
        // Adjacent code-marked text nodes form one span.
        let code = text;
        while (items[i + 1]?.type === "text" && (items[i + 1]!.marks ?? []).some((m) => m.type === "code") && sortedMarks(items[i + 1]!.marks).filter((m) => m.type !== "code").length === marks.length) {
          i++;
          code += items[i]!.text ?? "";
        }
        out += codeSpan(code);
      } else {
        out += escapeText(text, out === "" || out.endsWith("\n"));
      }
    } else if (node.type === "hardBreak") {
      openMarks(marks, keep);
      out += "\\\n";
    } else if (node.type === "wikilink") {
      openMarks(marks, keep);
      out += wikilinkText(node.attrs);
    } else if (node.type === "badge") {
      openMarks(marks, keep);
      out += badgeMarkdown({ name: String(node.attrs?.name ?? "badge"), text: String(node.attrs?.text ?? ""), attrs: node.attrs?.attrs == null ? null : String(node.attrs.attrs) });
    } else if (node.type === "image" && typeof node.attrs?.html === "string" && parseImgTag(node.attrs.html)?.src === node.attrs.src) {
      // An image the file wrote as an `<img>` tag keeps its tag; only a new alt text is written into it.
      openMarks(marks, keep);
      const html = node.attrs.html;
      const alt = String(node.attrs.alt ?? "");
      out += parseImgTag(html)!.alt === alt ? html : withAlt(html, alt);
    } else if (node.type === "image") {
      openMarks(marks, keep);
      const alt = String(node.attrs?.alt ?? "").replace(/[[\]\\]/g, (c) => "\\" + c);
      out += `![${alt}` + linkTail({ href: node.attrs?.src, title: node.attrs?.title });
    }
  }
  close(0);
  return keepDelimitersFlanking(out, runs);
}
