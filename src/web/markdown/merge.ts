/**
 * Writes the editor's document back to Markdown, changing only what changed. The document the
 * editor held when it loaded (one top-level node per source block) is the baseline; the current
 * top-level nodes are aligned to it (longest common subsequence on node keys). Aligned nodes emit
 * their original bytes; a changed node replacing an original is serialized in that original's style
 * and keeps its gap; new nodes get a blank line around them. So an untouched block never changes
 * by a byte, whatever odd spacing it had.
 */
import { nodeKey, type PMNode } from "./pm.ts";
import { hintFrom, serializeBlock } from "./serialize.ts";
import { splitBlocks, type SourceBlock, type SplitDoc } from "./split.ts";
import { isRichComponent, serializeComponent, type BodyWriter } from "./component.ts";

export interface Baseline {
  doc: SplitDoc;
  /** nodeKey of the editor's node for each block, in order. */
  keys: string[];
  /** The editor's node for each block (a changed table is matched row by row against its own). */
  nodes: PMNode[];
}

interface Placed {
  node: PMNode;
  /** Index of the original block this node is, or replaces. */
  orig: number | null;
  exact: boolean;
}

/** Indices pairs (i in a, j in b) of a longest common subsequence; common ends trimmed first. */
function align(a: string[], b: string[]): Array<[number, number]> {
  let pre = 0;
  while (pre < a.length && pre < b.length && a[pre] === b[pre]) pre++;
  let suf = 0;
  while (suf < a.length - pre && suf < b.length - pre && a[a.length - 1 - suf] === b[b.length - 1 - suf]) suf++;
  const pairs: Array<[number, number]> = [];
  for (let k = 0; k < pre; k++) pairs.push([k, k]);
  const A = a.slice(pre, a.length - suf);
  const B = b.slice(pre, b.length - suf);
  if (A.length > 0 && B.length > 0) {
    const n = A.length;
    const m = B.length;
    const dp = new Uint32Array((n + 1) * (m + 1));
    for (let i = n - 1; i >= 0; i--) {
      for (let j = m - 1; j >= 0; j--) {
        dp[i * (m + 1) + j] = A[i] === B[j] ? dp[(i + 1) * (m + 1) + j + 1]! + 1 : Math.max(dp[(i + 1) * (m + 1) + j]!, dp[i * (m + 1) + j + 1]!);
      }
    }
    let i = 0;
    let j = 0;
    while (i < n && j < m) {
      if (A[i] === B[j]) {
        pairs.push([pre + i, pre + j]);
        i++;
        j++;
      } else if (dp[(i + 1) * (m + 1) + j]! >= dp[i * (m + 1) + j + 1]!) i++;
      else j++;
    }
  }
  for (let k = 0; k < suf; k++) pairs.push([a.length - suf + k, b.length - suf + k]);
  return pairs;
}

function place(baseline: Baseline, nodes: PMNode[]): Placed[] {
  const keys = nodes.map(nodeKey);
  const pairs = align(baseline.keys, keys);
  const placed: Placed[] = nodes.map((node) => ({ node, orig: null, exact: false }));
  const used = new Set<number>();
  for (const [i, j] of pairs) {
    placed[j] = { node: nodes[j]!, orig: i, exact: true };
    used.add(i);
  }
  // A block moved elsewhere keeps its bytes: match unaligned nodes to unused identical originals.
  for (let j = 0; j < placed.length; j++) {
    if (placed[j]!.orig !== null) continue;
    const i = baseline.keys.findIndex((k, idx) => !used.has(idx) && k === keys[j]);
    if (i !== -1) {
      placed[j] = { node: nodes[j]!, orig: i, exact: true };
      used.add(i);
    }
  }
  // Between two aligned neighbours, changed nodes replace the removed originals in order.
  let prevOrig = -1;
  let pending: number[] = [];
  const flush = (nextOrig: number) => {
    const free: number[] = [];
    for (let i = prevOrig + 1; i < nextOrig; i++) if (!used.has(i)) free.push(i);
    pending.forEach((j, k) => {
      if (k < free.length) {
        placed[j]!.orig = free[k]!;
        used.add(free[k]!);
      }
    });
    pending = [];
  };
  for (let j = 0; j < placed.length; j++) {
    const p = placed[j]!;
    if (p.exact) {
      flush(p.orig!);
      prevOrig = Math.max(prevOrig, p.orig!);
    } else pending.push(j);
  }
  flush(baseline.doc.blocks.length);
  return placed;
}

const blankLineGap = (sep: string | undefined) => (sep !== undefined && (sep.match(/\n/g)?.length ?? 0) >= 2 ? sep : "\n\n");

/** A component's body is a small document of its own: untouched blocks keep their bytes there too. */
const writeBody: BodyWriter = (nodes, original) => {
  const doc = original ? splitBlocks(original.text) : { lead: "", blocks: [] };
  const fits = original !== null && doc.blocks.length === original.nodes.length;
  const baseline: Baseline = fits ? { doc, keys: original.nodes.map(nodeKey), nodes: original.nodes } : { doc: { lead: "", blocks: [] }, keys: [], nodes: [] };
  const out = mergeDocument(baseline, nodes);
  return fits ? out : out.replace(/\n$/, "");
};

export function mergeDocument(baseline: Baseline, nodes: PMNode[]): string {
  const { doc } = baseline;
  const blocks: SourceBlock[] = doc.blocks;
  const out: Array<{ text: string; orig: number | null; exact: boolean }> = [];
  for (const p of place(baseline, nodes)) {
    const original = p.orig !== null ? blocks[p.orig] : undefined;
    const hint = hintFrom(original);
    if (hint.table && p.orig !== null) hint.table.node = baseline.nodes[p.orig];
    const text = p.exact && original ? original.text : isRichComponent(p.node.type) ? serializeComponent(p.node, original?.kind === "directive" ? { text: original.text, node: baseline.nodes[p.orig!] } : undefined, writeBody) : serializeBlock(p.node, hint);
    // Empty paragraphs are the editor's spacing, not content.
    if (text.trim() === "" && !p.exact) continue;
    out.push({ text, orig: p.orig, exact: p.exact });
  }
  const lastSep = blocks.length ? blocks[blocks.length - 1]!.sep : "\n";
  const finalNewline = blocks.length === 0 || /\n/.test(lastSep) ? "\n" : "";
  let result = doc.lead;
  out.forEach((item, k) => {
    const next = out[k + 1];
    const sep = item.orig !== null ? blocks[item.orig]!.sep : undefined;
    result += item.text;
    if (!next) result += item.exact && item.orig === blocks.length - 1 && sep !== undefined ? sep : finalNewline;
    // The original gap is kept only between two untouched neighbours: after a rewritten block a
    // single line end could glue the next block onto it (lazy continuation, setext underline).
    else if (item.exact && next.exact && next.orig === item.orig! + 1) result += sep!;
    else result += blankLineGap(sep);
  });
  return result;
}
