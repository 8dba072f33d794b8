/**
 * Math (`:::katex`, `:::math`) and diagrams (`:::mermaid`) as blocks: their source edited as plain
 * text, and for math a live preview beside it. KaTeX is loaded only when a page has a math block,
 * and renders MathML (no inline styles, so the app's CSP stays strict); an error is shown in place.
 * A diagram is drawn by Mermaid in a sandboxed frame of its own (src/web/diagram-frame.ts): Mermaid's
 * SVG carries styles the app's CSP refuses, and the frame loads Mermaid only when a diagram is shown.
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

const FRAME = "/_app/diagram.html";
const isDark = () => {
  const theme = document.documentElement.getAttribute("data-theme");
  return theme ? theme === "dark" : matchMedia("(prefers-color-scheme: dark)").matches;
};

type FrameAnswer = { ready?: true; id?: number; height?: number; error?: string };

function DiagramPreview({ source }: { source: string }) {
  const frame = useRef<HTMLIFrameElement>(null);
  const ready = useRef(false);
  const sent = useRef(0);
  const [error, setError] = useState<string | null>(null);
  const [drawn, setDrawn] = useState(false);
  const latest = useRef(source);
  latest.current = source;

  const send = () => {
    const win = frame.current?.contentWindow;
    if (!win || !ready.current) return;
    // The frame's origin is opaque (sandboxed), so no narrower target can be named; it holds nothing.
    win.postMessage({ id: ++sent.current, source: latest.current, dark: isDark() }, "*");
  };

  useEffect(() => {
    const onMessage = (e: MessageEvent) => {
      if (!frame.current || e.source !== frame.current.contentWindow) return;
      const m = e.data as FrameAnswer;
      if (m.ready) {
        ready.current = true;
        send();
      } else if (m.id === sent.current) {
        if (typeof m.error === "string") setError(m.error);
        else {
          setError(null);
          setDrawn(true);
          // CSSOM, not a style attribute: the app's CSP governs the latter only.
          if (typeof m.height === "number" && frame.current) frame.current.style.height = `${Math.max(0, Math.min(m.height, 4000))}px`;
        }
      }
    };
    window.addEventListener("message", onMessage);
    return () => window.removeEventListener("message", onMessage);
  }, []);

  // Redrawn a moment after the writer stops typing.
  useEffect(() => {
    const t = setTimeout(send, 250);
    return () => clearTimeout(t);
  }, [source]);

  return (
    <div className="source-preview diagram-preview" contentEditable={false} data-drawn={drawn ? "true" : "false"} data-stale={error ? "true" : "false"}>
      <iframe ref={frame} src={FRAME} sandbox="allow-scripts" title="Diagram preview" tabIndex={-1} />
      <p className="source-error" aria-live="polite" hidden={!error}>
        {error}
      </p>
    </div>
  );
}

function SourceView({ node }: ReactNodeViewProps) {
  const isMath = node.type.name !== "mermaid";
  return (
    <NodeViewWrapper className={`component-block source-block ${node.type.name}-block`}>
      <div className="component-part-head" contentEditable={false}>
        <span className="component-kind">{isMath ? "Math" : "Diagram"}</span>
      </div>
      <NodeViewContent<"pre"> as="pre" className="source-text" />
      {isMath ? <MathPreview source={node.textContent} /> : <DiagramPreview source={node.textContent} />}
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
