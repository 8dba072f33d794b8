/**
 * Completions in the raw (CodeMirror) editor for Quire's own Markdown: component names after `:::`
 * at a line's start (children after `::` inside their container), a callout's type after
 * `:::callout[`, the inline badge after `:ba…` and its variants after `{variant=`. Each component
 * completes to its opening line, an empty body and its closing line, the caret in the body (or on
 * its argument), as the site's renderer reads them (docs/architecture.md §9). `[[` keeps its page
 * picker (RawEditor.tsx). `completeAt` is the pure part: tested without a browser.
 */
import { snippetCompletion, type Completion, type CompletionContext, type CompletionResult } from "@codemirror/autocomplete";
import { BADGE_VARIANTS } from "../markdown/badge.ts";

const CALLOUT_TYPES = ["info", "warning", "danger", "tip", "note"];

/** Block components: name, what it is, the text after `:::` up to the end (snippet fields `${…}`). */
const BLOCKS: Array<[string, string, string]> = [
  ["callout", "Callout box", "callout[${info}]\n${}\n:::"],
  ["tabs", "Tabs", "tabs\n::tab[${Tab 1}]\n${}\n::\n:::"],
  ["steps", "Numbered steps", "steps\n::step[${Step 1}]\n${}\n::\n:::"],
  ["cards", "Cards", "cards\n::card[${Title}]{link=${page}}\n${}\n::\n:::"],
  ["accordion", "Collapsible section", "accordion[${Question}]\n${}\n:::"],
  ["api", "API endpoint", "api[${GET} ${/path}]\n${}\n:::"],
  ["filetree", "File tree", "filetree\n- ${docs/}\n:::"],
  ["mermaid", "Diagram", "mermaid\n${graph LR\n  A --> B}\n:::"],
  ["math", "Math (KaTeX)", "math\n${x^2}\n:::"],
  ["katex", "Math (KaTeX)", "katex\n${x^2}\n:::"],
  ["toc", "Table of contents", "toc\n:::${}"],
];
const CHILDREN: Array<[string, string, string]> = [
  ["tab", "A tab of tabs", "tab[${Label}]\n${}\n::"],
  ["step", "A step of steps", "step[${Title}]\n${}\n::"],
  ["card", "A card of cards", "card[${Title}]{link=${page}}\n${}\n::"],
  ["item", "An item of an accordion", "item[${Question}]\n${}\n::"],
  ["embed", "Embedded video or page", "embed[${https://}]"],
];

interface RawCompletion {
  label: string;
  detail: string;
  /** Text inserted from `from`, with `${…}` fields (a CodeMirror snippet). */
  snippet: string;
}

/** What completes at column `col` of `line`: where the replaced text starts, and the options. */
export function completeAt(line: string, col: number): { from: number; options: RawCompletion[] } | null {
  const before = line.slice(0, col);
  let m = /^(\s{0,3})(:{3,})([A-Za-z-]*)$/.exec(before);
  if (m) {
    const from = m[1]!.length + m[2]!.length;
    const typed = m[3]!.toLowerCase();
    const close = m[2]!;
    return { from, options: BLOCKS.filter(([n]) => n.startsWith(typed)).map(([label, detail, s]) => ({ label, detail, snippet: s.replace(/\n:::$/, `\n${close}`).replace(/\n:::\$\{\}$/, `\n${close}\${}`) })) };
  }
  m = /^(\s{0,3})::([A-Za-z-]*)$/.exec(before);
  if (m) {
    const typed = m[2]!.toLowerCase();
    return { from: m[1]!.length + 2, options: CHILDREN.filter(([n]) => n.startsWith(typed)).map(([label, detail, snippet]) => ({ label, detail, snippet })) };
  }
  m = /^\s{0,3}:{3,}callout\[([a-z]*)$/i.exec(before);
  if (m) return { from: col - m[1]!.length, options: CALLOUT_TYPES.filter((t) => t.startsWith(m![1]!.toLowerCase())).map((t) => ({ label: t, detail: "Callout type", snippet: t })) };
  m = /:badge\[[^\[\]\n]*\]\{[^{}\n]*\b(?:variant|type)=([a-z]*)$/i.exec(before);
  if (m) return { from: col - m[1]!.length, options: BADGE_VARIANTS.filter((v) => v.startsWith(m![1]!.toLowerCase())).map((v) => ({ label: v, detail: "Badge variant", snippet: v })) };
  m = /(?:^|[^\w:]):(b[a-z]*)$/i.exec(before);
  if (m && "badge".startsWith(m[1]!.toLowerCase())) return { from: col - m[1]!.length, options: [{ label: "badge", detail: "Inline badge", snippet: "badge[${New}]{variant=${info}}" }] };
  return null;
}

/** The CodeMirror completion source over `completeAt`. */
export function quireCompletions(context: CompletionContext): CompletionResult | null {
  const line = context.state.doc.lineAt(context.pos);
  const found = completeAt(line.text, context.pos - line.from);
  if (!found || found.options.length === 0) return null;
  const options: Completion[] = found.options.map((o) => snippetCompletion(o.snippet, { label: o.label, detail: o.detail }));
  return { from: line.from + found.from, options, validFor: /^[\w-]*$/ };
}
