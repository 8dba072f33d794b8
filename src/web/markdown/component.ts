/**
 * Block components (`:::name[label]{attributes}` … `:::`, docs/architecture.md §9) the rich editor
 * shows as blocks of their own, with a body edited richly. Parsing keeps every byte it does not
 * model — the attribute text after the label, the colon count — and writing back keeps the source
 * lines of whatever did not change: the opening line while its label and attributes hold, the
 * body's untouched blocks (merged like a document, by the caller's `writeBody`).
 */
import { nodeKey, type PMNode } from "./pm.ts";

/** Components shown as a block with one body; the label is the type (callout), the title (accordion) or "METHOD /path" (api). */
const SIMPLE = new Set(["callout", "accordion", "api", "filetree"]);
/** Components with nothing inside, drawn by the site (the table of contents). */
const EMPTY = new Set(["toc"]);
/** Components whose body is source for a renderer (math, diagrams), kept as plain text. */
const SOURCE = new Set(["katex", "math", "mermaid"]);
/** Components made of children (`::tab[label]` … `::`), each child with a body of its own. */
const CONTAINERS: Record<string, string> = { tabs: "tab", steps: "step", cards: "card" };

interface ComponentSource {
  /** The directive's source, opening line to closing line. */
  text: string;
  /** The editor's node for it when loaded; its body nodes are the body's baseline. */
  node?: PMNode;
}

interface Child {
  label: string | null;
  extra: string;
  body: string;
  /** The child's source, opening line to closing line. */
  text: string;
}

interface Parsed {
  colons: string;
  name: string;
  label: string | null;
  extra: string;
  body: string;
  /** A container's children, with what lies before, between and after them (blank lines). */
  children?: { items: Child[]; lead: string; seps: string[]; trail: string };
}

