/**
 * ProseMirror JSON → Markdown, for the blocks a person changed in the rich editor. Unchanged
 * blocks never come through here (merge.ts keeps their source bytes); a changed block is written
 * in the style of the block it replaces where the editor cannot remember it (bullet character,
 * ordered-list delimiter, tight or loose lists, fence characters).
 */
import type { PMNode } from "./pm.ts";
import { serializeInline } from "./inline.ts";
import type { SourceBlock } from "./split.ts";
import { serializeTable, type TableSource } from "./table.ts";
import { isRichComponent, serializeComponent } from "./component.ts";

interface StyleHint {
  bullet?: string;
  delimiter?: "." | ")";
  loose?: boolean;
  fence?: "`" | "~";
  /** The table a changed table replaces: its untouched rows keep their lines. */
  table?: TableSource;
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
  if (block.kind === "table") hint.table = { text: block.text };
  return hint;
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
    case "table":
      return serializeTable(node, hint.table);
    case "rawBlock":
      return String(node.attrs?.text ?? "").replace(/\n+$/, "");
    case "image":
      return serializeInline([node]);
    default:
      if (isRichComponent(node.type)) return serializeComponent(node, undefined, (nodes) => nodes.map((n) => serializeBlock(n)).filter(Boolean).join("\n\n"));
      return serializeInline(node.content);
  }
}
