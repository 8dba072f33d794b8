/**
 * Splits a Markdown document into its top-level blocks, each with its exact source text and the
 * exact gap (blank lines, odd spacing) that follows it, such that
 * `lead + Σ(block.text + block.sep) === source` byte for byte — CRLF line ends included.
 *
 * marked's block lexer finds the blocks (its tokens' `raw` strings cover the input exactly; checked
 * over the CommonMark examples). Two things marked does not know are cut out first: a leading YAML
 * frontmatter block and `:::name` component directives, which stay whole, nesting included.
 */
import { Lexer, type Token } from "marked";

type BlockKind =
  | "frontmatter"
  | "directive"
  | "paragraph"
  | "heading"
  | "code"
  | "list"
  | "blockquote"
  | "table"
  | "hr"
  | "html"
  | "def"
  | "other";

export interface SourceBlock {
  kind: BlockKind;
  /** The block's source, without the line end that closes it. */
  text: string;
  /** Everything up to the next block: the closing line end and any blank lines. */
  sep: string;
  /** marked's token for blocks marked found (with inline tokens, references resolved). */
  token?: Token;
}

export interface SplitDoc {
  /** Blank lines before the first block. */
  lead: string;
  blocks: SourceBlock[];
}

interface Range {
  kind: BlockKind;
  start: number;
  end: number;
  token?: Token;
  /** The block's inline text is lexed when its token is first read (see InlineLater). */
  inline?: { later: InlineLater; upTo: number };
}

/**
 * marked's lexer reads blocks first (collecting every link definition) and then the inline text
 * of every paragraph, heading and cell, in document order (`Lexer.lex`). The second pass is most of
 * the lexing, and a long page opens with its first screenful of blocks converted: so the inline
 * pass is run here only up to the block being read, in the same order and with the same
 * definitions, which gives the very tokens `lex` gives (docs/decisions/editor-blocks.md).
 */
class InlineLater {
  private done = 0;
  constructor(
    private readonly lexer: Lexer,
    private readonly queue: Array<{ src: string; tokens: Token[] }>,
  ) {}

  /** Lexes the inline text of every queued entry up to `upTo` (inclusive), as `lex` would. */
  through(upTo: number): void {
    for (; this.done <= upTo && this.done < this.queue.length; this.done++) {
      const next = this.queue[this.done]!;
      this.lexer.state.inRawBlock = false;
      this.lexer.inlineTokens(next.src, next.tokens);
    }
  }
}

/** The last inline-queue entry a top-level token's subtree holds (-1: none). */
function lastInlineEntry(token: Token, index: Map<Token[], number>): number {
  let last = -1;
  const visit = (t: unknown): void => {
    if (t === null || typeof t !== "object") return;
    const o = t as { tokens?: Token[]; items?: unknown[]; header?: unknown[]; rows?: unknown[][] };
    if (Array.isArray(o.tokens)) {
      const at = index.get(o.tokens);
      if (at !== undefined && at > last) last = at;
      for (const c of o.tokens) visit(c);
    }
    if (Array.isArray(o.items)) for (const c of o.items) visit(c);
    if (Array.isArray(o.header)) for (const c of o.header) visit(c);
    if (Array.isArray(o.rows)) for (const row of o.rows) for (const c of row) visit(c);
  };
  visit(token);
  return last;
}

const KINDS: Record<string, BlockKind> = {
  paragraph: "paragraph",
  text: "paragraph",
  heading: "heading",
  code: "code",
  list: "list",
  blockquote: "blockquote",
  table: "table",
  hr: "hr",
  html: "html",
  def: "def",
};

