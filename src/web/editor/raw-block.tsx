/**
 * A block the rich editor does not render — a component directive, a table, HTML, frontmatter, a
 * link definition — shown as its Markdown source in a text area. Its text is written back exactly
 * as typed, so such blocks are never dropped or mangled.
 */
import { Node, mergeAttributes } from "@tiptap/core";
import { NodeViewWrapper, ReactNodeViewRenderer, type ReactNodeViewProps } from "@tiptap/react";
import { useLayoutEffect, useMemo, useRef } from "react";
import { componentNotice } from "../markdown/component.ts";

const SIZED_BY_CSS = typeof CSS !== "undefined" && CSS.supports("field-sizing", "content");

const LABELS: Record<string, string> = {
  directive: "Component",
  table: "Table",
  html: "HTML",
  frontmatter: "Frontmatter",
  def: "Link definition",
  code: "Code",
  paragraph: "Paragraph",
  heading: "Heading",
  list: "List",
  blockquote: "Quote",
};

function RawBlockView({ node, updateAttributes, editor }: ReactNodeViewProps) {
  const ref = useRef<HTMLTextAreaElement>(null);
  const text = String(node.attrs.text ?? "");
  const kind = String(node.attrs.kind ?? "other");
  useLayoutEffect(() => {
    // Where CSS sizes the text area to its content (styles.css), nothing to do: measuring here
    // forces a layout per block, which made a page with 150 such blocks open ~170 ms slower.
    if (SIZED_BY_CSS) return;
    const el = ref.current;
    if (!el) return;
    el.style.height = "auto";
    el.style.height = `${el.scrollHeight + 2}px`;
  }, [text]);
  const label = LABELS[kind] ?? "Markdown";
  // A component the editor cannot show says why, as the published page would.
  const notice = useMemo(() => (kind === "directive" ? componentNotice(text) : null), [kind, text]);
  return (
    <NodeViewWrapper className={`raw-block raw-${kind}`} data-raw-kind={kind}>
      <div className="raw-block-label" contentEditable={false}>
        {label} · Markdown source
      </div>
      {notice && (
        <p className="raw-block-notice" role="note" contentEditable={false}>
          {notice}
        </p>
      )}
      <textarea
        ref={ref}
        aria-label={`${label} (Markdown source)`}
        spellCheck={false}
        value={text}
        readOnly={!editor.isEditable}
        rows={Math.max(1, text.split("\n").length)}
        onChange={(e) => updateAttributes({ text: e.target.value })}
      />
    </NodeViewWrapper>
  );
}

export const RawBlock = Node.create({
  name: "rawBlock",
  group: "block",
  atom: true,
  selectable: true,
  addAttributes() {
    return {
      text: { default: "", parseHTML: (el) => el.getAttribute("data-text") ?? "", renderHTML: (a) => ({ "data-text": a.text }) },
      kind: { default: "other", parseHTML: (el) => el.getAttribute("data-kind") ?? "other", renderHTML: (a) => ({ "data-kind": a.kind }) },
    };
  },
  parseHTML() {
    return [{ tag: "div[data-raw-block]" }];
  },
  renderHTML({ HTMLAttributes }) {
    return ["div", mergeAttributes(HTMLAttributes, { "data-raw-block": "" })];
  },
  addNodeView() {
    return ReactNodeViewRenderer(RawBlockView);
  },
});
