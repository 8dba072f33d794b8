import { diffArrays, structuredPatch, diffWordsWithSpace } from "diff";
import { parseYaml, splitFile } from "../content/frontmatter.ts";

/**
 * Text work of the history: page ids read from a blob, line counts of a change, unified diffs and
 * frontmatter changes as fields. Line counts skip the common head and tail first, so a small edit
 * of a long page costs little; a middle past MAX_EXACT lines is counted as replaced wholesale.
 */
const MAX_EXACT = 4000;
const utf8 = new TextDecoder("utf-8", { fatal: true });
const lenient = new TextDecoder("utf-8");

interface DecodedText {
  text: string;
  /** False when the bytes were not valid UTF-8 (shown with replacement characters). */
  valid_utf8: boolean;
}

export function decode(bytes: Uint8Array): DecodedText {
  try {
    return { text: utf8.decode(bytes), valid_utf8: true };
  } catch {
    return { text: lenient.decode(bytes), valid_utf8: false };
  }
}

/** The frontmatter `id` of a page file, read from its first lines without parsing the YAML. */
export function pageIdOf(bytes: Uint8Array | null): string | null {
  if (!bytes) return null;
  const head = lenient.decode(bytes.subarray(0, 4096)).replace(/^\uFEFF/, "");
  if (!head.startsWith("---")) return null;
  const end = head.indexOf("\n---", 3);
  const block = end < 0 ? head : head.slice(0, end);
  const m = /^id:[ \t]*["']?([A-Za-z0-9_-]{1,80})["']?[ \t]*\r?$/m.exec(block);
  return m ? m[1]! : null;
}

function lines(text: string): string[] {
  if (text === "") return [];
  const out = text.split("\n");
  if (out[out.length - 1] === "") out.pop();
  return out;
}

/** Lines added and removed between two texts. */
export function lineStats(before: string, after: string): { added: number; removed: number } {
  const a = lines(before);
  const b = lines(after);
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) {
    endA--;
    endB--;
  }
  const midA = a.slice(start, endA);
  const midB = b.slice(start, endB);
  if (midA.length === 0 || midB.length === 0 || midA.length + midB.length > MAX_EXACT) return { added: midB.length, removed: midA.length };
  let added = 0;
  let removed = 0;
  for (const part of diffArrays(midA, midB)) {
    if (part.added) added += part.count ?? part.value.length;
    else if (part.removed) removed += part.count ?? part.value.length;
  }
  return { added, removed };
}

/** A unified diff of one file between two versions (git's format, three lines of context). */
export function unifiedDiff(path: string, before: string, after: string, fromLabel: string, toLabel: string): string {
  const patch = structuredPatch(`a/${path}`, `b/${path}`, before, after, fromLabel, toLabel, { context: 3 });
  const out = [`--- a/${path}\t${fromLabel}`, `+++ b/${path}\t${toLabel}`];
  for (const h of patch.hunks) {
    out.push(`@@ -${h.oldStart},${h.oldLines} +${h.newStart},${h.newLines} @@`, ...h.lines);
  }
  return patch.hunks.length === 0 ? "" : `${out.join("\n")}\n`;
}

interface WordChange {
  /** The hunk line pair (old line number, new line number) this highlight belongs to. */
  old_line: number;
  new_line: number;
  parts: Array<{ kind: "same" | "added" | "removed"; text: string }>;
}

/**
 * Word-level highlights for lines changed one for one (a removed line directly followed by an
 * added one): what changed inside the line. Only for changed blocks of equal length, at most
 * MAX_WORD_LINES pairs, so a rewrite does not cost a word diff per line.
 */
const MAX_WORD_LINES = 200;
export function wordChanges(before: string, after: string): WordChange[] {
  const patch = structuredPatch("a", "b", before, after, "", "", { context: 0 });
  const out: WordChange[] = [];
  for (const h of patch.hunks) {
    let oldLine = h.oldStart;
    let newLine = h.newStart;
    let i = 0;
    while (i < h.lines.length) {
      const removed: string[] = [];
      const added: string[] = [];
      while (i < h.lines.length && h.lines[i]!.startsWith("-")) removed.push(h.lines[i++]!.slice(1));
      while (i < h.lines.length && h.lines[i]!.startsWith("+")) added.push(h.lines[i++]!.slice(1));
      if (removed.length === 0 && added.length === 0) {
        i++; // "\ No newline at end of file"
        continue;
      }
      if (removed.length === added.length) {
        for (let k = 0; k < removed.length && out.length < MAX_WORD_LINES; k++) {
          const parts = diffWordsWithSpace(removed[k]!, added[k]!).map((p) => ({ kind: p.added ? ("added" as const) : p.removed ? ("removed" as const) : ("same" as const), text: p.value }));
          out.push({ old_line: oldLine + k, new_line: newLine + k, parts });
        }
      }
      oldLine += removed.length;
      newLine += added.length;
    }
  }
  return out;
}

interface FrontmatterChange {
  field: string;
  before: unknown;
  after: unknown;
}

/** The frontmatter of a page text as fields ({} when it has none or its YAML is invalid). */
export function frontmatterOf(text: string): { fields: Record<string, unknown>; invalid: boolean } {
  const split = splitFile(text);
  if (split.block === "") return { fields: {}, invalid: false };
  try {
    return { fields: parseYaml(split.yaml), invalid: false };
  } catch {
    return { fields: {}, invalid: true };
  }
}

/** Frontmatter keys whose values differ (title, tags, publish…); the id is the page's, never a change. */
export function frontmatterChanges(before: string, after: string): FrontmatterChange[] {
  const a = frontmatterOf(before).fields;
  const b = frontmatterOf(after).fields;
  const out: FrontmatterChange[] = [];
  for (const field of new Set([...Object.keys(a), ...Object.keys(b)])) {
    if (field === "id") continue;
    if (!Bun.deepEquals(a[field], b[field])) out.push({ field, before: a[field] ?? null, after: b[field] ?? null });
  }
  return out;
}
