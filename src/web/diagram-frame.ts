/**
 * The document that draws a Mermaid diagram's preview in the editor (docs/decisions/editor-blocks.md,
 * "Diagrams"). Mermaid draws with `<style>` elements and style attributes, which the app's CSP
 * refuses; rather than admit inline styles in the app, the preview is a sandboxed frame
 * (`sandbox="allow-scripts"`: an opaque origin, so nothing in it reaches the app's cookies, storage
 * or API) served with a policy of its own: scripts by this response's nonce only, inline styles
 * admitted, nothing fetched or framed. The frame receives the diagram's source by `postMessage`
 * from its parent only, and answers with the drawing's height or Mermaid's error message.
 */

/** The frame's URL, under the app's asset prefix. */
export const DIAGRAM_FRAME_PATH = "/_app/diagram.html";
/** Mermaid's browser bundle (the published site's own vendor file), for the frame. */
export const MERMAID_PATH = "/_app/vendor/mermaid.js";

export function diagramFrameCsp(nonce: string): string {
  return [
    "default-src 'none'",
    `script-src 'nonce-${nonce}'`,
    "style-src 'unsafe-inline'",
    "img-src data:",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'self'",
  ].join("; ");
}

/**
 * The frame's script: draws each source it is sent (one at a time, in order), posts back
 * `{ id, height }` or `{ id, error }`, and its height again when its width changes the drawing.
 * Mermaid's own error drawing is suppressed: the editor shows the message in place.
 */
const SCRIPT = `
const ORIGIN = new URL(location.href).origin;
const out = document.getElementById("out");
let queue = Promise.resolve(), n = 0, last = null;
const tell = (m) => parent.postMessage(m, ORIGIN);
const height = () => Math.ceil(out.getBoundingClientRect().height);
async function draw(id, source, dark) {
  try {
    mermaid.initialize({ startOnLoad: false, securityLevel: "strict", theme: dark ? "dark" : "default", suppressErrorRendering: true });
    const { svg } = await mermaid.render("diagram-" + ++n, source);
    out.innerHTML = svg;
    document.documentElement.dataset.theme = dark ? "dark" : "light";
    last = id;
    tell({ id, height: height() });
  } catch (err) {
    tell({ id, error: String((err && err.message) || err) });
  }
}
addEventListener("message", (e) => {
  const m = e.data;
  if (e.source !== parent || !m || typeof m.source !== "string") return;
  queue = queue.then(() => draw(m.id, m.source, m.dark === true));
});
new ResizeObserver(() => { if (last !== null) tell({ id: last, height: height() }); }).observe(out);
tell({ ready: true });
`;

export function diagramFrameHtml(nonce: string, mermaidUrl: string): string {
  return (
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Diagram preview</title>` +
    `<style>html{color-scheme:light}html,body{margin:0;background:transparent}#out svg{display:block;margin:0 auto;height:auto}</style>` +
    `<script nonce="${nonce}" src="${mermaidUrl}"></script>` +
    `</head><body><div id="out"></div><script nonce="${nonce}">${SCRIPT}</script></body></html>`
  );
}
