import type { Lexer, Token, TokenizerExtension } from "marked";
import { current, lineOf } from "./state.ts";

/**
 * The directive syntax of docs/architecture.md §9, read by our own marked extensions:
 * - containers `:::name[argument]{attributes}` … `:::` (one space after the colons is allowed, as
 *   VuePress writes `::: warning`; any run of two or more colons; the block
 *   closes at a line of exactly as many colons, nested openers of the same length counted, fenced
 *   code skipped), so children are `::child[label]` … `::` inside their parent;
 * - leaves that need no closing line (`:::toc`, `::embed[url]`, `::badge[New]`; a closing line
 *   right after is accepted too);
 * - inline `:badge[text]{variant=…}`.
 * An opener without its closing line becomes a `directiveError` token for the opener alone, so the
 * rest of the page still renders as Markdown; nesting deeper than MAX_DEPTH is shown as text.
 */
interface Attributes {
  [key: string]: string;
}

export interface DirectiveToken {
  type: "directive";
  raw: string;
  name: string;
  colons: number;
  arg?: string;
  attrs: Attributes;
  /** Raw text between the opener and the closer. */
  body: string;
  line?: number;
  /** Block tokens of the body (absent for components whose body is not Markdown: math, diagrams). */
  tokens: Token[];
  /** The name of the directive this one sits in directly (children check their parent). */
  parent?: string;
}

export interface DirectiveErrorToken {
  type: "directiveError";
  raw: string;
  name: string;
  message: string;
  line?: number;
  /** Text to show as written (escaped) below the notice, when the block could not be read. */
  text?: string;
}

/** Components whose body is kept verbatim rather than read as Markdown. */
const RAW_BODY = new Set(["mermaid", "katex", "math"]);
/** Components that take no body: complete on their opening line. */
const LEAVES = new Set(["toc", "embed", "badge"]);
const MAX_DEPTH = 12;