const FENCE = /^ {0,3}(`{3,}|~{3,})/;
const DIRECTIVE_OPEN = /^(:{3,})[A-Za-z][\w-]*/;
const DIRECTIVE_ANY_OPEN = /^\s*(:{2,})[A-Za-z][\w-]*/;
const DIRECTIVE_CLOSE = /^\s*(:{2,})\s*$/;

/** Line start offsets of `text` (each line includes its "\n"). */
function lines(text: string): Array<{ start: number; end: number; line: string }> {
  const out: Array<{ start: number; end: number; line: string }> = [];
  let start = 0;
  while (start < text.length) {
    const nl = text.indexOf("\n", start);
    const end = nl === -1 ? text.length : nl + 1;
    out.push({ start, end, line: text.slice(start, nl === -1 ? text.length : nl) });
    start = end;
  }
  return out;
}

function frontmatterEnd(text: string): number {
  if (!text.startsWith("---\n")) return 0;
  const ls = lines(text);
  for (let i = 1; i < ls.length; i++) {
    if (/^(---|\.\.\.)\s*$/.test(ls[i]!.line)) return ls[i]!.start + ls[i]!.line.length;
  }
  return 0;
}

/** Ranges of top-level `:::` directives (outside fenced code), nested directives included. */
function directiveRanges(text: string, from: number): Array<{ start: number; end: number }> {
  const out: Array<{ start: number; end: number }> = [];
  const ls = lines(text).filter((l) => l.start >= from);
  let fence: string | null = null;
  for (let i = 0; i < ls.length; i++) {
    const { line } = ls[i]!;
    const f = FENCE.exec(line);
    if (fence) {
      if (f && f[1]![0] === fence[0] && f[1]!.length >= fence.length && line.trim() === f[1]) fence = null;
      continue;
    }
    if (f) {
      fence = f[1]!;
      continue;
    }
    if (!DIRECTIVE_OPEN.test(line)) continue;
    // Walk to the matching close, counting nested opens and skipping fenced code inside.
    const stack: number[] = [DIRECTIVE_OPEN.exec(line)![1]!.length];
    let inner: string | null = null;
    let j = i + 1;
    for (; j < ls.length && stack.length > 0; j++) {
      const l = ls[j]!.line;
      const g = FENCE.exec(l);
      if (inner) {
        if (g && g[1]![0] === inner[0] && g[1]!.length >= inner.length && l.trim() === g[1]) inner = null;
        continue;
      }
      if (g) {
        inner = g[1]!;
        continue;
      }
      const close = DIRECTIVE_CLOSE.exec(l);
      if (close) {
        const n = close[1]!.length;
        const at = stack.lastIndexOf(n);
        if (at !== -1) stack.length = at;
        else stack.pop();
        continue;
      }
      const open = DIRECTIVE_ANY_OPEN.exec(l);
      if (open) stack.push(open[1]!.length);
    }
    // An unclosed directive runs to the end of the document, as renderers treat it.
    const last = ls[j - 1]!;
    out.push({ start: ls[i]!.start, end: last.start + last.line.length });
    i = j - 1;
  }
  return out;
}

function lexRanges(text: string, start: number, end: number, out: Range[]): void {
  const segment = text.slice(start, end);
  if (segment === "") return;
  // `lex` without its inline pass (the segment's line ends are already "\n"): see InlineLater.
  const lexer = new Lexer({ gfm: true });
  const tokens = lexer.blockTokens(segment, lexer.tokens);
  const queue = (lexer as unknown as { inlineQueue: Array<{ src: string; tokens: Token[] }> }).inlineQueue;
  (lexer as unknown as { inlineQueue: unknown[] }).inlineQueue = [];
  const later = new InlineLater(lexer, queue);
  const index = new Map(queue.map((q, i) => [q.tokens, i]));
  let at = start;
  for (const token of tokens) {
    const raw = token.raw;
    if (token.type !== "space") {
      const body = raw.replace(/\n+$/, "");
      if (body.trim() !== "") out.push({ kind: KINDS[token.type] ?? "other", start: at, end: at + body.length, token, inline: { later, upTo: lastInlineEntry(token, index) } });
    }
    at += raw.length;
  }
  if (at !== end) {
    // marked always covers its input; should that ever change, keep the rest as one opaque block.
    out.push({ kind: "other", start: at, end });
  }
}

/**
 * Directives cut the document into segments lexed one by one, so a reference link in one segment
 * would miss its definition in another: re-lex such blocks knowing every definition, as a renderer does.
 */
function resolveReferences(text: string, ranges: Range[]): void {
  const defs = ranges.filter((r) => r.kind === "def");
  if (defs.length === 0) return;
  const relexed = new Lexer({ gfm: true }).lex(defs.map((d) => text.slice(d.start, d.end)).join("\n\n") + "\n\n");
  const links = (relexed as unknown as { links: Record<string, { href: string; title: string }> }).links;
  for (const r of ranges) {
    if (!r.token || (r.kind !== "paragraph" && r.kind !== "heading" && r.kind !== "list" && r.kind !== "blockquote" && r.kind !== "table")) continue;
    const lexer = new Lexer({ gfm: true });
    Object.assign((lexer as unknown as { tokens: { links: object } }).tokens.links, links);
    const [token] = lexer.lex(text.slice(r.start, r.end));
    if (token && token.type === r.token.type) {
      r.token = token;
      delete r.inline;
    }
  }
}

export function splitBlocks(source: string): SplitDoc {
  // Lex on "\n" line ends, then map every offset back onto the original bytes.
  const hasCr = source.includes("\r");
  const text = hasCr ? source.replace(/\r\n?/g, "\n") : source;
  let toOriginal = (i: number) => i;
  if (hasCr) {
    const map = new Int32Array(text.length + 1);
    let o = 0;
    for (let i = 0; i < text.length; i++) {
      map[i] = o;
      o += source[o] === "\r" && source[o + 1] === "\n" ? 2 : 1;
    }
    map[text.length] = source.length;
    toOriginal = (i: number) => map[i]!;
  }

  const ranges: Range[] = [];
  const fmEnd = frontmatterEnd(text);
  if (fmEnd > 0) ranges.push({ kind: "frontmatter", start: 0, end: fmEnd });
  let at = fmEnd;
  for (const d of directiveRanges(text, fmEnd)) {
    lexRanges(text, at, d.start, ranges);
    ranges.push({ kind: "directive", start: d.start, end: d.end });
    at = d.end;
  }
  lexRanges(text, at, text.length, ranges);
  if (at !== fmEnd) resolveReferences(text, ranges);

  const first = ranges[0];
  const lead = source.slice(0, toOriginal(first ? first.start : text.length));
  const blocks = ranges.map((r, i): SourceBlock => {
    const next = ranges[i + 1];
    const block: SourceBlock = {
      kind: r.kind,
      text: source.slice(toOriginal(r.start), toOriginal(r.end)),
      sep: source.slice(toOriginal(r.end), toOriginal(next ? next.start : text.length)),
    };
    if (r.token && !hasCr) {
      const { token, inline } = r;
      if (!inline) block.token = token;
      // Read on first use: its inline text (and every earlier block's) is lexed then.
      else Object.defineProperty(block, "token", { enumerable: true, get: () => (inline.later.through(inline.upTo), token) });
    } else if (r.token) block.token = new Lexer({ gfm: true }).lex(text.slice(r.start, r.end))[0] ?? r.token;
    return block;
  });
  return { lead, blocks };
}

export function joinBlocks(doc: SplitDoc): string {
  return doc.lead + doc.blocks.map((b) => b.text + b.sep).join("");
}
