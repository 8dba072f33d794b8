/**
 * The callout component (`:::callout[type]` … `:::`) as a block: a type picker above a body edited
 * richly like the rest of the page. Attributes after the label (a title) are kept as written and
 * shown as text only, so nothing in them can run in the editor.
 */
import { Node, mergeAttributes } from "@tiptap/core";
import { NodeViewContent, NodeViewWrapper, ReactNodeViewRenderer, type ReactNodeViewProps } from "@tiptap/react";

const TYPES = ["info", "warning", "danger", "tip", "note"];

function CalloutView({ node, updateAttributes, editor }: ReactNodeViewProps) {
  const type = node.attrs.type === null ? "" : String(node.attrs.type);
  const known = TYPES.includes(type);
  const title = /\btitle="([^"]*)"/.exec(String(node.attrs.extra ?? ""))?.[1];
  return (
    <NodeViewWrapper className={`callout-block callout-${known ? type : "other"}`} data-callout-type={type}>
      <div className="callout-head" contentEditable={false}>
        <select aria-label="Callout type" value={type} disabled={!editor.isEditable} onChange={(e) => updateAttributes({ type: e.target.value })}>
          {!known && <option value={type}>{type || "callout"}</option>}
          {TYPES.map((t) => (
            <option key={t} value={t}>
              {t}
            </option>
          ))}
        </select>
        {title && <span className="callout-title">{title}</span>}
      </div>
      <NodeViewContent className="callout-body" />
    </NodeViewWrapper>
  );
}

export const Callout = Node.create({
  name: "callout",
  group: "block",
  content: "block+",
  defining: true,
  isolating: true,
  addAttributes() {
    return {
      type: { default: "info", parseHTML: (el) => el.getAttribute("data-type"), renderHTML: (a) => ({ "data-type": a.type }) },
      extra: { default: "", parseHTML: (el) => el.getAttribute("data-extra") ?? "", renderHTML: (a) => ({ "data-extra": a.extra }) },
      colons: { default: ":::", parseHTML: (el) => el.getAttribute("data-colons") ?? ":::", renderHTML: (a) => ({ "data-colons": a.colons }) },
    };
  },
  parseHTML() {
    return [{ tag: "div[data-callout]" }];
  },
  renderHTML({ HTMLAttributes }) {
    return ["div", mergeAttributes(HTMLAttributes, { "data-callout": "" }), 0];
  },
  addNodeView() {
    return ReactNodeViewRenderer(CalloutView);
  },
});