const OPENER = /^ {0,3}(:{2,})[ \t]?([a-zA-Z][\w-]*)(?:\[((?:[^\[\]\n]|\[[^\[\]\n]*\])*)\])?(?:\{([^{}\n]*)\})?[ \t]*(?:\n|$)/;
const BAD_OPENER = /^ {0,3}(:{3,})[ \t]*([^\s:][^\n]*)(?:\n|$)/;
const FENCE = /^ {0,3}(`{3,}|~{3,})/;

/** `{key=value key2="a b" .class #id flag}` → attributes (class and id kept as given). */
function parseAttributes(text: string | undefined): Attributes {
  const attrs: Attributes = {};
  if (!text) return attrs;
  const re = /([.#])([\w-]+)|([\w:-]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'}]+)))?/g;
  for (let m = re.exec(text); m !== null; m = re.exec(text)) {
    if (m[1] === ".") attrs.class = attrs.class ? `${attrs.class} ${m[2]}` : m[2]!;
    else if (m[1] === "#") attrs.id = m[2]!;
    else attrs[m[3]!.toLowerCase()] = m[4] ?? m[5] ?? m[6] ?? "";
  }
  return attrs;
}


/** Where the block opened on the first line of `src` closes: the offset of its closing line, -1 when none, -2 when the budget is spent. */
function findCloser(src: string, start: number, colons: number): { at: number; end: number } {
  let depth = 0;
  let fence: string | null = null;
  let pos = start;
  const s = current();
  while (pos < src.length) {
    if (s.scanBudget <= 0) return { at: -2, end: -2 };
    const nl = src.indexOf("\n", pos);
    const end = nl < 0 ? src.length : nl + 1;
    const line = src.slice(pos, nl < 0 ? src.length : nl);
    const f = FENCE.exec(line);
    if (fence !== null) {
      if (f && f[1]![0] === fence[0] && f[1]!.length >= fence.length && line.trim() === f[1]) fence = null;
    } else if (f) {
      fence = f[1]!;
    } else if (line.charCodeAt(line.search(/\S|$/)) === 58 /* : */) {
      const m = /^ {0,3}(:{2,})(?:[ \t]?([a-zA-Z][\w-]*))?/.exec(line);
      if (m && m[1]!.length === colons) {
        if (m[2] !== undefined) {
          if (!LEAVES.has(m[2].toLowerCase())) depth++;
        } else if (line.trim() === m[1]) {
          if (depth === 0) return { at: pos, end };
          depth--;
        }
      }
    }
    s.scanBudget -= end - pos;
    pos = end;
  }
  return { at: -1, end: -1 };
}

/**
 * marked asks each extension where it could start next in the rest of the page, before every
 * paragraph (block level) and every run of text (inline). Scanning the whole rest each time is
 * quadratic on a big page, so the scans are bounded:
 * - block: a paragraph ends at a blank line, so only the text up to the next blank line matters;
 * - inline: only the next INLINE_WINDOW characters are searched; when nothing starts there, the
 *   answer is the last space in the window, which just splits a text run (marked merges adjacent
 *   text again) at a place no inline rule cares about.
 */
function paragraphWindow(src: string): string {
  // The search stops at the first blank line, so it costs the paragraph's length, not the page's.
  const blank = /\n[ \t]*\n/.exec(src);
  return blank ? src.slice(0, blank.index + 1) : src;
}

const INLINE_WINDOW = 1024;

function inlineStart(src: string, find: (window: string) => number): number | undefined {
  if (src.length <= INLINE_WINDOW) {
    const i = find(src);
    return i < 0 ? undefined : i;
  }
  const window = src.slice(0, INLINE_WINDOW);
  const i = find(window);
  if (i >= 0) return i;
  const space = window.lastIndexOf(" ");
  if (space > 0) return space;
  const j = find(src);
  return j < 0 ? undefined : j;
}

export const blockDirective: TokenizerExtension & { renderer?: never } = {
  name: "directive",
  level: "block",
  start(src: string) {
    const m = /^ {0,3}:{2,}[ \t]?[a-zA-Z]|^ {0,3}:{3,}[ \t]*[^\s:]/m.exec(paragraphWindow(src));
    return m ? m.index : undefined;
  },
  tokenizer(this: { lexer: Lexer }, src: string): DirectiveToken | DirectiveErrorToken | undefined {
    const m = OPENER.exec(src);
    if (!m) {
      const bad = BAD_OPENER.exec(src);
      if (!bad) return undefined;
      const written = bad[0].trim();
      // `:::` then something that is not a name (`:::[x]`, `:::1`), or a name with more on its line
      // (`:::callout[info] text`). `::: some prose` (a space first) is left to be prose.
      if (!/^[a-zA-Z]/.test(bad[2]!)) {
        return { type: "directiveError", raw: bad[0], name: written.slice(0, 40), message: `"${written.slice(0, 80)}" is not a component opener (expected ${bad[1]}name[argument])`, line: lineOf(bad[0]) };
      }
      if (/^ {0,3}:{3,}[a-zA-Z]/.test(bad[0])) {
        const name = /[a-zA-Z][\w-]*/.exec(bad[2]!)![0].toLowerCase();
        return {
          type: "directiveError",
          raw: bad[0],
          name,
          message: `could not read the opening line "${written.slice(0, 80)}" (expected ${bad[1]}${name}[argument]{attributes} alone on its line); what follows is shown as ordinary text`,
          line: lineOf(bad[0]),
        };
      }
      return undefined;
    }
    const [opener, colonRun, rawName, arg, attrText] = m as unknown as [string, string, string, string | undefined, string | undefined];
    const name = rawName.toLowerCase();
    const colons = colonRun.length;
    const line = lineOf(opener);
    const attrs = parseAttributes(attrText);
    const base = { name, colons, attrs, line, ...(arg !== undefined ? { arg } : {}) };
    if (LEAVES.has(name)) {
      // A closing line right after a leaf belongs to it.
      const next = new RegExp(`^ {0,3}:{${colons}}[ \\t]*(?:\\n|$)`).exec(src.slice(opener.length));
      const raw = next ? opener + next[0] : opener;
      return { type: "directive", raw, body: "", tokens: [], ...base };
    }
    const close = findCloser(src, opener.length, colons);
    if (close.at === -2) {
      return { type: "directiveError", raw: opener, name, message: `too many unclosed components on this page to match ${colonRun}${name} with its closing line; the content below is shown as ordinary text`, line };
    }
    if (close.at < 0) {
      return { type: "directiveError", raw: opener, name, message: `${colonRun}${name} is never closed (add a line "${colonRun}" after its content); the content below is shown as ordinary text`, line };
    }
    const raw = src.slice(0, close.end);
    const body = src.slice(opener.length, close.at);
    const state = current();
    if (state.directiveDepth >= MAX_DEPTH) {
      return { type: "directiveError", raw, name, message: `components are nested more than ${MAX_DEPTH} deep; this one is shown as written`, line, text: raw };
    }
    const token: DirectiveToken = { type: "directive", raw, body, tokens: [], ...base };
    if (!RAW_BODY.has(name)) {
      state.directiveDepth++;
      try {
        token.tokens = this.lexer.blockTokens(body, []);
      } finally {
        state.directiveDepth--;
      }
      for (const child of token.tokens) if (child.type === "directive") (child as unknown as DirectiveToken).parent = name;
    }
    return token;
  },
};

export interface InlineDirectiveToken {
  type: "inlineDirective";
  raw: string;
  name: string;
  text: string;
  attrs: Attributes;
}

/** Inline components: only those listed here, so `note:[x]` in prose stays prose. */
const INLINE = new Set(["badge"]);

export const inlineDirective: TokenizerExtension = {
  name: "inlineDirective",
  level: "inline",
  start: (src: string) => inlineStart(src, (w) => w.search(/:(?=[a-zA-Z][\w-]*\[)/)),
  tokenizer(src: string): InlineDirectiveToken | undefined {
    const m = /^:([a-zA-Z][\w-]*)\[([^\[\]\n]*)\](?:\{([^{}\n]*)\})?/.exec(src);
    if (!m || !INLINE.has(m[1]!.toLowerCase())) return undefined;
    return { type: "inlineDirective", raw: m[0], name: m[1]!.toLowerCase(), text: m[2]!, attrs: parseAttributes(m[3]) };
  },
};

/** Block math `$$ … $$` on lines of their own. */
export const blockMath: TokenizerExtension = {
  name: "blockMath",
  level: "block",
  start(src: string) {
    const m = /^ {0,3}\$\$/m.exec(paragraphWindow(src));
    return m ? m.index : undefined;
  },
  tokenizer(src: string) {
    const m = /^ {0,3}\$\$([^\n]*?)\$\$[ \t]*(?:\n|$)/.exec(src) ?? /^ {0,3}\$\$[ \t]*\n([\s\S]*?)\n {0,3}\$\$[ \t]*(?:\n|$)/.exec(src);
    if (!m) return undefined;
    return { type: "blockMath", raw: m[0], text: m[1]!.trim() };
  },
};

/**
 * Inline math `$…$`: the opening `$` is followed by a non-space, the closing one preceded by a
 * non-space and not followed by a digit (so "$5 and $10" stays text), `\$` is a literal dollar.
 */
export const inlineMath: TokenizerExtension = {
  name: "inlineMath",
  level: "inline",
  start: (src: string) => inlineStart(src, (w) => w.indexOf("$")),
  tokenizer(src: string) {
    const display = /^\$\$(?!\s)((?:\\.|[^\\$\n])+?)\$\$/.exec(src);
    if (display) return { type: "inlineMath", raw: display[0], text: display[1]!, display: true };
    const m = /^\$(?![\s$])((?:\\.|[^\\$\n])*?[^\\\s$])\$(?!\d)/.exec(src) ?? /^\$([^\s$\\])\$(?!\d)/.exec(src);
    if (!m) return undefined;
    return { type: "inlineMath", raw: m[0], text: m[1]!, display: false };
  },
};
