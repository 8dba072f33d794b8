/**
 * The HTML document of the app surface. It carries no inline script: the entry is an external
 * module allowed by 'self', and the per-response nonce exists for the editors' injected styles
 * (Tiptap and CodeMirror read it from the `csp-nonce` meta element). The boot data is a JSON data
 * block, which browsers never execute, so the first paint needs no extra request.
 */
import type { WebApp } from "./build-web.ts";
import { ASSET_PREFIX } from "./build-web.ts";

interface BootData {
  signup_enabled: boolean;
  email_enabled: boolean;
  /** The external sign-in providers this instance enables (a button each). */
  providers: Array<{ id: string; name: string }>;
  /** "Sign in with a passkey" is offered. */
  passkeys: boolean;
  version: string;
}

export function appCsp(nonce: string): string {
  return [
    "default-src 'self'",
    `script-src 'self' 'nonce-${nonce}'`,
    `style-src 'self' 'nonce-${nonce}'`,
    "img-src 'self' data: blob:",
    "font-src 'self'",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "frame-ancestors 'none'",
    "form-action 'self'",
  ].join("; ");
}

const escapeJson = (value: unknown) =>
  JSON.stringify(value).replace(/</g, "\\u003c").replace(/>/g, "\\u003e").replace(/&/g, "\\u0026");

/** An address that opens a page (`/w/<workspace>/p/<path>`, as the app's router reads it). */
const PAGE_ADDRESS = /^\/w\/[^/]+\/p\/./;

/**
 * The scripts this address preloads. A page's address also names the page screen's chunks (the
 * rich editor, the largest part of the app), so they download and compile while the entry starts
 * and the session is renewed, not after; other addresses skip them, as they may never need them.
 */
function preloadsFor(app: WebApp, path: string): string[] {
  return PAGE_ADDRESS.test(path) ? app.preloads.page : app.preloads.app;
}

export function shellHtml(app: WebApp, nonce: string, boot: BootData, path = "/"): string {
  const styles = app.styles.map((s) => `<link rel="stylesheet" href="${ASSET_PREFIX}${s}">`).join("");
  // Allowed by script-src 'self'; the nonce too, so a stricter policy later still admits them.
  const preloads = preloadsFor(app, path)
    .map((s) => `<link rel="modulepreload" nonce="${nonce}" href="${ASSET_PREFIX}${s}">`)
    .join("");
  return (
    `<!doctype html><html lang="en"><head><meta charset="utf-8">` +
    `<meta name="viewport" content="width=device-width, initial-scale=1">` +
    `<meta name="color-scheme" content="light dark">` +
    `<meta name="csp-nonce" nonce="${nonce}">` +
    `<title>Quire</title><link rel="icon" href="data:,">${styles}` +
    `<script type="application/json" id="quire-boot">${escapeJson(boot)}</script>` +
    `<script type="module" nonce="${nonce}" src="${ASSET_PREFIX}${app.entry}"></script>${preloads}` +
    `</head><body><div id="root"></div>` +
    `<noscript>Quire's editor needs JavaScript.</noscript></body></html>`
  );
}
