/**
 * A wikilink (`[[path]]`, `[[path|text]]`, `[[path#heading]]`) as a chip in the rich editor: it
 * shows the linked page's title (or its own text), names its path, and is marked when no page of
 * the workspace answers it. The chip is one unit — Backspace removes it whole — and typing a
 * complete `[[…]]` turns into one. The workspace's pages come from the editor's page list, loaded
 * once for a page that has wikilinks.
 */
import { InputRule, Node, mergeAttributes } from "@tiptap/core";
import type { Node as PMNodeType } from "@tiptap/pm/model";
import type { NodeView } from "@tiptap/pm/view";
import type { PickablePage } from "./PagePicker.tsx";
import { blockView } from "./block-view.ts";

/** The workspace's pages, for the chips' titles; null until loaded. */
export class PageDirectory {
  private pages: Map<string, PickablePage> | null = null;
  private listeners = new Set<() => void>();
  set(list: PickablePage[]): void {
    this.pages = new Map(list.map((p) => [p.path.replace(/\.md$/, ""), p]));
    for (const l of this.listeners) l();
  }
  get loaded(): boolean {
    return this.pages !== null;
  }
  subscribe = (listener: () => void) => {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  };
  snapshot = () => this.pages;
}

/** The page a target names: the path without `.md` or `#heading`, or a folder's index page. */
function resolveTarget(pages: Map<string, PickablePage>, target: string): PickablePage | undefined {
  const path = target.split("#")[0]!.trim().replace(/^\/+/, "").replace(/\.md$/, "");
  return pages.get(path) ?? pages.get(path ? `${path}/index` : "index");
}

/**
 * The chip's DOM, kept by hand rather than as a React node view: a long page can hold a thousand
 * wikilinks, and a React root each made opening and typing on such a page slow.
 */
function chipView(node: PMNodeType, directory: PageDirectory): NodeView {
  const dom = document.createElement("span");
  let drawn = "";
  const draw = (n: PMNodeType) => {
    const pages = directory.snapshot();
    const target = String(n.attrs.target ?? "");
    const label = n.attrs.label ? String(n.attrs.label) : null;
    const page = pages ? resolveTarget(pages, target) : undefined;
    // `[[#heading]]` names a heading of this very page, which is there.
    const dead = pages !== null && !page && !target.startsWith("#");
    // Written only when it changes: each write makes the browser restyle and lay out the chip,
    // and every chip of the page is asked again when the page list arrives.
    const look = JSON.stringify([dead, target, label ?? page?.title ?? target]);
    if (look === drawn) return;
    drawn = look;
    dom.className = `wikilink${dead ? " wikilink-dead" : ""}`;
    dom.dataset.target = target;
    dom.title = dead ? `No page at ${target}` : target;
    dom.textContent = label ?? page?.title ?? target;
    if (dead) {
      const hint = document.createElement("span");
      hint.className = "visually-hidden";
      hint.textContent = " (missing page)";
      dom.append(hint);
    }
  };
  let current = node;
  const view = blockView(node, dom, null, (n) => draw((current = n)));
  // The page list arriving or changing redraws the chip as it is.
  return { ...view, destroy: directory.subscribe(() => draw(current)) };
}

export const Wikilink = Node.create<{ directory: PageDirectory }>({
  name: "wikilink",
  group: "inline",
  inline: true,
  atom: true,
  selectable: true,
  addOptions() {
    return { directory: new PageDirectory() };
  },
  addAttributes() {
    return {
      target: { default: "", parseHTML: (el) => el.getAttribute("data-target") ?? "" },
      label: { default: null, parseHTML: (el) => el.getAttribute("data-label") },
    };
  },
  parseHTML() {
    return [{ tag: "span[data-wikilink]" }];
  },
  renderHTML({ node, HTMLAttributes }) {
    const text = node.attrs.label ? `[[${node.attrs.target}|${node.attrs.label}]]` : `[[${node.attrs.target}]]`;
    return ["span", mergeAttributes(HTMLAttributes, { "data-wikilink": "", "data-target": node.attrs.target, "data-label": node.attrs.label }), text];
  },
  renderText({ node }) {
    return node.attrs.label ? `[[${node.attrs.target}|${node.attrs.label}]]` : `[[${node.attrs.target}]]`;
  },
  addInputRules() {
    return [
      new InputRule({
        find: /\[\[([^[\]|\n]+)(?:\|([^[\]\n]+))?\]\]$/,
        handler: ({ state, range, match }) => {
          state.tr.replaceWith(range.from, range.to, this.type.create({ target: match[1], label: match[2] ?? null }));
        },
      }),
    ];
  },
  addNodeView() {
    return ({ node }) => chipView(node, this.options.directory);
  },
});
