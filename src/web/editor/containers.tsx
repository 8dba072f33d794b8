/**
 * Components made of parts — tabs (`::tab`), steps (`::step`), cards (`::card`) — and the
 * accordion, as blocks. Each part has a label field and a body edited richly; the container has a
 * strip to add parts, and tabs show one panel at a time (the strip picks it). Labels and the
 * attributes after them are plain text in inputs: nothing in them is ever rendered as markup.
 */
import { Node, mergeAttributes, type Editor } from "@tiptap/core";
import type { Node as PMNodeType } from "@tiptap/pm/model";
import { NodeViewContent, NodeViewWrapper, ReactNodeViewRenderer, type ReactNodeViewProps } from "@tiptap/react";
import { useState } from "react";

const PARTS: Record<string, { child: string; noun: string }> = {
  tabs: { child: "tab", noun: "tab" },
  steps: { child: "step", noun: "step" },
  cards: { child: "card", noun: "card" },
};

const labelOf = (node: PMNodeType) => (node.attrs.type === null ? "" : String(node.attrs.type));

/** Inserts a new part at the end of the container at `pos`, its body one empty paragraph. */
function addPart(editor: Editor, pos: number, container: PMNodeType, child: string, label: string) {
  const at = pos + container.nodeSize - 1;
  editor.chain().focus().insertContentAt(at, { type: child, attrs: { type: label, extra: "", colons: "::" }, content: [{ type: "paragraph" }] }).run();
}

function ContainerView({ node, editor, getPos }: ReactNodeViewProps) {
  const { child, noun } = PARTS[node.type.name]!;
  const [active, setActive] = useState(0);
  const labels: string[] = [];
  node.forEach((c) => labels.push(labelOf(c)));
  const shown = Math.min(active, labels.length - 1);
  const isTabs = node.type.name === "tabs";
  const Noun = noun[0]!.toUpperCase() + noun.slice(1);
  return (
    <NodeViewWrapper className={`component-block ${node.type.name}-block`} data-active={isTabs ? String(shown) : undefined}>
      <div className="component-strip" contentEditable={false}>
        {isTabs && (
          <div className="component-tabs" role="tablist" aria-label="Tabs">
            {labels.map((l, i) => (
              <button key={i} type="button" role="tab" aria-selected={i === shown} className={i === shown ? "active" : undefined} onClick={() => setActive(i)}>
                {l || `Tab ${i + 1}`}
              </button>
            ))}
          </div>
        )}
        {!isTabs && <span className="component-kind">{Noun}s</span>}
        {editor.isEditable && (
          <button
            type="button"
            className="component-add"
            // The caret stays in the text while the new part is added, as with the toolbar.
            onMouseDown={(e) => e.preventDefault()}
            onClick={() => {
              const pos = getPos();
              if (typeof pos !== "number") return;
              addPart(editor, pos, node, child, `${Noun} ${labels.length + 1}`);
              setActive(labels.length);
            }}
          >
            Add {noun}
          </button>
        )}
      </div>
      <NodeViewContent className="component-parts" />
    </NodeViewWrapper>
  );
}

function PartView({ node, editor, getPos, updateAttributes }: ReactNodeViewProps) {
  const noun = node.type.name;
  const Noun = noun[0]!.toUpperCase() + noun.slice(1);
  const link = /\blink=("[^"]*"|\S+?)(?=[\s}])/.exec(String(node.attrs.extra ?? ""))?.[1]?.replace(/^"|"$/g, "");
  return (
    <NodeViewWrapper className={`component-part ${noun}-part`}>
      <div className="component-part-head" contentEditable={false}>
        <input
          aria-label={`${Noun} title`}
          value={labelOf(node)}
          readOnly={!editor.isEditable}
          onChange={(e) => updateAttributes({ type: e.target.value.replace(/[\]\n]/g, "") })}
        />
        {link && <span className="muted component-link">→ {link}</span>}
        {editor.isEditable && (
          <button
            type="button"
            aria-label={`Remove ${noun} ${labelOf(node)}`.trim()}
            title={`Remove this ${noun}`}
            onClick={() => {
              const pos = getPos();
              if (typeof pos !== "number") return;
              const $pos = editor.state.doc.resolve(pos);
              // The last part goes with its container, which cannot stand empty.
              if ($pos.parent.childCount === 1) editor.chain().focus().deleteRange({ from: $pos.before(), to: $pos.after() }).run();
              else editor.chain().focus().deleteRange({ from: pos, to: pos + node.nodeSize }).run();
            }}
          >
            ×
          </button>
        )}
      </div>
      <NodeViewContent className="component-body" />
    </NodeViewWrapper>
  );
}

