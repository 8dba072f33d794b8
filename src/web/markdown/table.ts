/**
 * A table node → a GFM table, in the table's own style. Given the table it replaces (its source and
 * the editor's node for it), a row the person did not touch keeps its line byte for byte, the
 * delimiter row stays as written while the alignments hold, and columns are padded only when the
 * source was padded — then a column grows when a cell outgrows it, and only that column's padding
 * changes in the other rows. Ragged rows and odd spacing survive as long as their row is untouched.
 */
import { serializeInline } from "./inline.ts";
import { nodeKey, type PMNode } from "./pm.ts";

export interface TableSource {
  text: string;
  /** The editor's node for `text` when it was loaded; rows are matched against its rows. */
  node?: PMNode;
}

type Align = "left" | "center" | "right" | null;

interface Style {
  leadingPipe: boolean;
  trailingPipe: boolean;
  spaced: boolean;
  /** Column widths when every line of the source was padded to them, else null. */
  widths: number[] | null;
}

const WIDE = /[\u1100-\u115f\u2e80-\ua4cf\uac00-\ud7a3\uf900-\ufaff\ufe30-\ufe4f\uff00-\uff60\uffe0-\uffe6\u{1f300}-\u{1f64f}\u{1f900}-\u{1f9ff}\u{20000}-\u{3fffd}]/u;

/** Display width as table formatters count it: East Asian wide characters take two columns. */
function width(text: string): number {
  let w = 0;
  for (const ch of text) w += WIDE.test(ch) ? 2 : 1;
  return w;
}

/** Pads a cell to a column's width, placed as its alignment says (as table formatters do). */
function padTo(text: string, w: number, align: Align = null): string {
  const room = Math.max(0, w - width(text));
  if (align === "right") return " ".repeat(room) + text;
  if (align === "center") return " ".repeat(Math.floor(room / 2)) + text + " ".repeat(room - Math.floor(room / 2));
  return text + " ".repeat(room);
}

/** A row line's cells as written, split on pipes no backslash escapes, outer pipes dropped. */
function segments(line: string): { cells: string[]; leading: boolean; trailing: boolean } {
  const cells: string[] = [];
  let cur = "";
  for (let i = 0; i < line.length; i++) {
    const ch = line[i]!;
    if (ch === "\\" && i + 1 < line.length) {
      cur += ch + line[i + 1];
      i++;
    } else if (ch === "|") {
      cells.push(cur);
      cur = "";
    } else cur += ch;
  }
  cells.push(cur);
  const leading = cells.length > 1 && cells[0]!.trim() === "";
  const trailing = cells.length > 1 && cells[cells.length - 1]!.trim() === "";
  return { cells: cells.slice(leading ? 1 : 0, trailing ? cells.length - 1 : cells.length), leading, trailing };
}

function styleOf(lines: string[]): Style {
  const split = lines.map(segments);
  const head = split[0]!;
  // Spaced: a space on each side of every cell, except an outer side written without a pipe.
  const spacedCell = (s: { cells: string[]; leading: boolean; trailing: boolean }) =>
    s.cells.every((c, i) => (c.startsWith(" ") || (i === 0 && !s.leading)) && (c.endsWith(" ") || (i === s.cells.length - 1 && !s.trailing)));
  const spaced = spacedCell(head);
  // Padded: every line has every cell between single spaces, each column at one width.
  const padded =
    head.leading &&
    head.trailing &&
    split.every((s) => s.leading && s.trailing && s.cells.length === head.cells.length && s.cells.every((c, i) => c.startsWith(" ") && c.endsWith(" ") && width(c) - 2 === width(head.cells[i]!) - 2));
  return { leadingPipe: head.leading, trailingPipe: head.trailing, spaced, widths: padded ? head.cells.map((c) => width(c) - 2) : null };
}

/** A cell's Markdown: its inline content on one line, pipes escaped (inside code spans too, as GFM reads them). */
function cellText(cell: PMNode): string {
  const inline: PMNode[] = [];
  for (const block of cell.content ?? []) {
    if (inline.length > 0) inline.push({ type: "text", text: " " });
    for (const n of block.content ?? []) inline.push(n.type === "hardBreak" ? { type: "text", text: " " } : n);
  }
  return serializeInline(inline).replace(/\n/g, " ").replace(/\|/g, "\\|").trim();
}

/** Cells of a row, a cell spanning several columns followed by empty ones so the grid stays whole. */
function rowCells(row: PMNode): PMNode[] {
  const out: PMNode[] = [];
  for (const cell of row.content ?? []) {
    out.push(cell);
    for (let k = 1; k < Number(cell.attrs?.colspan ?? 1); k++) out.push({ type: cell.type });
  }
  return out;
}

function alignOf(cell: PMNode | undefined): Align {
  const a = cell?.attrs?.align;
  return a === "left" || a === "center" || a === "right" ? a : null;
}

/** The narrowest delimiter cell that still says its alignment. */
const minWidth = (align: Align) => (align === "center" ? 3 : align ? 2 : 1);

function delimiterCell(align: Align, w: number): string {
  const n = Math.max(w, minWidth(align));
  if (align === "center") return ":" + "-".repeat(n - 2) + ":";
  if (align === "left") return ":" + "-".repeat(n - 1);
  if (align === "right") return "-".repeat(n - 1) + ":";
  return "-".repeat(n);
}

