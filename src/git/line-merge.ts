/**
 * Line-wise three-way merge for the `.quire/*.yaml` manifests (docs/architecture.md §6): both sides' edits
 * are kept when they touch different lines of the base; edits that overlap or touch each other
 * are a conflict (null), as git's own merge treats them. Markdown pages never come here.
 */
interface Hunk {
  /** Base lines [start, end) replaced by `lines`. */
  start: number;
  end: number;
  lines: string[];
}

export function mergeLines(base: string, ours: string, theirs: string): string | null {
  if (ours === theirs) return ours;
  if (ours === base) return theirs;
  if (theirs === base) return ours;
  const b = split(base);
  const a = diff(b, split(ours));
  const t = diff(b, split(theirs));
  const out: string[] = [];
  let pos = 0;
  let i = 0;
  let j = 0;
  while (i < a.length || j < t.length) {
    const x = a[i];
    const y = t[j];
    let next: Hunk;
    if (x && y && x.start <= y.end && y.start <= x.end) {
      if (x.start === y.start && x.end === y.end && x.lines.join("\n") === y.lines.join("\n")) {
        next = x;
        i++;
        j++;
      } else return null;
    } else if (x && (!y || x.start < y.start)) {
      next = x;
      i++;
    } else {
      next = y!;
      j++;
    }
    out.push(...b.slice(pos, next.start), ...next.lines);
    pos = next.end;
  }
  out.push(...b.slice(pos));
  return out.join("");
}

/** Lines with their endings kept, so the merged text keeps the file's newlines byte for byte. */
function split(text: string): string[] {
  return text.match(/[^\n]*\n|[^\n]+$/g) ?? [];
}

/** The hunks turning `base` into `other`, from a longest-common-subsequence table. */
function diff(base: string[], other: string[]): Hunk[] {
  const n = base.length;
  const m = other.length;
  const lcs: Uint32Array[] = Array.from({ length: n + 1 }, () => new Uint32Array(m + 1));
  for (let x = n - 1; x >= 0; x--) {
    for (let y = m - 1; y >= 0; y--) {
      lcs[x]![y] = base[x] === other[y] ? lcs[x + 1]![y + 1]! + 1 : Math.max(lcs[x + 1]![y]!, lcs[x]![y + 1]!);
    }
  }
  const hunks: Hunk[] = [];
  let x = 0;
  let y = 0;
  let open: Hunk | null = null;
  while (x < n || y < m) {
    if (x < n && y < m && base[x] === other[y]) {
      if (open) hunks.push(open);
      open = null;
      x++;
      y++;
    } else if (y < m && (x === n || lcs[x]![y + 1]! >= lcs[x + 1]![y]!)) {
      open ??= { start: x, end: x, lines: [] };
      open.lines.push(other[y]!);
      y++;
    } else {
      open ??= { start: x, end: x, lines: [] };
      x++;
      open.end = x;
    }
  }
  if (open) hunks.push(open);
  return hunks;
}
