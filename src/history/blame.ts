import { diffArrays } from "diff";

/**
 * Line attribution of a page (docs/decisions/page-history.md §10): each line of the newest text
 * carries the version that last wrote it. Versions are walked oldest first and each step is a
 * line diff against the one before, so the attribution follows the page across renames (the
 * versions come from the index by page id, whatever their path). A step skips the common head and
 * tail first; a changed middle longer than MAX_EXACT lines is taken as rewritten wholesale, which
 * keeps a huge rewrite from costing a quadratic diff.
 */
const MAX_EXACT = 4000;

interface BlameStep {
  /** The version's commit id; null for the current file's uncommitted lines. */
  commit: string | null;
  /** The whole text at that version; null when the version deleted the page. */
  text: string | null;
}

interface BlameRange {
  /** First line (1-based) of a run of lines last written by one version. */
  start: number;
  count: number;
  commit: string | null;
}

function lines(text: string): string[] {
  if (text === "") return [];
  const out = text.split("\n");
  if (out[out.length - 1] === "") out.pop();
  return out;
}

/** `steps` oldest first; the attribution of the last step's lines, as runs. */
export function blame(steps: BlameStep[]): BlameRange[] {
  let text: string[] = [];
  let owner: Array<string | null> = [];
  for (const step of steps) {
    const next = step.text === null ? [] : lines(step.text);
    owner = carry(text, owner, next, step.commit);
    text = next;
  }
  return runs(owner);
}

/** The owners of `next`'s lines: kept lines keep theirs, every other line is `commit`'s. */
function carry(prev: string[], owners: Array<string | null>, next: string[], commit: string | null): Array<string | null> {
  let head = 0;
  while (head < prev.length && head < next.length && prev[head] === next[head]) head++;
  let tailPrev = prev.length;
  let tailNext = next.length;
  while (tailPrev > head && tailNext > head && prev[tailPrev - 1] === next[tailNext - 1]) {
    tailPrev--;
    tailNext--;
  }
  const out: Array<string | null> = owners.slice(0, head);
  const midPrev = prev.slice(head, tailPrev);
  const midNext = next.slice(head, tailNext);
  if (midPrev.length === 0 || midNext.length === 0 || midPrev.length + midNext.length > MAX_EXACT) {
    for (let i = 0; i < midNext.length; i++) out.push(commit);
  } else {
    let p = head;
    for (const part of diffArrays(midPrev, midNext)) {
      const n = part.count ?? part.value.length;
      if (part.removed) p += n;
      else if (part.added) for (let i = 0; i < n; i++) out.push(commit);
      else for (let i = 0; i < n; i++) out.push(owners[p++] ?? commit);
    }
  }
  for (let i = tailPrev; i < prev.length; i++) out.push(owners[i] ?? commit);
  return out;
}

function runs(owner: Array<string | null>): BlameRange[] {
  const out: BlameRange[] = [];
  for (let i = 0; i < owner.length; i++) {
    const last = out[out.length - 1];
    if (last && last.commit === owner[i] && last.start + last.count === i + 1) last.count++;
    else out.push({ start: i + 1, count: 1, commit: owner[i]! });
  }
  return out;
}
