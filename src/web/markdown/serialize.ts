/**
 * ProseMirror JSON → Markdown, for the blocks a person changed in the rich editor. Unchanged
 * blocks never come through here (merge.ts keeps their source bytes); a changed block is written
 * in the style of the block it replaces where the editor cannot remember it (bullet character,
 * ordered-list delimiter, tight or loose lists, fence characters).
 */
import type { PMMark, PMNode } from "./pm.ts";
import type { SourceBlock } from "./split.ts";

export interface StyleHint {
  bullet?: string;
  delimiter?: "." | ")";
  loose?: boolean;
  fence?: "`" | "~";
}

export function hintFrom(block: SourceBlock | undefined): StyleHint {
  if (!block) return {};
  const t = block.text.trimStart();
  const hint: StyleHint = {};
  if (block.kind === "list") {
    const m = /^([-*+])|^\d+([.)])/.exec(t);
    if (m?.[1]) hint.bullet = m[1];
    if (m?.[2]) hint.delimiter = m[2] as "." | ")";
    const token = block.token as { loose?: boolean } | undefined;
    if (token?.loose) hint.loose = true;
  }
  if (block.kind === "code" && t.startsWith("~~~")) hint.fence = "~";
  return hint;
}

// Marks open outermost first; code is innermost because nothing can nest inside a code span.
const MARK_ORDER = ["link", "bold", "italic", "strike", "code"];
const DELIM: Record<string, string> = { bold: "**", italic: "*", strike: "~~" };

function sameMark(a: PMMark, b: PMMark): boolean {
  if (a.type !== b.type) return false;
  if (a.type !== "link") return true;
  return a.attrs?.href === b.attrs?.href && (a.attrs?.title ?? null) === (b.attrs?.title ?? null);
}

function sortedMarks(marks: PMMark[] | undefined): PMMark[] {
  return [...(marks ?? [])]
    .filter((m) => MARK_ORDER.includes(m.type))
    .sort((a, b) => MARK_ORDER.indexOf(a.type) - MARK_ORDER.indexOf(b.type));
}

/**
 * Escapes characters that would otherwise start Markdown syntax. `atLineStart`: the text begins a
 * line of the block (lines after a "\n" inside the text always do).
 */
