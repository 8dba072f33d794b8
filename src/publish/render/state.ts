import GithubSlugger from "github-slugger";
import type { FootnoteDefinition, Heading, RenderNotice, RenderOptions } from "./types.ts";

/**
 * What one render collects while marked walks the page. marked's extensions are plain functions
 * registered once on a shared instance; rendering is synchronous, so the page being rendered is
 * held here for the duration of one `renderMarkdown` call.
 */
interface RenderState {
  opts: RenderOptions;
  slugger: GithubSlugger;
  headings: Heading[];
  notices: RenderNotice[];
  hasMermaid: boolean;
  hasMath: boolean;
  hasCode: boolean;
  /** Markup the renderer made itself, kept out of the sanitizer and put back afterwards (see sanitize.ts). */
  trusted: string[];
  /** The Markdown being rendered, and how far line lookups have got (notices name lines). */
  source: string;
  lineCursor: number;
  countedTo: number;
  countedLine: number;
  /** Per-page counters for ids the renderer makes (tab groups). */
  counters: { tabs: number };
  /** Table-of-contents placeholders to fill once every heading is known. */
  tocs: Array<{ index: number; maxDepth: number }>;
  /** Footnote definitions by lowercased label; those referenced, in order of first reference. */
  footnotes: Map<string, FootnoteDefinition>;
  footnoteOrder: FootnoteDefinition[];
  footnoteCount: number;
  /** Components open around the block being read, and what closing-line searches may still read (directives.ts). */
  directiveDepth: number;
  scanBudget: number;
  /** Formulas typeset so far, and whether the page was told about the limit (math.ts). */
  formulas: number;
  mathLimitNoticed: boolean;
  /** Whether any line could underline a setext heading (markdown.ts skips marked's costly search otherwise). */
  setextPossible: boolean;
}

/**
 * A line ending in a run of `=` or `-` after nothing, spaces or `>`/list markers: every setext
 * underline is such a line, whatever container (quote, list item) it sits in.
 */
const SETEXT_UNDERLINE = /(?:^|[ \t>])(?:=+|-+)[ \t]*$/m;

/**
 * How many characters the search for closing lines may read in one render, as a multiple of the
 * page's length. Each opener scans forward to its closer, so well-formed pages read each line a
 * few times (once per enclosing component); a page of thousands of unclosed openers would read to
 * the end for every one of them. Past the budget (see findCloser in directives.ts), openers are reported as unclosed unread.
 */
const SCAN_BUDGET_FACTOR = 16;

let state: RenderState | null = null;
/** Renders in progress below the current one (a resolveLink that renders another page re-enters). */
const outer: Array<RenderState | null> = [];

export function beginRender(source: string, opts: RenderOptions): RenderState {
  outer.push(state);
  state = {
    opts,
    slugger: new GithubSlugger(),
    headings: [],
    notices: [],
    hasMermaid: false,
    hasMath: false,
    hasCode: false,
    trusted: [],
    source,
    lineCursor: 0,
    countedTo: 0,
    countedLine: 1,
    counters: { tabs: 0 },
    tocs: [],
    footnotes: new Map(),
    footnoteOrder: [],
    footnoteCount: 0,
    directiveDepth: 0,
    formulas: 0,
    mathLimitNoticed: false,
    setextPossible: SETEXT_UNDERLINE.test(source),
    scanBudget: SCAN_BUDGET_FACTOR * source.length + 100_000,
  };
  return state;
}

export function endRender(): void {
  state = outer.pop() ?? null;
}

export function current(): RenderState {
  if (state === null) throw new Error("renderer extension used outside renderMarkdown");
  return state;
}

/** Placeholder delimiters: private-use characters removed from every input before rendering. */
export const TRUST_OPEN = "\uE000";
export const TRUST_CLOSE = "\uE001";

/** Hands back a placeholder for markup the renderer built itself from escaped parts. */
export function trust(html: string): string {
  const s = current();
  s.trusted.push(html);
  return `${TRUST_OPEN}${s.trusted.length - 1}${TRUST_CLOSE}`;
}

/** Records a notice and returns its visible block (trusted markup). */
export function notice(component: string, message: string, line?: number, inline = false): string {
  const s = current();
  const entry: RenderNotice = line === undefined ? { component, message } : { component, message, line };
  s.notices.push(entry);
  const where = line === undefined ? "" : ` (line ${line})`;
  const tag = inline ? "span" : "div";
  return trust(
    `<${tag} class="render-notice" role="note"><strong>${escapeText(component)}</strong>${escapeText(where)}: ${escapeText(message)}</${tag}>${inline ? "" : "\n"}`,
  );
}

function escapeText(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
}

/**
 * The 1-based line where `snippet` (the raw text of a token) starts, searching forward from the
 * last match: tokens come in document order. Blocks inside quotes or lists lose their prefixes in
 * the lexer, so only the snippet's first line is looked for; unknown when it cannot be found.
 */
export function lineOf(snippet: string): number | undefined {
  const s = current();
  const first = snippet.split("\n", 1)[0]!.trim();
  if (first === "") return undefined;
  const at = s.source.indexOf(first, s.lineCursor);
  if (at < 0) return undefined;
  s.lineCursor = at + first.length;
  // Lines are counted from the previous match on, so a page with many notices stays linear.
  for (let i = s.source.indexOf("\n", s.countedTo); i >= 0 && i < at; i = s.source.indexOf("\n", i + 1)) s.countedLine++;
  s.countedTo = at;
  return s.countedLine;
}
