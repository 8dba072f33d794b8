/**
 * Markdown blocks → ProseMirror JSON for the rich editor. A block becomes rich only when writing
 * it back would render the same HTML (checked here, per block); anything else — component
 * directives, frontmatter, HTML, link definitions, constructs the editor cannot hold —
 * becomes a `rawBlock` the person edits as text, so nothing is ever dropped or mangled.
 */
import { Parser, marked, type Token, type Tokens } from "marked";
import type { PMMark, PMNode } from "./pm.ts";
import type { SourceBlock } from "./split.ts";
import { hintFrom, serializeBlock } from "./serialize.ts";
import { QUIRE_INLINE } from "./inline.ts";
import { BADGE_SOURCE } from "./badge.ts";
import { parseImgTag, type ImgTag } from "./image-html.ts";
import { splitBlocks } from "./split.ts";
import { componentNode, leafNode, parseComponent } from "./component.ts";

class Unsupported extends Error {}

const ENTITIES: Record<string, string> = {
  amp: "&",
  lt: "<",
  gt: ">",
  quot: '"',
  apos: "'",
  nbsp: "\u00a0",
  copy: "©",
  reg: "®",
  trade: "™",
  hellip: "…",
  mdash: "—",
  ndash: "–",
  laquo: "«",
  raquo: "»",
};

function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (m, name: string) => {
    if (name[0] === "#") {
      const code = name[1] === "x" || name[1] === "X" ? parseInt(name.slice(2), 16) : parseInt(name.slice(1), 10);
      return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : m;
    }
    return ENTITIES[name] ?? m;
  });
}

function textNode(text: string, marks: PMMark[]): PMNode {
  return marks.length ? { type: "text", text, marks } : { type: "text", text };
}

function inline(tokens: Token[] | undefined, marks: PMMark[] = []): PMNode[] {
  const out: PMNode[] = [];
  for (const t of tokens ?? []) {
    switch (t.type) {
      case "text": {
        const tt = t as Tokens.Text;
        if (tt.tokens && tt.tokens.length > 0) out.push(...inline(tt.tokens, marks));
        else if (tt.text !== "") out.push(textNode(decodeEntities(tt.text), marks));
        break;
      }
      case "escape":
        out.push(textNode(decodeEntities((t as Tokens.Escape).text), marks));
        break;
      case "strong":
        out.push(...inline((t as Tokens.Strong).tokens, [...marks, { type: "bold" }]));
        break;
      case "em":
        out.push(...inline((t as Tokens.Em).tokens, [...marks, { type: "italic" }]));
        break;
      case "del":
        out.push(...inline((t as Tokens.Del).tokens, [...marks, { type: "strike" }]));
        break;
      case "codespan":
        // Code inside a link or emphasis (`[\`fetch\`](/api)`, common in API docs) keeps those marks:
        // the editor's code mark excludes none (RichEditor.tsx), and code is written innermost.
        out.push(textNode(decodeEntities((t as Tokens.Codespan).text), [...marks, { type: "code" }]));
        break;
      case "link": {
        const l = t as Tokens.Link;
        if (marks.some((m) => m.type === "link")) throw new Unsupported();
        out.push(...inline(l.tokens, [...marks, { type: "link", attrs: { href: l.href, title: l.title ?? null } }]));
        break;
      }
      case "image": {
        const img = t as Tokens.Image;
        const node: PMNode = { type: "image", attrs: { src: img.href, alt: img.text, title: img.title ?? null } };
        if (marks.length) node.marks = marks;
        out.push(node);
        break;
      }
      case "html": {
        // An `<img>` tag (how a file gives an image a width) is an image keeping its tag's bytes.
        const tag = parseImgTag((t as Tokens.HTML).raw);
        if (!tag) throw new Unsupported();
        const node = imageFromTag(tag, (t as Tokens.HTML).raw);
        if (marks.length) node.marks = marks;
        out.push(node);
        break;
      }
      case "br":
        out.push({ type: "hardBreak" });
        break;
      case "checkbox":
        break;
      default:
        throw new Unsupported();
    }
  }
  // Merge neighbouring text nodes with the same marks, as ProseMirror does.
  const merged: PMNode[] = [];
  for (const n of out) {
    const prev = merged[merged.length - 1];
    if (prev && prev.type === "text" && n.type === "text" && JSON.stringify(prev.marks ?? []) === JSON.stringify(n.marks ?? [])) {
      merged[merged.length - 1] = { ...prev, text: prev.text! + n.text! };
    } else merged.push(n);
  }
  return splitWikilinks(merged);
}

