/**
 * Escaping for every output format the site writes. User strings (titles, descriptions, site
 * names, paths) reach HTML text, HTML attributes, XML (sitemap, RSS), JSON (manifest) and
 * Markdown (llms.txt); each gets the escaping of its format, and every one first loses what the
 * format cannot carry at all: a lone UTF-16 surrogate (from a broken title) would make the XML
 * ill-formed and the JSON unparseable by strict readers, so it becomes U+FFFD.
 */
import { wellFormed } from "../../core/escape.ts";

const XML: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&apos;" };

// XML 1.0 forbids C0 controls other than tab, newline and carriage return, and U+FFFE/U+FFFF.
const XML_INVALID = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g;

/** XML text and attribute values. */
export function escapeXml(text: string): string {
  return wellFormed(text).replace(XML_INVALID, "").replace(/[&<>"']/g, (c) => XML[c]!);
}

/** JSON text safe to embed anywhere, including inside an HTML <script>: no `<`, no lone surrogates. */
export function safeJson(value: unknown, space?: number): string {
  return JSON.stringify(value, (_k, v) => (typeof v === "string" ? wellFormed(v) : v), space)
    .replace(/</g, "\\u003c")
    .replace(/\u2028/g, "\\u2028")
    .replace(/\u2029/g, "\\u2029");
}

/** One line of plain text for Markdown link text and list items: no newlines, brackets escaped. */
export function markdownInline(text: string): string {
  return wellFormed(text)
    .replace(/[\r\n]+/g, " ")
    .replace(/([\\`*_[\]<>])/g, "\\$1")
    .trim();
}
