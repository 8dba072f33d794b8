/**
 * Math (`:::katex`, `:::math`) and diagrams (`:::mermaid`) as blocks: their source edited as plain
 * text, and for math a live preview beside it. KaTeX is loaded only when a page has a math block,
 * and renders MathML (no inline styles, so the app's CSP stays strict); an error is shown in place.
 * A diagram is drawn on the published page: Mermaid's SVG carries styles the app's CSP refuses.
 */
import { Node, mergeAttributes } from "@tiptap/core";
import { NodeViewContent, NodeViewWrapper, ReactNodeViewRenderer, type ReactNodeViewProps } from "@tiptap/react";
import { useEffect, useRef, useState } from "react";

type Katex = typeof import("katex");
let katex: Promise<Katex> | null = null;
const loadKatex = () => (katex ??= import("katex").then((m) => ((m as unknown as { default?: Katex }).default ?? m) as Katex));

function MathPreview({ source }: { source: string }) {
  const out = useRef<HTMLDivElement>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    let live = true;
    void loadKatex().then((k) => {
      if (!live || !out.current) return;
      try {
        // KaTeX's own output (MathML only) for the writer's formula; a bad formula throws.
        out.current.innerHTML = source.trim() ? k.renderToString(source, { displayMode: true, output: "mathml", throwOnError: true, trust: false }) : "";
        setError(null);
      } catch (e) {
        out.current.textContent = "";
        setError(e instanceof Error ? e.message : String(e));
      }
    });
    return () => {
      live = false;
    };
  }, [source]);
  return (
    <div className="source-preview" contentEditable={false} aria-live="polite">
      <div ref={out} />
      {error && <p className="source-error">{error}</p>}
    </div>
  );
}

function SourceView({ node }: ReactNodeViewProps) {
  const isMath = node.type.name !== "mermaid";
  return (
    <NodeViewWrapper className={`component-block source-block ${node.type.name}-block`}>
      <div className="component-part-head" contentEditable={false}>
        <span className="component-kind">{isMath ? "Math" : "Diagram (drawn on the published page)"}</span>
      </div>
      <NodeViewContent<"pre"> as="pre" className="source-text" />
      {isMath && <MathPreview source={node.textContent} />}
    </NodeViewWrapper>
  );
}

function sourceNode(name: string) {
  return Node.create({
    name,
    group: "block",
    content: "text*",
    marks: "",
    code: true,
    defining: true,
    addAttributes: () => ({
      type: { default: null, parseHTML: (el: HTMLElement) => el.getAttribute("data-type"), renderHTML: (a: Record<string, unknown>) => ({ "data-type": a.type }) },
      extra: { default: "", parseHTML: (el: HTMLElement) => el.getAttribute("data-extra") ?? "", renderHTML: (a: Record<string, unknown>) => ({ "data-extra": a.extra }) },
      colons: { default: ":::", parseHTML: (el: HTMLElement) => el.getAttribute("data-colons") ?? ":::", renderHTML: (a: Record<string, unknown>) => ({ "data-colons": a.colons }) },
    }),
    parseHTML: () => [{ tag: `div[data-component="${name}"]`, preserveWhitespace: "full" as const }],
    renderHTML: ({ HTMLAttributes }) => ["div", mergeAttributes(HTMLAttributes, { "data-component": name }), ["pre", 0]],
    addNodeView: () => ReactNodeViewRenderer(SourceView),
  });
}

export const SourceBlocks = ["katex", "math", "mermaid"].map(sourceNode);