export function escapeText(text: string, atLineStart = true): string {
  // Wikilinks ([[path]], [[path|text]]) are Quire syntax found by scanning the file: keep them verbatim.
  const parts = text.split(/(\[\[[^\[\]\n]+\]\])/);
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

/** Inline content (text with marks, hard breaks, images) → Markdown. */
export function serializeInline(nodes: PMNode[] | undefined): string {
  const items = nodes ?? [];
  let out = "";
  let open: PMMark[] = [];

  const close = (keep: number) => {
    // Closing delimiters must hug the text: move trailing spaces after them.
    const trailing = /\s*$/.exec(out)![0];
    out = out.slice(0, out.length - trailing.length);
    for (let i = open.length - 1; i >= keep; i--) {
      const m = open[i]!;
      out += m.type === "link" ? linkTail(m.attrs) : (DELIM[m.type] ?? "");
    }
    out += trailing;
    open = open.slice(0, keep);
  };

  for (let i = 0; i < items.length; i++) {
    const node = items[i]!;
    const marks = sortedMarks(node.marks).filter((m) => m.type !== "code");
    const isCode = (node.marks ?? []).some((m) => m.type === "code");
    let keep = 0;
    while (keep < open.length && keep < marks.length && sameMark(open[keep]!, marks[keep]!)) keep++;
    if (keep < open.length) close(keep);

    if (node.type === "text") {
      let text = node.text ?? "";
      const autolink = marks.length === 1 && marks[0]!.type === "link" && keep === 0 && !isCode && marks[0]!.attrs?.href === text && /^https?:\/\/[^\s<>]+$/.test(text);
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
        for (const m of marks.slice(keep)) out += m.type === "link" ? "[" : (DELIM[m.type] ?? "");
        open = marks;
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
      if (keep < marks.length) {
        for (const m of marks.slice(keep)) out += m.type === "link" ? "[" : (DELIM[m.type] ?? "");
        open = marks;
      }
      out += "\\\n";
    } else if (node.type === "image") {
      if (keep < marks.length) {
        for (const m of marks.slice(keep)) out += m.type === "link" ? "[" : (DELIM[m.type] ?? "");
        open = marks;
      }
      const alt = String(node.attrs?.alt ?? "").replace(/[[\]\\]/g, (c) => "\\" + c);
      out += `![${alt}` + linkTail({ href: node.attrs?.src, title: node.attrs?.title });
    }
  }
  close(0);
  return out;
}

function indentLines(text: string, prefix: string, firstPrefix: string): string {
  return text
    .split("\n")
    .map((line, i) => (i === 0 ? firstPrefix + line : line === "" ? "" : prefix + line))
    .join("\n");
}

function codeBlock(node: PMNode, hint: StyleHint): string {
  const text = node.content?.map((c) => c.text ?? "").join("") ?? "";
  const ch = hint.fence ?? "`";
  const runs = text.match(ch === "`" ? /`{3,}/g : /~{3,}/g) ?? [];
  const fence = ch.repeat(Math.max(3, ...runs.map((r) => r.length + 1)));
  const lang = node.attrs?.language ? String(node.attrs.language) : "";
  return `${fence}${lang}\n${text}${text === "" || text.endsWith("\n") ? "" : "\n"}${fence}`;
}

function listItems(node: PMNode, hint: StyleHint): string {
  const ordered = node.type === "orderedList";
  const start = Number(node.attrs?.start ?? 1);
  const items = node.content ?? [];
  const loose = hint.loose === true || items.some((it) => (it.content ?? []).filter((c) => c.type === "paragraph").length > 1);
  const out = items.map((item, i) => {
    let marker = ordered ? `${start + i}${hint.delimiter ?? "."} ` : `${hint.bullet ?? "-"} `;
    if (item.type === "taskItem") marker += item.attrs?.checked ? "[x] " : "[ ] ";
    const width = ordered ? marker.length - (item.type === "taskItem" ? 4 : 0) : 2;
    // A "---" right under an item's text would turn that text into a heading.
    // Nested lists take the same bullet style. An ordered list not starting at 1 cannot interrupt
    // a paragraph, so it needs a blank line before it.
    const children = item.content ?? [];
    const body = children
      .map((c, k) => {
        const text = c.type === "horizontalRule" ? "***" : serializeBlock(c, hint.bullet ? { bullet: hint.bullet } : {});
        const gap = loose || (c.type === "orderedList" && Number(c.attrs?.start ?? 1) !== 1) ? "\n\n" : "\n";
        return k === 0 ? text : gap + text;
      })
      .join("");
    return indentLines(body, " ".repeat(width), marker);
  });
  return out.join(loose ? "\n\n" : "\n");
}

/** One block node → Markdown, without a trailing line end. Empty paragraphs are "". */
export function serializeBlock(node: PMNode, hint: StyleHint = {}): string {
  switch (node.type) {
    case "paragraph":
      return serializeInline(node.content);
    case "heading": {
      const level = Math.min(6, Math.max(1, Number(node.attrs?.level ?? 1)));
      const text = serializeInline(node.content).replace(/\n/g, " ");
      return "#".repeat(level) + (text ? " " + text : "");
    }
    case "codeBlock":
      return codeBlock(node, hint);
    case "blockquote": {
      const body = (node.content ?? []).map((c) => serializeBlock(c, {})).join("\n\n");
      return body
        .split("\n")
        .map((l) => (l === "" ? ">" : "> " + l))
        .join("\n");
    }
    case "bulletList":
    case "orderedList":
    case "taskList":
      return listItems(node, hint);
    case "horizontalRule":
      return "---";
    case "rawBlock":
      return String(node.attrs?.text ?? "").replace(/\n+$/, "");
    case "image":
      return serializeInline([node]);
    default:
      return serializeInline(node.content);
  }
}