const OPEN = /^(:{3,})([A-Za-z][\w-]*)(?:\[([^\]\n]*)\])?(\{[^\n]*\})?[ \t]*$/;
const CHILD_OPEN = /^::([A-Za-z][\w-]*)(?:\[([^\]\n]*)\])?(\{[^\n]*\})?[ \t]*$/;
const FENCE = /^ {0,3}(`{3,}|~{3,})/;

/** A container's body as children and the blank lines around them; null when anything else is there. */
function parseChildren(body: string, child: string): Parsed["children"] | null {
  const lines = body === "" ? [] : body.split("\n");
  const items: Child[] = [];
  const gaps: string[][] = [[]];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (line.trim() === "") {
      gaps[gaps.length - 1]!.push(line);
      continue;
    }
    const open = CHILD_OPEN.exec(line);
    if (!open || open[1] !== child) return null;
    // The child ends at the "::" that closes it: nested "::x" openings and fenced code skipped.
    let depth = 0;
    let fence: string | null = null;
    let j = i + 1;
    for (; j < lines.length; j++) {
      const l = lines[j]!;
      const f = FENCE.exec(l);
      if (fence) {
        if (f && f[1]![0] === fence[0] && f[1]!.length >= fence.length && l.trim() === f[1]) fence = null;
        continue;
      }
      if (f) fence = f[1]!;
      else if (/^\s*::[A-Za-z]/.test(l)) depth++;
      else if (/^\s*::\s*$/.test(l)) {
        if (depth === 0) break;
        depth--;
      } else if (/^\s*:{3,}\s*$/.test(l)) return null;
    }
    if (j >= lines.length || lines[j] !== "::") return null;
    items.push({ label: open[2] ?? null, extra: open[3] ?? "", body: lines.slice(i + 1, j).join("\n"), text: lines.slice(i, j + 1).join("\n") });
    gaps.push([]);
    i = j;
  }
  if (items.length === 0) return null;
  const join = (g: string[]) => g.map((l) => l + "\n").join("");
  return { items, lead: join(gaps[0]!), seps: gaps.slice(1, -1).map((g) => "\n" + join(g)), trail: gaps[gaps.length - 1]!.map((l) => "\n" + l).join("") };
}

/** A directive block as opening line, body and closing line; null when it is not a shape the editor shows. */
export function parseComponent(text: string): Parsed | null {
  const lines = text.split("\n");
  if (lines.length < 2) return null;
  const open = OPEN.exec(lines[0]!);
  const close = /^(:{3,})[ \t]*$/.exec(lines[lines.length - 1]!);
  if (!open || !close || close[1] !== open[1]) return null;
  const parsed: Parsed = { colons: open[1]!, name: open[2]!, label: open[3] ?? null, extra: open[4] ?? "", body: lines.slice(1, -1).join("\n") };
  const child = CONTAINERS[parsed.name];
  if (child) {
    const children = parseChildren(parsed.body, child);
    if (!children) return null;
    parsed.children = children;
  } else if (EMPTY.has(parsed.name)) {
    if (parsed.body !== "") return null;
  } else if (!SIMPLE.has(parsed.name) && !SOURCE.has(parsed.name)) return null;
  return parsed;
}

/** A leaf component standing alone on its line: `::embed[url]{title="…"}`. */
const LEAF = /^::(embed)\[([^\]\n]*)\](\{[^\n]*\})?$/;

/** The embed node for a paragraph that is only an embed line, or null. */
export function leafNode(text: string): PMNode | null {
  const m = LEAF.exec(text);
  return m ? { type: m[1]!, attrs: attrsOf(m[2]!, m[3] ?? "", "::") } : null;
}

export const isRichComponent = (name: string) => SIMPLE.has(name) || SOURCE.has(name) || EMPTY.has(name) || name in CONTAINERS || name === "embed";
/** Whether a node is a container's child (a tab, a step, a card). */
const childOf = (name: string) => Object.entries(CONTAINERS).find(([, c]) => c === name)?.[0];

const attrsOf = (label: string | null, extra: string, colons: string) => ({ type: label, extra, colons });
const bodyOr = (nodes: PMNode[]) => (nodes.length ? nodes : [{ type: "paragraph" }]);

/** The node for a parsed component; `blocks` turns a body's Markdown into editor nodes. */
export function componentNode(parsed: Parsed, blocks: (markdown: string) => PMNode[]): PMNode {
  const attrs = attrsOf(parsed.label, parsed.extra, parsed.colons);
  if (SOURCE.has(parsed.name)) return { type: parsed.name, attrs, ...(parsed.body ? { content: [{ type: "text", text: parsed.body }] } : {}) };
  if (EMPTY.has(parsed.name)) return { type: parsed.name, attrs };
  if (!parsed.children) return { type: parsed.name, attrs, content: bodyOr(blocks(parsed.body)) };
  const child = CONTAINERS[parsed.name]!;
  return { type: parsed.name, attrs, content: parsed.children.items.map((c) => ({ type: child, attrs: attrsOf(c.label, c.extra, "::"), content: bodyOr(blocks(c.body)) })) };
}

/** Writes a body: merged against the original body's blocks when there is one, else fresh. */
export type BodyWriter = (nodes: PMNode[], original: { text: string; nodes: PMNode[] } | null) => string;

function headLine(node: PMNode, colons: string, original: { label: string | null; extra: string; text: string } | null): string {
  const label = node.attrs?.type === null || node.attrs?.type === undefined ? null : String(node.attrs.type);
  const extra = String(node.attrs?.extra ?? "");
  if (original && original.label === label && original.extra === extra && original.text.startsWith(colons + node.type)) return original.text.split("\n")[0]!;
  // A label cannot hold a closing bracket or a line end; they are dropped rather than break the line.
  return `${colons}${node.type}${label !== null ? `[${label.replace(/[\]\n]/g, "")}]` : ""}${extra.replace(/\n/g, " ")}`;
}

function body(nodes: PMNode[], original: { body: string; nodes: PMNode[] } | null, writeBody: BodyWriter): string {
  if (original && original.nodes.length === nodes.length && nodes.every((n, i) => nodeKey(n) === nodeKey(original.nodes[i]!))) return original.body;
  return writeBody(nodes, original ? { text: original.body, nodes: original.nodes } : null);
}

const wrap = (head: string, inner: string, close: string) => `${head}\n${inner ? inner + "\n" : ""}${close}`;

export function serializeComponent(node: PMNode, source: ComponentSource | undefined, writeBody: BodyWriter): string {
  if (node.type === "embed") return headLine(node, "::", null);
  if (SOURCE.has(node.type) || EMPTY.has(node.type)) {
    const colons = String(node.attrs?.colons ?? ":::");
    const original = source ? parseComponent(source.text) : null;
    const same = original && original.name === node.type && original.colons === colons ? original : null;
    const text = (node.content ?? []).map((t) => t.text ?? "").join("");
    return wrap(headLine(node, colons, same ? { label: same.label, extra: same.extra, text: source!.text } : null), text, colons);
  }
  const colons = String(node.attrs?.colons ?? (childOf(node.type) ? "::" : ":::"));
  const original = source ? parseComponent(source.text) : null;
  const same = original && original.name === node.type && original.colons === colons ? original : null;
  const head = headLine(node, colons, same ? { label: same.label, extra: same.extra, text: source!.text } : null);
  const nodes = node.content ?? [];
  const oldNodes = source?.node?.content ?? [];
  if (!(node.type in CONTAINERS)) return wrap(head, body(nodes, same && source?.node ? { body: same.body, nodes: oldNodes } : null, writeBody), colons);

  const kids = same?.children;
  if (kids && source?.node && oldNodes.length === nodes.length && nodes.every((n, i) => nodeKey(n) === nodeKey(oldNodes[i]!))) return wrap(head, same!.body, colons);
  // Children the writer did not touch keep their source; a changed one is merged against the child it replaces.
  const usable = kids && source?.node && oldNodes.length === kids.items.length;
  const oldKeys = usable ? oldNodes.map(nodeKey) : [];
  const used = new Set<number>();
  const out = nodes.map((child, i) => {
    const key = nodeKey(child);
    const exact = oldKeys.findIndex((k, j) => k === key && !used.has(j));
    if (exact !== -1) {
      used.add(exact);
      return { text: kids!.items[exact]!.text, orig: exact };
    }
    const was = usable && i < kids.items.length && !oldKeys.includes(nodeKey(nodes[i]!)) ? i : -1;
    const old = was !== -1 ? kids!.items[was]! : null;
    const childHead = headLine(child, "::", old);
    const inner = body(child.content ?? [], old ? { body: old.body, nodes: oldNodes[was]!.content ?? [] } : null, writeBody);
    return { text: wrap(childHead, inner, "::"), orig: -1 };
  });
  const sep = (k: number) => (kids && out[k - 1]!.orig !== -1 && out[k]!.orig === out[k - 1]!.orig + 1 ? kids.seps[out[k - 1]!.orig]! : (kids?.seps[0] ?? "\n"));
  const inner = (kids?.lead ?? "") + out.map((o, k) => (k === 0 ? "" : sep(k)) + o.text).join("") + (kids?.trail ?? "");
  return wrap(head, inner, colons);
}

/** The components the site knows (src/publish/render/components.ts), children excluded. */
const KNOWN = ["callout", "tabs", "accordion", "cards", "steps", "api", "filetree", "mermaid", "katex", "math", "badge", "toc", "embed"];
const CHILDREN = ["tab", "card", "step", "item"];

/**
 * What the site's renderer says of a directive block it cannot show as a component, in its words;
 * null when it can. The editor shows it beside the block's source.
 */
export function componentNotice(text: string): string | null {
  const lines = text.split("\n");
  const first = /^(:{2,})([A-Za-z][\w-]*)/.exec(lines[0]!);
  if (!first) return `"${lines[0]!.slice(0, 80)}" is not a component opener (expected :::name[argument])`;
  const [, colons, name] = first as unknown as [string, string, string];
  if (!KNOWN.includes(name) && !CHILDREN.includes(name)) return `unknown component "${name}" (known: ${KNOWN.join(", ")}); its content is shown as written`;
  if (!OPEN.exec(lines[0]!)) return `could not read the opening line "${lines[0]!.slice(0, 80)}" (expected ${colons}${name}[argument]{attributes} alone on its line); what follows is shown as ordinary text`;
  if (lines.length < 2 || !new RegExp(`^${colons}[ \t]*$`).test(lines[lines.length - 1]!)) return `${colons}${name} is never closed (add a line "${colons}" after its content); the content below is shown as ordinary text`;
  return null;
}
