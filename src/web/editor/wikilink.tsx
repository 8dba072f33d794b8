/**
 * A wikilink (`[[path]]`, `[[path|text]]`, `[[path#heading]]`) as a chip in the rich editor: it
 * shows the linked page's title (or its own text), names its path, and is marked when no page of
 * the workspace answers it. The chip is one unit — Backspace removes it whole — and typing a
 * complete `[[…]]` turns into one. The workspace's pages come from the editor's page list, loaded
 * once for a page that has wikilinks.
 */
import { InputRule, Node, mergeAttributes } from "@tiptap/core";
import { NodeViewWrapper, ReactNodeViewRenderer, type ReactNodeViewProps } from "@tiptap/react";
import { useSyncExternalStore } from "react";
import type { PickablePage } from "./PagePicker.tsx";

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

function WikilinkView({ node, extension }: ReactNodeViewProps) {
  const directory = (extension.options as { directory: PageDirectory }).directory;
  const pages = useSyncExternalStore(directory.subscribe, directory.snapshot);
  const target = String(node.attrs.target ?? "");
  const label = node.attrs.label ? String(node.attrs.label) : null;
  const page = pages ? resolveTarget(pages, target) : undefined;
  const dead = pages !== null && !page;
  const shown = label ?? page?.title ?? target;
  return (
    <NodeViewWrapper as="span" className={`wikilink${dead ? " wikilink-dead" : ""}`} data-target={target} title={dead ? `No page at ${target}` : target}>
      {shown}
      {dead && <span className="visually-hidden"> (missing page)</span>}
    </NodeViewWrapper>
  );
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
    return ReactNodeViewRenderer(WikilinkView);
  },
});
