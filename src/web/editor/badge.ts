/**
 * The inline badge (`:badge[New]{variant=info}`) as a chip in the rich editor, drawn in its
 * variant's colours as on the site. The chip is one unit (Backspace removes it whole); selected —
 * by a click or the arrow keys — it shows its control (BadgePopover.tsx), and Enter moves the focus
 * into that control. Its attributes are the source's own pieces (src/web/markdown/badge.ts).
 */
import { Node, mergeAttributes } from "@tiptap/core";
import { NodeSelection } from "@tiptap/pm/state";
import type { Node as PMNodeType } from "@tiptap/pm/model";
import type { NodeView } from "@tiptap/pm/view";
import { badgeMarkdown, badgeVariant, type BadgeAttrs } from "../markdown/badge.ts";
import { blockView } from "./block-view.ts";

const attrsOf = (n: PMNodeType): BadgeAttrs => ({ name: String(n.attrs.name ?? "badge"), text: String(n.attrs.text ?? ""), attrs: n.attrs.attrs == null ? null : String(n.attrs.attrs) });

/** Plain DOM rather than a React node view: a page may hold many badges (see wikilink.ts). */
function chipView(node: PMNodeType): NodeView {
  const dom = document.createElement("span");
  return blockView(node, dom, null, (n) => {
    const a = attrsOf(n);
    const variant = badgeVariant(a.attrs);
    dom.className = `badge-chip badge-${variant}`;
    dom.dataset.variant = variant;
    dom.textContent = a.text.trim() || "(empty badge)";
    dom.title = `Badge (${variant})`;
  });
}

export interface BadgeStorage {
  /** Set by the open control: moves the focus into it. */
  focusControl: (() => void) | null;
}

export const Badge = Node.create<object, BadgeStorage>({
  name: "badge",
  group: "inline",
  inline: true,
  atom: true,
  selectable: true,
  addStorage: () => ({ focusControl: null }),
  addAttributes() {
    return {
      name: { default: "badge", parseHTML: (el) => el.getAttribute("data-name") ?? "badge" },
      text: { default: "", parseHTML: (el) => el.getAttribute("data-text") ?? "" },
      attrs: { default: null, parseHTML: (el) => el.getAttribute("data-attrs") },
    };
  },
  parseHTML() {
    return [{ tag: "span[data-badge]" }];
  },
  renderHTML({ node, HTMLAttributes }) {
    const a = attrsOf(node);
    return ["span", mergeAttributes(HTMLAttributes, { "data-badge": "", "data-name": a.name, "data-text": a.text, "data-attrs": a.attrs }), badgeMarkdown(a)];
  },
  renderText({ node }) {
    return badgeMarkdown(attrsOf(node));
  },
  addKeyboardShortcuts() {
    return {
      Enter: () => {
        const sel = this.editor.state.selection;
        if (!(sel instanceof NodeSelection) || sel.node.type.name !== "badge" || !this.storage.focusControl) return false;
        this.storage.focusControl();
        return true;
      },
    };
  },
  addNodeView() {
    return ({ node }) => chipView(node);
  },
});
