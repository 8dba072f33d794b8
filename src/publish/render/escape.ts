import { decodeHTMLStrict } from "entities";

/**
 * Decodes character references as CommonMark reads them (named ones need their semicolon). The
 * table is the `entities` package's, the one sanitize-html's parser (htmlparser2) decodes with.
 */
export function decodeEntities(text: string): string {
  return text.includes("&") ? decodeHTMLStrict(text) : text;
}

/** Block-level tags: their boundaries separate words ("<p>a</p><p>b</p>" reads "a b"). */
const BLOCK_TAG = /<\/?(?:p|div|li|h[1-6]|td|th|tr|label|summary|figcaption|pre|blockquote|section|aside|nav|ol|ul|dl|dt|dd|details|figure|table|br|hr)\b[^>]*>/gi;

/** The text content of an HTML fragment: tags dropped (blocks leave a space), references decoded, whitespace collapsed. */
export function textOf(html: string): string {
  return decodeEntities(html.replace(BLOCK_TAG, " ").replace(/<[^>]*>/g, "")).replace(/\s+/g, " ").trim();
}
