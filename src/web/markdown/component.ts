/**
 * Block components (`:::name[label]{attributes}` … `:::`, docs/architecture.md §9) the rich editor
 * shows as blocks of their own, with a body edited richly. Parsing keeps every byte it does not
 * model — the attribute text after the label, the colon count — and writing back keeps the source
 * lines of whatever did not change: the opening line while its label and attributes hold, the
 * body's untouched blocks (merged like a document, by the caller's `writeBody`).
 */
import { nodeKey, type PMNode } from "./pm.ts";

/** Components with a visual block; any other directive stays a source block. */
const RICH = new Set(["callout"]);

interface ComponentSource {
  /** The directive's source, opening line to closing line. */
  text: string;
  /** The editor's node for it when loaded; its body nodes are the body's baseline. */
  node?: PMNode;
}

interface Parsed {
  colons: string;
  name: string;
  label: string | null;
  extra: string;
  body: string;
}

const OPEN = /^(:{3,})([A-Za-z][\w-]*)(?:\[([^\]\n]*)\])?(\{[^\n]*\})?[ \t]*$/;

/** A directive block as opening line, body and closing line; null when it is not that simple shape. */
export function parseComponent(text: string): Parsed | null {
  const lines = text.split("\n");
  if (lines.length < 2) return null;
  const open = OPEN.exec(lines[0]!);
  const close = /^(:{3,})[ \t]*$/.exec(lines[lines.length - 1]!);
  if (!open || !close || close[1] !== open[1]) return null;
  return { colons: open[1]!, name: open[2]!, label: open[3] ?? null, extra: open[4] ?? "", body: lines.slice(1, -1).join("\n") };
}

export const isRichComponent = (name: string) => RICH.has(name);

/** The node for a parsed component, its body given as editor nodes. */
export function componentNode(parsed: Parsed, body: PMNode[]): PMNode {
  return {
    type: parsed.name,
    attrs: { type: parsed.label, extra: parsed.extra, colons: parsed.colons },
    content: body.length ? body : [{ type: "paragraph" }],
  };
}

/** Writes a body: merged against the original body's blocks when there is one, else fresh. */
export type BodyWriter = (nodes: PMNode[], original: { text: string; nodes: PMNode[] } | null) => string;

export function serializeComponent(node: PMNode, source: ComponentSource | undefined, writeBody: BodyWriter): string {
  const colons = String(node.attrs?.colons ?? ":::");
  const label = node.attrs?.type === null || node.attrs?.type === undefined ? null : String(node.attrs.type);
  const extra = String(node.attrs?.extra ?? "");
  const original = source ? parseComponent(source.text) : null;
  const sameHead = original && original.name === node.type && original.label === label && original.extra === extra && original.colons === colons;
  // The label cannot hold a closing bracket or a line end; they are dropped rather than break the line.
  const head = sameHead ? source!.text.split("\n")[0]! : `${colons}${node.type}${label !== null ? `[${label.replace(/[\]\n]/g, "")}]` : ""}${extra.replace(/\n/g, " ")}`;
  const nodes = node.content ?? [];
  const oldNodes = source?.node?.content ?? [];
  let body: string;
  if (original && oldNodes.length === nodes.length && nodes.every((n, i) => nodeKey(n) === nodeKey(oldNodes[i]!))) body = original.body;
  else body = writeBody(nodes, original && source?.node ? { text: original.body, nodes: oldNodes } : null);
  return `${head}\n${body ? body + "\n" : ""}${colons}`;
}
