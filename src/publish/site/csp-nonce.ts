/**
 * The published site's Content-Security-Policy and its per-response nonce. A page is rendered
 * once with a placeholder where the nonce goes and kept as bytes with gaps (`nonceTemplate`);
 * each response copies those bytes and writes a fresh nonce into the gaps (`withNonce`), so a
 * cached page never re-encodes its HTML.
 */

/** Written into a rendered page wherever the nonce goes (never valid in HTML, so never in a page's own text). */
export const NONCE_MARK = "\u0000quire-nonce\u0000";

/** The published site's Content-Security-Policy: scripts only by nonce; KaTeX's inline styles only as attributes. */
export function siteCsp(nonce: string): string {
  return `${CSP_HEAD}${nonce}${CSP_MIDDLE}${nonce}${CSP_TAIL}`;
}
const CSP_HEAD = "default-src 'none'; script-src 'nonce-";
const CSP_MIDDLE = "'; style-src 'self' 'nonce-";
const CSP_TAIL =
  "'; " +
  [
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

/** A rendered page as bytes with a gap wherever the nonce goes. */
export interface NonceTemplate {
  /** The document's UTF-8 bytes with NONCE_LENGTH placeholder bytes wherever the nonce goes. */
  template: Uint8Array;
  /** Byte offsets of the nonce placeholders in `template`. */
  nonceAt: number[];
}

const utf8 = new TextEncoder();

/**
 * CSP nonces: 144 random bits each (18 bytes, exactly 24 base64 characters, no padding), drawn
 * from the system's CSPRNG a batch at a time and each used once. A batch of 256 costs one random
 * fill and one base64 encoding instead of both per response.
 */
const NONCE_BYTES = 18;
const NONCE_LENGTH = 24;
const NONCE_BATCH = 256;
let nonceText = "";
let nonceAscii = new Uint8Array(0);
let nonceNext = NONCE_BATCH;

/** A fresh nonce: its text (for the header) and the same characters as bytes (for the body). */
export function nextNonce(): { text: string; ascii: Uint8Array } {
  if (nonceNext >= NONCE_BATCH) {
    const random = Buffer.alloc(NONCE_BYTES * NONCE_BATCH);
    crypto.getRandomValues(random);
    nonceText = random.toString("base64");
    nonceAscii = utf8.encode(nonceText);
    nonceNext = 0;
  }
  const at = nonceNext++ * NONCE_LENGTH;
  return { text: nonceText.slice(at, at + NONCE_LENGTH), ascii: nonceAscii.subarray(at, at + NONCE_LENGTH) };
}

/** The document as UTF-8 bytes with a NONCE_LENGTH gap at each nonce mark, and where the gaps are. */
export function nonceTemplate(html: string): NonceTemplate {
  const parts = html.split(NONCE_MARK).map((p) => utf8.encode(p));
  let size = 0;
  for (const p of parts) size += p.byteLength;
  const template = new Uint8Array(size + NONCE_LENGTH * (parts.length - 1));
  const nonceAt: number[] = [];
  let at = 0;
  for (let i = 0; i < parts.length; i++) {
    if (i > 0) {
      nonceAt.push(at);
      at += NONCE_LENGTH;
    }
    template.set(parts[i]!, at);
    at += parts[i]!.byteLength;
  }
  return { template, nonceAt };
}

/** This response's body: one copy of the template with the nonce written into its gaps. */
export function withNonce(doc: NonceTemplate, nonce: Uint8Array): Uint8Array {
  const out = doc.template.slice();
  for (const at of doc.nonceAt) out.set(nonce, at);
  return out;
}