function line(cells: string[], style: Style, widths: number[] | null, aligns: Align[] = []): string {
  const parts = cells.map((c, i) => (widths ? padTo(c, widths[i]!, aligns[i]) : c));
  if (!style.spaced && !widths) return (style.leadingPipe ? "|" : "") + parts.join("|") + (style.trailingPipe ? "|" : "");
  const body = parts.join(" | ");
  return (style.leadingPipe ? "| " : "") + body + (style.trailingPipe ? " |" : "");
}

/** Longest common subsequence of two key lists, as index pairs. */
function commonRows(a: string[], b: string[]): Array<[number, number]> {
  const n = a.length;
  const m = b.length;
  const dp = new Uint32Array((n + 1) * (m + 1));
  for (let i = n - 1; i >= 0; i--) for (let j = m - 1; j >= 0; j--) dp[i * (m + 1) + j] = a[i] === b[j] ? dp[(i + 1) * (m + 1) + j + 1]! + 1 : Math.max(dp[(i + 1) * (m + 1) + j]!, dp[i * (m + 1) + j + 1]!);
  const pairs: Array<[number, number]> = [];
  let i = 0;
  let j = 0;
  while (i < n && j < m) {
    if (a[i] === b[j]) pairs.push([i++, j++]);
    else if (dp[(i + 1) * (m + 1) + j]! >= dp[i * (m + 1) + j + 1]!) i++;
    else j++;
  }
  return pairs;
}

/** A row's identity for keeping its line: alignment lives on every cell but is written in the delimiter row only. */
function rowKey(row: PMNode): string {
  return nodeKey({ ...row, content: (row.content ?? []).map((c) => ({ ...c, attrs: { ...c.attrs, align: null, colwidth: null } })) });
}

/**
 * The source's column widths in the new column order: when the header cells are the old ones
 * reordered (a column was moved), each width goes with its column; otherwise they stay by index.
 */
function columnWidths(widths: number[], oldHeader: string[], newHeader: string[]): number[] {
  if (oldHeader.length !== newHeader.length || new Set(oldHeader).size !== oldHeader.length) return widths;
  const from = newHeader.map((h) => oldHeader.indexOf(h));
  return from.every((i) => i >= 0) ? from.map((i) => widths[i]!) : widths;
}

export function serializeTable(node: PMNode, source?: TableSource): string {
  const rows = node.content ?? [];
  const grid = rows.map((r) => rowCells(r).map(cellText));
  const columns = Math.max(1, ...grid.map((r) => r.length));
  for (const r of grid) while (r.length < columns) r.push("");
  const aligns = Array.from({ length: columns }, (_, i) => alignOf(rowCells(rows[0] ?? { type: "tableRow" })[i]));

  const lines = source ? source.text.split("\n") : [];
  const oldRows = source?.node?.content ?? [];
  // Rows line up with the source only when it holds a header, a delimiter row and one line per body row.
  const matchable = lines.length >= 2 && oldRows.length === lines.length - 1;
  const style: Style = lines.length >= 2 ? styleOf(lines) : { leadingPipe: true, trailingPipe: true, spaced: true, widths: null };
  const oldColumns = lines.length >= 2 ? segments(lines[1]!).cells.length : 0;
  const sameShape = oldColumns === columns;

  // Which new row keeps which source line (index into `lines`: 0 the header, k + 1 body row k).
  const kept = new Map<number, number>();
  if (matchable && sameShape) {
    const oldKeys = oldRows.map(rowKey);
    const newKeys = rows.map(rowKey);
    for (const [i, j] of commonRows(oldKeys, newKeys)) if ((i === 0) === (j === 0)) kept.set(j, i === 0 ? 0 : i + 1);
  }

  let widths: number[] | null = null;
  if (style.widths) {
    const old = sameShape ? columnWidths(style.widths, matchable ? rowCells(oldRows[0]!).map(cellText) : [], grid[0] ?? []) : [];
    widths = Array.from({ length: columns }, (_, c) => Math.max(old[c] ?? 3, minWidth(aligns[c]!), ...grid.filter((_, j) => !kept.has(j)).map((r) => width(r[c]!))));
  }
  const grown = widths && style.widths && sameShape ? widths.map((w, c) => w !== style.widths![c]) : null;

  const rowLine = (j: number): string => {
    const at = kept.get(j);
    if (at === undefined) return line(grid[j]!, style, widths, aligns);
    if (!grown || !grown.some(Boolean)) return lines[at]!;
    // Padded and a column grew: re-pad only that column of this untouched line.
    const s = segments(lines[at]!);
    const cells = s.cells.map((c, k) => (grown[k] ? " " + padTo(c.trim(), widths![k]!, aligns[k]) + " " : c));
    return (s.leading ? "|" : "") + cells.join("|") + (s.trailing ? "|" : "");
  };

  const oldAligns = matchable ? rowCells(oldRows[0]!).map(alignOf) : [];
  const delimiterKept = matchable && sameShape && aligns.every((a, i) => a === oldAligns[i]) && (!grown || !grown.some(Boolean));
  const delimiter = delimiterKept ? lines[1]! : line(aligns.map((a, i) => delimiterCell(a, widths ? widths[i]! : 3)), style, widths);

  const out = [rowLine(0), delimiter];
  for (let j = 1; j < rows.length; j++) out.push(rowLine(j));
  return out.join("\n");
}
