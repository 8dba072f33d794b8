/**
 * The published site's Content-Security-Policy. A served page is one immutable document for
 * every reader of its version (docs/decisions/site-caching.md), so its policy names no per-response
 * nonce: the site's one inline script is allowed by its SHA-256 hash, its other scripts come
 * from the site's own origin (the theme files under `_quire/`). The config block is JSON
 * (`type="application/json"`), which a browser never runs, so the policy need not name it.
 *
 * The preview (`quire preview`) is not cached by anyone and keeps a per-response nonce
 * (`previewCsp`): it adds an inline style and a reload script of its own.
 */
import { createHash } from "node:crypto";
import { MODE_SCRIPT } from "./layout.ts";

/** The CSP source of an inline script's exact text. */
function hashSource(text: string): string {
  return `'sha256-${createHash("sha256").update(text, "utf8").digest("base64")}'`;
}

/** The directives after script-src and style-src, the same for every page. */
const REST = [
  // KaTeX's inline styles are attributes (the only inline styles the site's own HTML holds).
  "style-src-attr 'unsafe-inline'",
  "img-src 'self' data: https:",
  "font-src 'self'",
  "connect-src 'self'",
  "manifest-src 'self'",
  "frame-src https://www.youtube-nocookie.com https://www.youtube.com https://player.vimeo.com https://codepen.io https://codesandbox.io https://stackblitz.com https://www.loom.com https://www.figma.com https://gist.github.com",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'self'",
  "object-src 'none'",
].join("; ");

const SCRIPTS = `script-src 'self' ${hashSource(MODE_SCRIPT)}`;

/**
 * The policy of a page without diagrams: style elements only from the site's stylesheets.
 * A page with a Mermaid diagram also admits inline style elements: Mermaid draws with `<style>`
 * elements it creates while measuring, and without a nonce nothing else can name them. Scripts
 * stay hash-and-self only on every page, so this admits styling, never code.
 */
const PLAIN = `default-src 'none'; ${SCRIPTS}; style-src 'self'; ${REST}`;
const WITH_DIAGRAMS = `default-src 'none'; ${SCRIPTS}; style-src 'self' 'unsafe-inline'; ${REST}`;

/** The served site's policy for a page (the same text for every reader and every response). */
export function siteCsp(hasDiagrams: boolean): string {
  return hasDiagrams ? WITH_DIAGRAMS : PLAIN;
}

/** The preview's policy: scripts and style elements by this response's nonce. */
export function previewCsp(nonce: string): string {
  return `default-src 'none'; script-src 'nonce-${nonce}'; style-src 'self' 'nonce-${nonce}'; ${REST}`;
}
