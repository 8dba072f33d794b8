/**
 * The embed line (`::embed[url]{title="…"}`) as a block: its address in a field, and the site's
 * verdict beside it — the renderer's own allow-list (src/publish/render/embed.ts) says whether the
 * published page frames a player or shows a plain link. Nothing is framed or fetched in the editor.
 */
import { Node, mergeAttributes } from "@tiptap/core";
import { NodeViewWrapper, ReactNodeViewRenderer, type ReactNodeViewProps } from "@tiptap/react";
import { embedFor } from "../../publish/render/embed.ts";

function EmbedView({ node, editor, updateAttributes }: ReactNodeViewProps) {
  const url = node.attrs.type === null ? "" : String(node.attrs.type);
  const embed = url.trim() ? embedFor(url) : null;
  const title = /\btitle="([^"]*)"/.exec(String(node.attrs.extra ?? ""))?.[1];
  return (
    <NodeViewWrapper className="component-block embed-block" contentEditable={false}>
      <div className="component-part-head">
        <span className="component-kind">Embed</span>
        <input
          aria-label="Embed address"
          className="api-path"
          value={url}
          readOnly={!editor.isEditable}
          placeholder="https://www.youtube.com/watch?v=…"
          onChange={(e) => updateAttributes({ type: e.target.value.replace(/[\]\n]/g, "") })}
        />
      </div>
      <p className="muted embed-verdict" role="status">
        {embed ? `${embed.title}: shown as a player on the site` : "Not a provider the site frames: shown as a link"}
        {title ? ` · ${title}` : ""}
      </p>
    </NodeViewWrapper>
  );
}

export const Embed = Node.create({
  name: "embed",
  group: "block",
  atom: true,
  selectable: true,
  addAttributes() {
    return {
      type: { default: "", parseHTML: (el) => el.getAttribute("data-type"), renderHTML: (a) => ({ "data-type": a.type }) },
      extra: { default: "", parseHTML: (el) => el.getAttribute("data-extra") ?? "", renderHTML: (a) => ({ "data-extra": a.extra }) },
      colons: { default: "::", parseHTML: () => "::", renderHTML: () => ({}) },
    };
  },
  parseHTML() {
    return [{ tag: "div[data-embed]" }];
  },
  renderHTML({ HTMLAttributes }) {
    return ["div", mergeAttributes(HTMLAttributes, { "data-embed": "" })];
  },
  addNodeView() {
    return ReactNodeViewRenderer(EmbedView);
  },
});