function AccordionView({ node, editor, updateAttributes }: ReactNodeViewProps) {
  return (
    <NodeViewWrapper className="component-block accordion-block">
      <div className="component-part-head" contentEditable={false}>
        <span className="component-kind" aria-hidden="true">▸</span>
        <input aria-label="Accordion title" value={labelOf(node)} readOnly={!editor.isEditable} onChange={(e) => updateAttributes({ type: e.target.value.replace(/[\]\n]/g, "") })} />
      </div>
      <NodeViewContent className="component-body" />
    </NodeViewWrapper>
  );
}

const METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"];

/** The api badge: its label is "METHOD /path", edited as a method picker and a path field. */
function ApiView({ node, editor, updateAttributes }: ReactNodeViewProps) {
  const label = labelOf(node);
  const m = /^([A-Za-z]+)\s+(.*)$/.exec(label);
  const method = m ? m[1]!.toUpperCase() : "";
  const path = m ? m[2]! : label;
  const set = (nextMethod: string, nextPath: string) => updateAttributes({ type: `${nextMethod} ${nextPath}`.trim().replace(/[\]\n]/g, "") });
  return (
    <NodeViewWrapper className="component-block api-block">
      <div className="component-part-head" contentEditable={false}>
        <select aria-label="HTTP method" className={`api-method api-${method.toLowerCase()}`} value={method} disabled={!editor.isEditable} onChange={(e) => set(e.target.value, path)}>
          {!METHODS.includes(method) && <option value={method}>{method || "—"}</option>}
          {METHODS.map((x) => (
            <option key={x} value={x}>
              {x}
            </option>
          ))}
        </select>
        <input aria-label="Endpoint path" className="api-path" value={path} readOnly={!editor.isEditable} onChange={(e) => set(method, e.target.value)} />
      </div>
      <NodeViewContent className="component-body" />
    </NodeViewWrapper>
  );
}

function FiletreeView() {
  return (
    <NodeViewWrapper className="component-block filetree-block">
      <div className="component-part-head" contentEditable={false}>
        <span className="component-kind">File tree</span>
      </div>
      <NodeViewContent className="component-body" />
    </NodeViewWrapper>
  );
}

function TocView() {
  return (
    <NodeViewWrapper className="component-block toc-block" contentEditable={false}>
      <span className="component-kind">Table of contents</span> <span className="muted">— built from the page's headings on the site</span>
    </NodeViewWrapper>
  );
}

const componentAttributes = (colons: string) => ({
  type: { default: null, parseHTML: (el: HTMLElement) => el.getAttribute("data-type"), renderHTML: (a: Record<string, unknown>) => ({ "data-type": a.type }) },
  extra: { default: "", parseHTML: (el: HTMLElement) => el.getAttribute("data-extra") ?? "", renderHTML: (a: Record<string, unknown>) => ({ "data-extra": a.extra }) },
  colons: { default: colons, parseHTML: (el: HTMLElement) => el.getAttribute("data-colons") ?? colons, renderHTML: (a: Record<string, unknown>) => ({ "data-colons": a.colons }) },
});

function componentNode(name: string, content: string, view: (props: ReactNodeViewProps) => React.ReactNode, colons: string, group?: string) {
  return Node.create({
    name,
    ...(group ? { group } : {}),
    content,
    defining: true,
    isolating: true,
    addAttributes: () => componentAttributes(colons),
    parseHTML: () => [{ tag: `div[data-component="${name}"]` }],
    renderHTML: ({ HTMLAttributes }) => ["div", mergeAttributes(HTMLAttributes, { "data-component": name }), 0],
    addNodeView: () => ReactNodeViewRenderer(view),
  });
}

export const Containers = [
  ...Object.entries(PARTS).flatMap(([name, { child }]) => [componentNode(name, `${child}+`, ContainerView, ":::", "block"), componentNode(child, "block+", PartView, "::")]),
  componentNode("accordion", "block+", AccordionView, ":::", "block"),
  componentNode("api", "block+", ApiView, ":::", "block"),
  componentNode("filetree", "block+", FiletreeView, ":::", "block"),
  Node.create({
    name: "toc",
    group: "block",
    atom: true,
    selectable: true,
    addAttributes: () => componentAttributes(":::"),
    parseHTML: () => [{ tag: 'div[data-component="toc"]' }],
    renderHTML: ({ HTMLAttributes }) => ["div", mergeAttributes(HTMLAttributes, { "data-component": "toc" })],
    addNodeView: () => ReactNodeViewRenderer(TocView),
  }),
];
