import { Lexer, type Token } from "marked";
import { splitFile } from "./frontmatter.ts";
import { plainBlocks } from "./link-blocks.ts";

/**
 * Where in a page file links may be edited, as Markdown itself reads the page. Regexes alone
 * cannot tell a link from link-shaped text in an indented code block or an HTML block, so the body
 * is lexed with marked and each block is mapped back onto the exact lines of the file (blocks in
 * quotes and lists lose their `> ` / `- ` prefixes in the lexer, so a block's lines are matched as
 * suffixes of the file's lines). Only what is positively found to be prose (paragraphs, headings,
 * list text, tables) or a reference definition becomes editable, minus its inline code spans;
 * anything the mapping cannot place stays untouched: a missed rewrite is better than edited code.
 */
export interface LinkRegions {
  /** The file text with every non-editable character (except newlines) replaced by HIDDEN. */
  view: string;
  /** Offsets in the file where a reference definition (`[label]: destination`) starts. */
  definitions: number[];
}

export const HIDDEN = "\u0001";

const PROSE = new Set(["paragraph", "heading", "text", "table"]);
/** What may precede a block's line in the file: indentation and quote or list markers. */
const CONTAINER_PREFIX = /^[ \t>*+\-\d.)]*$/;

interface Placed {
  line: number;
  /** Per line of the block: how many characters of the file's line come before the block's text. */
  prefixes: number[];
  rawLineStarts: number[];
}

export function linkRegions(text: string): LinkRegions {
  return regions(text, true);
}

/** The same regions from marked's block lexer alone: the reference the line scanner is tested against. */
export function linkRegionsByLexer(text: string): LinkRegions {
  return regions(text, false);
}

function regions(text: string, scan: boolean): LinkRegions {
  const split = splitFile(text);
  const head = split.bom.length + split.block.length + split.gap.length;
  const open = new Uint8Array(text.length);
  // Frontmatter values may hold wikilinks (`up: "[[parent]]"`); they have always been rewritten.
  open.fill(1, 0, head);

  const lineStarts: number[] = [];
  const lines: string[] = [];
  let pos = head;
  for (const line of text.slice(head).split("\n")) {
    lineStarts.push(pos);
    lines.push(line.endsWith("\r") ? line.slice(0, -1) : line);
    pos += line.length + 1;
  }

  const definitions: number[] = [];
  let cursor = 0;
  let inline: (src: string) => Token[] = () => [];

  const place = (raw: string, from: number): Placed | null => {
    const rawLines = raw.replace(/\n+$/, "").split("\n");
    for (let i = from; i + rawLines.length <= lines.length; i++) {
      const prefixes: number[] = [];
      for (let j = 0; j < rawLines.length; j++) {
        const line = lines[i + j]!;
        const r = rawLines[j]!;
        if (!line.endsWith(r) || !CONTAINER_PREFIX.test(line.slice(0, line.length - r.length))) break;
        prefixes.push(line.length - r.length);
      }
      if (prefixes.length === rawLines.length) {
        const rawLineStarts: number[] = [];
        let o = 0;
        for (const r of rawLines) {
          rawLineStarts.push(o);
          o += r.length + 1;
        }
        return { line: i, prefixes, rawLineStarts };
      }
    }
    return null;
  };

  /** The file offset of an offset within a placed block's raw text (null on a line break). */
  const fileOffset = (p: Placed, rawOffset: number): number | null => {
    let j = p.rawLineStarts.length - 1;
    while (j > 0 && p.rawLineStarts[j]! > rawOffset) j--;
    const col = rawOffset - p.rawLineStarts[j]!;
    const line = p.line + j;
    if (p.prefixes[j]! + col >= lines[line]!.length) return null;
    return lineStarts[line]! + p.prefixes[j]! + col;
  };

  const setBlock = (p: Placed, value: 0 | 1) => {
    for (let j = 0; j < p.prefixes.length; j++) {
      const start = lineStarts[p.line + j]! + p.prefixes[j]!;
      open.fill(value, start, lineStarts[p.line + j]! + lines[p.line + j]!.length);
    }
  };

  const openProse = (token: Token, raw: string, p: Placed) => {
    setBlock(p, 1);
    let from = 0;
    for (const span of codeSpans(inlineOf(token, inline))) {
      const at = raw.indexOf(span, from);
      if (at < 0) {
        setBlock(p, 0); // a code span we cannot place (escaped table pipes): leave the block alone
        return;
      }
      for (let o = at; o < at + span.length; o++) {
        const f = fileOffset(p, o);
        if (f !== null) open[f] = 0;
      }
      from = at + span.length;
    }
  };

  const walk = (tokens: Token[]) => {
    for (const t of tokens) {
      if (t.type === "space") continue;
      if (t.type === "blockquote") {
        walk(t.tokens ?? []);
        continue;
      }
      if (t.type === "list") {
        for (const item of t.items as Array<{ tokens: Token[] }>) walk(item.tokens);
        continue;
      }
      const p = place(t.raw, cursor);
      if (!p) continue;
      cursor = p.line + p.prefixes.length;
      if (PROSE.has(t.type)) openProse(t, t.raw.replace(/\n+$/, ""), p);
      else if (t.type === "def") {
        setBlock(p, 1);
        definitions.push(lineStarts[p.line]! + p.prefixes[0]!);
      }
    }
  };
  // Block structure only (half the cost of a full lex); inline lexing just where a code span may be.
  // Pages in the plain subset link-blocks.ts reads get their blocks from one pass over the lines.
  const lexer = new Lexer();
  inline = (src) => (src.includes("`") ? lexer.inlineTokens(src) : []);
  const body = text.slice(head);
  walk((scan ? plainBlocks(body, lines, lexer) : null) ?? lexer.blockTokens(body.replace(/\r\n|\r/g, "\n"), []));

  const parts: string[] = [];
  for (let start = 0; start < text.length; ) {
    let end = start + 1;
    while (end < text.length && open[end] === open[start]) end++;
    const run = text.slice(start, end);
    parts.push(open[start] === 1 ? run : run.replace(/[^\n]/g, HIDDEN));
    start = end;
  }
  return { view: parts.join(""), definitions };
}

/** A prose block's inline tokens (a table's cell by cell), lexed on demand. */
function inlineOf(token: Token, inline: (src: string) => Token[]): Token[] {
  if (token.type === "table") {
    const cells = [...(token.header as Array<{ text: string }>), ...(token.rows as Array<Array<{ text: string }>>).flat()];
    return cells.flatMap((c) => inline(c.text));
  }
  const text = (token as { text?: unknown }).text;
  return typeof text === "string" ? inline(text) : [];
}

/** The raw text of every inline code span inside a block, in reading order. */
function codeSpans(token: unknown, out: string[] = []): string[] {
  if (Array.isArray(token)) {
    for (const t of token) codeSpans(t, out);
    return out;
  }
  if (token === null || typeof token !== "object") return out;
  const t = token as { type?: string; raw?: string; tokens?: unknown; header?: unknown; rows?: unknown };
  if (t.type === "codespan" && typeof t.raw === "string") {
    out.push(t.raw);
    return out;
  }
  codeSpans(t.tokens, out);
  codeSpans(t.header, out);
  codeSpans(t.rows, out);
  return out;
}
