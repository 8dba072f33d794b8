/**
 * What the slash menu (`/` in the rich editor) inserts: every block the editor writes, and each
 * component of the published site (docs/architecture.md §9) as its editor block (the badge inline). Matching
 * is fuzzy: the letters typed after `/` must appear in order in the item's name or one of its words.
 */
import type { Editor } from "@tiptap/core";

export interface SlashItem {
  label: string;
  /** Other words a writer might type for it. */
  words: string;
  run(editor: Editor): void;
}

/** Inserts a math or diagram block holding a first line of source. */
function source(name: string, text: string) {
  return (editor: Editor) => editor.chain().focus().insertContent({ type: name, attrs: { type: null, extra: "", colons: ":::" }, content: [{ type: "text", text }] }).run();
}

/** Inserts a component made of parts (tabs, steps, cards), the caret in the first part's body. */
function parts(name: string, child: string, labels: string[]) {
  return (editor: Editor) => {
    const content = labels.map((type) => ({ type: child, attrs: { type, extra: "", colons: "::" }, content: [{ type: "paragraph" }] }));
    editor.chain().focus().insertContent({ type: name, attrs: { type: null, extra: "", colons: ":::" }, content }).run();
  };
}

export const SLASH_ITEMS: SlashItem[] = [
  { label: "Heading 1", words: "h1 title", run: (e) => e.chain().focus().setNode("heading", { level: 1 }).run() },
  { label: "Heading 2", words: "h2 subtitle", run: (e) => e.chain().focus().setNode("heading", { level: 2 }).run() },
  { label: "Heading 3", words: "h3", run: (e) => e.chain().focus().setNode("heading", { level: 3 }).run() },
  { label: "Bulleted list", words: "ul unordered bullet", run: (e) => e.chain().focus().toggleBulletList().run() },
  { label: "Numbered list", words: "ol ordered number", run: (e) => e.chain().focus().toggleOrderedList().run() },
  { label: "Task list", words: "todo checkbox check", run: (e) => e.chain().focus().toggleTaskList().run() },
  { label: "Quote", words: "blockquote", run: (e) => e.chain().focus().toggleBlockquote().run() },
  {
    label: "Code block",
    words: "pre fence snippet",
    run: (e) => {
      const language = window.prompt("Language of the code (optional)", "");
      e.chain().focus().setCodeBlock({ language: language?.trim() || "" }).run();
    },
  },
  { label: "Table", words: "grid", run: (e) => e.chain().focus().insertTable({ rows: 3, cols: 2, withHeaderRow: true }).run() },
  { label: "Divider", words: "hr horizontal rule line separator", run: (e) => e.chain().focus().setHorizontalRule().run() },
  {
    label: "Image",
    words: "picture img",
    run: (e) => {
      const src = window.prompt("Image address");
      if (src) e.chain().focus().setImage({ src, alt: "" }).run();
    },
  },
  {
    label: "Callout",
    words: "admonition info warning note tip danger",
    run: (e) => e.chain().focus().insertContent({ type: "callout", attrs: { type: "info", extra: "", colons: ":::" }, content: [{ type: "paragraph" }] }).run(),
  },
  { label: "Tabs", words: "tab", run: parts("tabs", "tab", ["Tab 1", "Tab 2"]) },
  { label: "Steps", words: "step procedure", run: parts("steps", "step", ["Step 1", "Step 2"]) },
  {
    label: "Accordion",
    words: "details collapse faq",
    run: (e) => e.chain().focus().insertContent({ type: "accordion", attrs: { type: "Question", extra: "", colons: ":::" }, content: [{ type: "paragraph" }] }).run(),
  },
  { label: "Cards", words: "card grid links", run: parts("cards", "card", ["Card 1"]) },
  {
    label: "API badge",
    words: "endpoint method path http",
    run: (e) => e.chain().focus().insertContent({ type: "api", attrs: { type: "GET /path", extra: "", colons: ":::" }, content: [{ type: "paragraph" }] }).run(),
  },
  { label: "Embed", words: "video iframe youtube", run: (e) => e.chain().focus().insertContent({ type: "embed", attrs: { type: "", extra: "", colons: "::" } }).run() },
  { label: "Diagram", words: "mermaid chart graph", run: source("mermaid", "graph LR\n  A --> B") },
  { label: "Math", words: "katex formula equation latex", run: source("katex", "x^2") },
  {
    label: "File tree",
    words: "filetree folders",
    run: (e) => e.chain().focus().insertContent({ type: "filetree", attrs: { type: null, extra: "", colons: ":::" }, content: [{ type: "bulletList", content: [{ type: "listItem", content: [{ type: "paragraph", content: [{ type: "text", text: "docs/" }] }] }] }] }).run(),
  },
  {
    label: "Badge",
    words: "label tag pill inline",
    run: (e) => {
      // Inline, in the paragraph; then selected, so its control opens with the focus in its text.
      e.chain().focus().insertContent({ type: "badge", attrs: { name: "badge", text: "New", attrs: "variant=info" } }).run();
      e.chain().setNodeSelection(e.state.selection.from - 1).run();
      setTimeout(() => (e.storage as unknown as { badge?: { focusControl: (() => void) | null } }).badge?.focusControl?.(), 0);
    },
  },
  { label: "Table of contents", words: "toc outline", run: (e) => e.chain().focus().insertContent({ type: "toc", attrs: { type: null, extra: "", colons: ":::" } }).run() },
];

/** Letters of `query` in order inside `text`. */
function subsequence(query: string, text: string): boolean {
  let i = 0;
  for (const ch of text) if (ch === query[i]) i++;
  return i === query.length;
}

/** Items for what was typed after `/`: the exact name, names starting with it, then fuzzy matches. */
export function matchSlashItems(query: string): SlashItem[] {
  const q = query.toLowerCase().replace(/\s+/g, "");
  if (!q) return SLASH_ITEMS;
  const scored: Array<[number, SlashItem]> = [];
  for (const item of SLASH_ITEMS) {
    const label = item.label.toLowerCase();
    const words = [label, ...item.words.split(" "), ...label.split(" ")];
    // The item named exactly so first ("badge": Badge before API badge).
    if (label.replace(/\s+/g, "") === q) scored.push([-1, item]);
    else if (words.some((w) => w.startsWith(q))) scored.push([0, item]);
    else if (subsequence(q, label.replace(/\s+/g, "")) || words.some((w) => subsequence(q, w))) scored.push([1, item]);
  }
  return scored.sort((a, b) => a[0] - b[0]).map(([, item]) => item);
}