/** Quire's link syntax (docs/architecture.md §5): `[[path]]`, `[[path|text]]`, `[[path#heading]]`. */
const WIKILINK = /\[\[([^\[\]|\n]+)(?:\|([^\[\]\n]+))?\]\]/;
/** Wikilinks and inline badges, whichever comes first. */
const INLINE_ATOM = new RegExp(`${WIKILINK.source}|${BADGE_SOURCE.source}`, "gi");

/**
 * Wikilinks and badges in text become their own nodes (shown as chips); inside code or a link they
 * stay text, as the site's renderer leaves them.
 */
function splitWikilinks(nodes: PMNode[]): PMNode[] {
  const out: PMNode[] = [];
  for (const n of nodes) {
    if (n.type !== "text" || !/\[\[|:badge\[/i.test(n.text!) || (n.marks ?? []).some((m) => m.type === "code" || m.type === "link")) {
      out.push(n);
      continue;
    }
    let at = 0;
    for (const m of n.text!.matchAll(INLINE_ATOM)) {
      if (m.index! > at) out.push({ ...n, text: n.text!.slice(at, m.index) });
      const atom: PMNode =
        m[1] !== undefined
          ? { type: "wikilink", attrs: { target: m[1], label: m[2] ?? null } }
          : { type: "badge", attrs: { name: m[3]!, text: m[4]!, attrs: m[5] ?? null } };
      if (n.marks?.length) atom.marks = n.marks;
      out.push(atom);
      at = m.index! + m[0].length;
    }
    if (at < n.text!.length) out.push({ ...n, text: n.text!.slice(at) });
  }
  return out;
}

function paragraph(tokens: Token[] | undefined): PMNode {
  const content = inline(tokens);
  return content.length ? { type: "paragraph", content } : { type: "paragraph" };
}

function blocks(tokens: Token[] | undefined): PMNode[] {
  const out: PMNode[] = [];
  for (const t of tokens ?? []) if (t.type !== "space") out.push(block(t));
  return out;
}

function listItem(item: Tokens.ListItem, task: boolean): PMNode {
  const children: PMNode[] = [];
  for (const t of item.tokens) {
    if (t.type === "space" || t.type === "checkbox") continue;
    // Tight items hold bare text tokens where loose ones hold paragraphs.
    if (t.type === "text") children.push(paragraph((t as Tokens.Text).tokens ?? [{ type: "text", raw: t.raw, text: (t as Tokens.Text).text } as Tokens.Text]));
    else children.push(block(t));
  }
  if (children.length === 0 || children[0]!.type !== "paragraph") children.unshift({ type: "paragraph" });
  return task ? { type: "taskItem", attrs: { checked: !!item.checked }, content: children } : { type: "listItem", content: children };
}

function block(t: Token): PMNode {
  switch (t.type) {
    case "paragraph":
      return paragraph((t as Tokens.Paragraph).tokens);
    case "heading": {
      const h = t as Tokens.Heading;
      // A heading is one line in ATX form: soft line breaks of a setext heading become spaces.
      const content = inline(h.tokens).map((n) => (n.type === "text" ? { ...n, text: n.text!.replace(/\n/g, " ") } : n));
      return { type: "heading", attrs: { level: h.depth }, ...(content.length ? { content } : {}) };
    }
    case "code": {
      const c = t as Tokens.Code;
      const text = c.text;
      return { type: "codeBlock", attrs: { language: c.lang ? c.lang : null }, ...(text ? { content: [{ type: "text", text }] } : {}) };
    }
    case "blockquote":
      return { type: "blockquote", content: blocks((t as Tokens.Blockquote).tokens) };
    case "hr":
      return { type: "horizontalRule" };
    case "list": {
      const l = t as Tokens.List;
      const tasks = l.items.filter((i) => i.task).length;
      if (tasks > 0 && (tasks !== l.items.length || l.ordered)) throw new Unsupported();
      const items = l.items.map((i) => listItem(i, tasks > 0));
      if (tasks > 0) return { type: "taskList", content: items };
      if (l.ordered) return { type: "orderedList", attrs: { start: typeof l.start === "number" ? l.start : 1, type: null }, content: items };
      return { type: "bulletList", content: items };
    }
    default:
      throw new Unsupported();
  }
}

/** A GFM table as a grid: a header row, then body rows; each cell one paragraph of inline content. */
function table(t: Tokens.Table): PMNode {
  const cell = (type: string, c: Tokens.TableCell, i: number): PMNode => ({
    type,
    attrs: { colspan: 1, rowspan: 1, colwidth: null, align: t.align[i] ?? null },
    content: [paragraph(c.tokens)],
  });
  return {
    type: "table",
    content: [
      { type: "tableRow", content: t.header.map((c, i) => cell("tableHeader", c, i)) },
      ...t.rows.map((r) => ({ type: "tableRow", content: r.map((c, i) => cell("tableCell", c, i)) })),
    ],
  };
}

function rawBlock(block: Pick<SourceBlock, "kind" | "text">): PMNode {
  return { type: "rawBlock", attrs: { kind: block.kind, text: block.text } };
}

/** Compares renderings, not spellings: whitespace between tags and entity forms do not count. */
function normalizeHtml(html: string): string {
  return html
    .replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (m) => {
      const ch = decodeEntities(m);
      // Characters that are markup stay escaped, so text can never equal a tag.
      return ch === "&" || ch === "<" || ch === ">" || ch === '"' ? `&#${ch.charCodeAt(0)};` : ch;
    })
    .replace(/>\s+</g, "><")
    .replace(/\s+/g, " ")
    // Emphasis wrapping exactly a link shows as the link wrapping the emphasis (`**[a](/x)**` and
    // `[**a**](/x)`): the editor holds both as the same marks and writes the second.
    .replace(/<(strong|em|del)>(<a [^>]*>)((?:(?!<\/?a[\s>]).)*?)<\/a><\/\1>/g, "$2<$1>$3</$1></a>")
    .trim();
}

const RICH_KINDS = new Set(["paragraph", "heading", "code", "list", "blockquote", "hr", "table"]);

/** Components nest at most this deep as blocks; deeper ones are edited as their source. */
const MAX_COMPONENT_DEPTH = 8;

/** A directive as a component block with a rich body, or null when it is not one the editor shows. */
function component(source: SourceBlock, depth: number): PMNode | null {
  const parsed = depth < MAX_COMPONENT_DEPTH ? parseComponent(source.text) : null;
  if (!parsed) return null;
  return componentNode(parsed, (markdown) => splitBlocks(markdown).blocks.map((b) => nodeFor(b, depth + 1)));
}

/** The editor node for one source block: rich when faithful, raw otherwise. */
export function blockToNode(source: SourceBlock): PMNode {
  return nodeFor(source, 0);
}

function imageFromTag(tag: ImgTag, raw: string): PMNode {
  return { type: "image", attrs: { src: tag.src, alt: tag.alt, title: tag.title, width: tag.width, height: tag.height, html: raw } };
}

function nodeFor(source: SourceBlock, depth: number): PMNode {
  if (source.kind === "directive") return component(source, depth) ?? rawBlock(source);
  if (source.kind === "html") {
    // An `<img>` tag on its own line: a paragraph holding the image, written back as the tag.
    const tag = parseImgTag(source.text);
    if (!tag) return rawBlock(source);
    const node: PMNode = { type: "paragraph", content: [imageFromTag(tag, source.text)] };
    return serializeBlock(node) === source.text ? node : rawBlock(source);
  }
  if (source.kind === "paragraph") {
    // An embed line is a component of its own (the renderer reads it before Markdown does).
    const leaf = leafNode(source.text);
    if (leaf) return serializeBlock(leaf) === source.text ? leaf : rawBlock(source);
  }
  if (!RICH_KINDS.has(source.kind) || !source.token) return rawBlock(source);
  let node: PMNode;
  try {
    // Tables are grids at the top level only; one inside a quote or a list stays source.
    node = source.token.type === "table" ? table(source.token as Tokens.Table) : block(source.token);
  } catch (e) {
    if (e instanceof Unsupported) return rawBlock(source);
    throw e;
  }
  // Faithfulness: written back, the block must render exactly as the original does. A block that
  // writes back as its very source (most of a page) renders the same without asking marked.
  const written = serializeBlock(node, hintFrom(source));
  if (written !== source.text) {
    const original = normalizeHtml(Parser.parse([source.token]));
    const rewritten = normalizeHtml(marked.parse(written, { gfm: true, async: false }) as string);
    if (original !== rewritten) return rawBlock(source);
  }
  // Quire's inline syntax is read before Markdown escapes, so marked's HTML cannot vouch for it:
  // each piece of it must come back byte for byte.
  const pieces = source.text.match(new RegExp(QUIRE_INLINE.source, "g")) ?? [];
  return pieces.every((p) => written.includes(p)) ? node : rawBlock(source);
}
