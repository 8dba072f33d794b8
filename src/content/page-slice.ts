/**
 * A page read in slices, as agents read long pages. Kept apart from the agent operations so a
 * transport that only slices (MCP tools) loads nothing else.
 */
import type { PageJson } from "./page-records.ts";

export interface PageSlice extends PageJson {
  offset: number;
  total_chars: number;
  truncated: boolean;
  next_offset: number | null;
}

/** Cuts `content` at [offset, offset + maxChars), never between the two halves of a surrogate pair. */
export function sliceContent(page: PageJson, offset: number, maxChars: number): PageSlice {
  const content = page.content ?? "";
  const start = Math.min(offset, content.length);
  let end = Math.min(start + maxChars, content.length);
  if (end < content.length && end > start && isHighSurrogate(content.charCodeAt(end - 1))) end--;
  const truncated = end < content.length;
  return { ...page, content: content.slice(start, end), offset: start, total_chars: content.length, truncated, next_offset: truncated ? end : null };
}

const isHighSurrogate = (code: number) => code >= 0xd800 && code <= 0xdbff;
