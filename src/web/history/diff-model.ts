/**
 * The diff view's model, from the API's diff answer: unified lines with their numbers, rows side by
 * side (a removed run beside the added run that replaced it), word highlights by line pair, and
 * the inverse of a diff (a restore's confirmation shows the current file → the version, while the
 * API diffs the version → the current file).
 */
import type { PageDiff } from "../api/history.ts";

type LineKind = "same" | "added" | "removed" | "hunk";
type Part = { kind: "same" | "added" | "removed"; text: string };

export interface DiffLine {
  kind: LineKind;
  text: string;
  oldNo: number | null;
  newNo: number | null;
  /** Word highlights when this line was changed one for one. */
  parts?: Part[];
}

export function unifiedLines(diff: PageDiff): DiffLine[] {
  const out: DiffLine[] = [];
  const removedWords = new Map<number, Part[]>();
  const addedWords = new Map<number, Part[]>();
  for (const w of diff.words ?? []) {
    removedWords.set(w.old_line, w.parts.filter((p) => p.kind !== "added"));
    addedWords.set(w.new_line, w.parts.filter((p) => p.kind !== "removed"));
  }
  let oldNo = 0;
  let newNo = 0;
  for (const line of diff.unified.split("\n")) {
    if (line.startsWith("--- ") || line.startsWith("+++ ") || line === "" || line.startsWith("\\")) continue;
    const hunk = /^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@/.exec(line);
    if (hunk) {
      oldNo = Number(hunk[1]);
      newNo = Number(hunk[2]);
      out.push({ kind: "hunk", text: line, oldNo: null, newNo: null });
    } else if (line.startsWith("-")) {
      out.push({ kind: "removed", text: line.slice(1), oldNo, newNo: null, parts: removedWords.get(oldNo) });
      oldNo++;
    } else if (line.startsWith("+")) {
      out.push({ kind: "added", text: line.slice(1), oldNo: null, newNo, parts: addedWords.get(newNo) });
      newNo++;
    } else {
      out.push({ kind: "same", text: line.slice(1), oldNo, newNo });
      oldNo++;
      newNo++;
    }
  }
  return out;
}

interface SideRow {
  left: DiffLine | null;
  right: DiffLine | null;
  hunk?: string;
}

/** Unchanged lines on both sides; a run of removed lines beside the run of added lines after it. */
export function sideBySide(lines: DiffLine[]): SideRow[] {
  const rows: SideRow[] = [];
  let i = 0;
  while (i < lines.length) {
    const line = lines[i]!;
    if (line.kind === "hunk") {
      rows.push({ left: null, right: null, hunk: line.text });
      i++;
    } else if (line.kind === "same") {
      rows.push({ left: line, right: line });
      i++;
    } else {
      const removed: DiffLine[] = [];
      const added: DiffLine[] = [];
      while (i < lines.length && lines[i]!.kind === "removed") removed.push(lines[i++]!);
      while (i < lines.length && lines[i]!.kind === "added") added.push(lines[i++]!);
      for (let k = 0; k < Math.max(removed.length, added.length); k++) rows.push({ left: removed[k] ?? null, right: added[k] ?? null });
    }
  }
  return rows;
}

const flip = (kind: "same" | "added" | "removed") => (kind === "added" ? "removed" : kind === "removed" ? "added" : "same");

/** The same diff read the other way round: what was added is removed, old and new swap. */
export function invertDiff(diff: PageDiff): PageDiff {
  const lines = diff.unified.split("\n");
  const ordered: string[] = [];
  let i = 0;
  // The file header: the old name becomes the new one.
  if (lines[0]?.startsWith("--- ") && lines[1]?.startsWith("+++ ")) {
    ordered.push(`--- ${lines[1].slice(4)}`, `+++ ${lines[0].slice(4)}`);
    i = 2;
  }
  while (i < lines.length) {
    const line = lines[i]!;
    const hunk = /^@@ -(\d+(?:,\d+)?) \+(\d+(?:,\d+)?) @@(.*)$/.exec(line);
    if (hunk) {
      ordered.push(`@@ -${hunk[2]} +${hunk[1]} @@${hunk[3]}`);
      i++;
    } else if (line.startsWith("+") || line.startsWith("-")) {
      // A changed run: what was added is now removed, and removals come first.
      const run: string[] = [];
      while (i < lines.length && /^[+-]/.test(lines[i]!)) run.push(lines[i++]!);
      ordered.push(...run.filter((l) => l.startsWith("+")).map((l) => `-${l.slice(1)}`), ...run.filter((l) => l.startsWith("-")).map((l) => `+${l.slice(1)}`));
    } else {
      ordered.push(line);
      i++;
    }
  }
  return {
    ...diff,
    from: diff.to,
    to: diff.from,
    unified: ordered.join("\n"),
    added: diff.removed,
    removed: diff.added,
    frontmatter_changes: diff.frontmatter_changes.map((c) => ({ field: c.field, before: c.after, after: c.before })),
    words: diff.words?.map((w) => ({ old_line: w.new_line, new_line: w.old_line, parts: w.parts.map((p) => ({ kind: flip(p.kind), text: p.text })) })),
    rendered: diff.rendered?.map((b) => ({ kind: flip(b.kind), html: b.html })),
  };
}
