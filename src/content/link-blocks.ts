import type { Lexer, Token } from "marked";

/**
 * The block tokens of a page body that is written in a plain, common subset of Markdown, found by
 * one pass over its lines instead of marked's block lexer (which tries a dozen regexes at every
 * block and made up most of the quality scan's time). The subset: blank lines, ATX headings,
 * fenced code at the margin, paragraphs whose lines start with a letter (or a link, image, quote or
 * code span), single-line list items (`-`/`*`/`+`, `1.`/`1)`), quotes of such paragraph lines, and
 * pipe tables. The tokens carry what
 * link-regions.ts reads (type, raw, text; list items; tables as marked makes them) and nothing more.
 *
 * Anything outside the subset, or any neighbourhood where Markdown's rules get subtle (lazy
 * continuation, a list or table right after a paragraph, trailing spaces, reference definitions,
 * tabs or lone carriage returns, indentation), returns null and the caller lexes the page with marked
 * as before. The subset is kept this narrow on purpose: test/content/link-regions-fast.test.ts
 * compares both paths over the spec examples, the starter pages and generated hostile pages.
 */
type Kind = "start" | "blank" | "heading" | "code" | "para" | "list" | "table" | "quote";

const BLANK = /^[ \t]*$/;
const FENCE_OPEN = /^(`{3,}|~{3,})(.*)$/;
const FENCE_CLOSE = /^ {0,3}(`{3,}|~{3,})[ \t]*$/;
const FENCE_LIKE = /^ {0,3}(?:`{3}|~{3})/;
const HEADING = /^#{1,6}(?:[ \t]|$)/;
const ITEM = /^([-*+]|\d{1,9}[.)]) (\S.*)$/;
const QUOTE = /^> (.*)$/;
/** Items of one list share a bullet, or an ordered list's delimiter (`.` or `)`). */
const markerOf = (m: string) => m.at(-1)!;
const TABLE_DELIMITER = /^\|?(?: *:?-+:? *\|)+ *(?::?-+:? *)?$/;
/**
 * How a paragraph line may begin: nothing here can open another block (emphasis is not a bullet
 * or a rule when a word follows at once; a number is not an ordered list without `.`/`)` after it;
 * component fences `:::name` / `:::` are paragraphs to marked, and no table delimiter).
 */
const PARA_START = /^(?:[\p{L}\["'(!]|`(?!``)|[*_]+[^\s*_]|\p{N}(?!\d*[.)](?:\s|$))|:{2,}(?:\p{L}|$))/u;
/** How a list item's text may begin (not a task box, not a fence, not a nested marker). */
const ITEM_START = /^(?:\p{L}|\[(?![ xX]\])|`(?!``))/u;

export function plainBlocks(body: string, lines: string[], lexer: Lexer): Token[] | null {
  // Reference definitions change how inline text lexes; tabs, lone CRs and NULs change lines.
  if (body.includes("]:") || /\r(?!\n)|\t|\0/.test(body)) return null;
  // A last line of only spaces (no newline after it) belongs to the block above it in marked.
  if (/[ \t]$/.test(lines.at(-1) ?? "")) return null;
  const tokens: Token[] = [];
  let prev: Kind = "start";
  let list: { marker: string; token: Token & { items: Array<{ tokens: Token[] }> } } | null = null;
  let i = 0;
  while (i < lines.length) {
    const line = lines[i]!;
    if (BLANK.test(line)) {
      prev = "blank";
      i++;
      continue;
    }
    if (/[ \t]$/.test(line)) return null;
    const afterList = prev === "list";
    if (afterList) {
      // Right after an item only another item of the same list may follow.
      const m = ITEM.exec(line);
      if (!m || markerOf(m[1]!) !== list!.marker || !ITEM_START.test(m[2]!)) return null;
    }
    const fence = FENCE_OPEN.exec(line);
    if (fence) {
      const mark = fence[1]!;
      if (mark[0] === "`" && fence[2]!.includes("`")) return null;
      let j = i + 1;
      for (; j < lines.length; j++) {
        const close = FENCE_CLOSE.exec(lines[j]!);
        if (close && close[1]![0] === mark[0] && close[1]!.length >= mark.length) break;
        // Fence-like lines inside (```~, a shorter run): where the lexer closes is left to it.
        if (FENCE_LIKE.test(lines[j]!)) return null;
      }
      if (j >= lines.length) return null; // unclosed: runs to the end, left to the lexer
      list = null;
      tokens.push({ type: "code", raw: lines.slice(i, j + 1).join("\n") + "\n" } as Token);
      prev = "code";
      i = j + 1;
      continue;
    }
    if (HEADING.test(line)) {
      // Its text matters only for finding code spans: without a backtick none can be in it.
      let t = { type: "heading", raw: line + "\n", text: "" } as Token;
      if (line.includes("`")) {
        const [lexed, ...more] = lexer.blockTokens(line + "\n", []);
        if (!lexed || lexed.type !== "heading" || more.length > 0) return null;
        t = lexed;
      }
      list = null;
      tokens.push(t);
      prev = "heading";
      i++;
      continue;
    }
    const item = ITEM.exec(line);
    if (item) {
      if (prev === "para" || !ITEM_START.test(item[2]!)) return null;
      const text = item[2]!;
      const inner = { type: "text", raw: text, text } as Token;
      const marker = markerOf(item[1]!);
      if (list && list.marker === marker && (prev === "list" || prev === "blank")) {
        list.token.items.push({ tokens: [inner] });
      } else {
        if (list && prev === "blank") return null; // another marker after a gap: a new list, left to the lexer
        list = { marker, token: { type: "list", raw: "", items: [{ tokens: [inner] }] } as never };
        tokens.push(list.token);
      }
      prev = "list";
      i++;
      continue;
    }
    const quote = QUOTE.exec(line);
    if (quote) {
      // A quote of paragraph lines, each marked, ended by a blank line (no lazy continuation).
      if (prev === "para") return null;
      const text: string[] = [];
      let j = i;
      for (; j < lines.length; j++) {
        const q = QUOTE.exec(lines[j]!);
        if (!q) break;
        if (!PARA_START.test(q[1]!)) return null;
        text.push(q[1]!);
      }
      if (j < lines.length && !BLANK.test(lines[j]!)) return null;
      const inner = { type: "paragraph", raw: text.join("\n") + "\n", text: text.join("\n") } as Token;
      list = null;
      tokens.push({ type: "blockquote", raw: lines.slice(i, j).join("\n") + "\n", tokens: [inner] } as Token);
      prev = "quote";
      i = j;
      continue;
    }
    if (line.startsWith("|")) {
      if (prev === "para" || i + 1 >= lines.length || !TABLE_DELIMITER.test(lines[i + 1]!)) return null;
      let j = i + 2;
      while (j < lines.length && lines[j]!.startsWith("|")) j++;
      if (j < lines.length && !BLANK.test(lines[j]!)) return null;
      const raw = lines.slice(i, j).join("\n") + "\n";
      // Cells matter only for finding code spans. Without a backtick, what marked makes of these
      // lines (a table, or a paragraph if the columns disagree) is prose over the same lines.
      let table = { type: "table", raw, header: [], rows: [] } as unknown as Token;
      if (raw.includes("`")) {
        const isolated = lexer.blockTokens(raw, []).filter((t) => t.type !== "space");
        if (isolated.length !== 1 || isolated[0]!.type !== "table") return null;
        table = isolated[0]!;
      }
      list = null;
      tokens.push(table);
      prev = "table";
      i = j;
      continue;
    }
    if (!PARA_START.test(line)) return null;
    // A paragraph: following lines of the same kind; a heading or a fence may end it.
    let j = i + 1;
    for (; j < lines.length; j++) {
      const next = lines[j]!;
      if (BLANK.test(next) || HEADING.test(next) || FENCE_OPEN.test(next)) break;
      if (!PARA_START.test(next) || /[ \t]$/.test(next)) return null;
    }
    list = null;
    const text = lines.slice(i, j).join("\n");
    tokens.push({ type: "paragraph", raw: text + "\n", text } as Token);
    prev = "para";
    i = j;
  }
  return tokens;
}
