/** How a published site reads a request's path and Accept header. */

const MAX_SEGMENTS = 32;
/** A path of unreserved ASCII characters and slashes: its segments decode to themselves. */
const PLAIN_PATH = /^[A-Za-z0-9._~\/-]*$/;

/**
 * Splits the raw path into decoded segments; null for anything that is not a plain path:
 * malformed escapes, encoded slashes or backslashes, dot segments, control characters, hidden
 * (dot-first) segments, empty inner segments.
 */
export function splitPath(raw: string): string[] | null {
  const trimmed = raw.replace(/^\//, "");
  if (trimmed === "") return [];
  const parts = trimmed.replace(/\/$/, "").split("/");
  if (parts.length > MAX_SEGMENTS) return null;
  // The usual path: unreserved ASCII only, so nothing to decode or normalize; the same checks.
  if (PLAIN_PATH.test(trimmed)) {
    for (const part of parts) if (part === "" || part.startsWith(".")) return null;
    return parts;
  }
  const out: string[] = [];
  for (const part of parts) {
    if (part === "") return null;
    let seg: string;
    try {
      seg = decodeURIComponent(part);
    } catch {
      return null;
    }
    if (seg === "." || seg === ".." || seg.startsWith(".") || /[\/\\\u0000-\u001f\u007f]/.test(seg) || /%[0-9a-f]{2}/i.test(seg)) return null;
    if (seg !== seg.normalize("NFC") && seg.normalize("NFC") === "") return null;
    out.push(seg.normalize("NFC"));
  }
  return out;
}

/** Whether the reader asks for the Markdown twin of a page (text/markdown preferred over text/html). */
export function wantsMarkdown(accept: string | null): boolean {
  if (!accept || !/markdown/i.test(accept)) return false;
  return /(^|,)\s*text\/markdown\s*(;|,|$)/i.test(accept) && !/(^|,)\s*text\/html\s*(;|,|$)/i.test(accept.split(/text\/markdown/i)[0] ?? "");
}

/**
 * A Streamable HTTP client opening the site's MCP endpoint's event stream (`GET …/mcp` asking for
 * `text/event-stream` and not for HTML). The endpoint offers none (docs/decisions/site-mcp.md),
 * and the transport's answer for that is 405; a browser asking for a page named `mcp` never
 * matches, and is answered the page.
 */
export function isMcpStreamRequest(method: string, tail: string, accept: string | null): boolean {
  return method === "GET" && tail === "/mcp" && accept !== null && /text\/event-stream/i.test(accept) && !/text\/html/i.test(accept);
}
