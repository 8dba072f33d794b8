/**
 * The ProseMirror document as JSON (what Tiptap's getJSON/setContent speak). The Markdown module
 * works on this plain shape so it runs, and is tested, without a browser.
 */
export interface PMMark {
  type: string;
  attrs?: Record<string, unknown>;
}

export interface PMNode {
  type: string;
  attrs?: Record<string, unknown>;
  content?: PMNode[];
  marks?: PMMark[];
  text?: string;
}

/** Plain values with object keys sorted, so attribute order never matters. */
function stable(value: unknown): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value) ?? "null";
  if (Array.isArray(value)) return "[" + value.map(stable).join(",") + "]";
  const obj = value as Record<string, unknown>;
  let out = "{";
  for (const k of Object.keys(obj).sort()) if (obj[k] !== undefined) out += JSON.stringify(k) + ":" + stable(obj[k]) + ",";
  return out + "}";
}

/**
 * A stable key for comparing nodes: attribute order never matters. Written by hand rather than
 * with a JSON.stringify replacer, which cost several times more on a 1,000-block page.
 */
export function nodeKey(node: PMNode): string {
  // The editor hands the same JSON object for a node it did not change (RichEditor.tsx), so a
  // save after one edit computes one key; JSON given here is never changed afterwards.
  let key = KEYS.get(node);
  if (key === undefined) KEYS.set(node, (key = computeKey(node)));
  return key;
}

const KEYS = new WeakMap<PMNode, string>();

function computeKey(node: PMNode): string {
  let out = "(" + node.type;
  if (node.attrs) out += " a" + stable(node.attrs);
  if (node.marks?.length) out += " m" + stable(node.marks);
  if (node.text !== undefined) out += " t" + JSON.stringify(node.text);
  if (node.content) for (const c of node.content) out += " " + nodeKey(c);
  return out + ")";
}
