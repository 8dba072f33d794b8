import { describe, expect, test } from "bun:test";
import { MAX_RENDER_CHARS } from "../../../src/publish/render/index.ts";
import { text } from "./html.ts";
import { render } from "./support.ts";

/**
 * Pages that are huge or built to be slow render in bounded time, never hang and never lose text.
 * Work is bounded on CPU time, which the other processes of a loaded machine do not inflate: 5 s
 * for the two cases (a 5 MB page, 10,000 headings) and for the rest (each is well under a
 * second of CPU). Wall time only has to stay under 30 s, to catch a hang even on a machine
 * shared by many (this one ran the tests at a load average near 20).
 */
const BOUND_MS = 5000;
const PATHOLOGICAL_BOUND_MS = 5000;
const WALL_LIMIT_MS = 30_000;
/** bun's own per-test limit (5 s by default) must not cut a measurement short. */
const TEST_TIMEOUT_MS = 120_000;

function timed<T>(fn: () => T): { value: T; ms: number; wall: number } {
  const cpu = process.cpuUsage();
  const start = performance.now();
  const value = fn();
  const wall = performance.now() - start;
  const used = process.cpuUsage(cpu);
  expect(wall).toBeLessThan(WALL_LIMIT_MS);
  return { value, ms: (used.user + used.system) / 1000, wall };
}

const para = "Some *text* with a [link](setup.md), `code`, [[guides/setup]] and **bold** words in it.\n\n";

describe("bounded time", () => {
  test("a 5 MB page is shown as text with a notice, quickly and completely", () => {
    const md = para.repeat(Math.ceil(5_000_000 / para.length));
    const { value: r, ms } = timed(() => render(md));
    expect(ms).toBeLessThan(BOUND_MS);
    expect(r.notices).toEqual([{ component: "page", message: expect.stringContaining("too large") }]);
    expect(text(r.html).length).toBeGreaterThan(md.length - 10);
  }, TEST_TIMEOUT_MS);

  test("a page of a fifth of the size limit (100 KB of dense inline Markdown) renders as Markdown", () => {
    const md = para.repeat(Math.floor(MAX_RENDER_CHARS / 5 / para.length));
    const { value: r, ms } = timed(() => render(md));
    expect(ms).toBeLessThan(BOUND_MS);
    expect(r.notices).toEqual([]);
    expect(r.html).toContain("<strong>bold</strong>");
  }, TEST_TIMEOUT_MS);

  test("10,000 headings get unique ids", () => {
    const md = Array.from({ length: 10_000 }, (_, i) => `## Section ${i % 100}\n\nText.\n`).join("\n");
    const { value: r, ms } = timed(() => render(md));
    expect(ms).toBeLessThan(BOUND_MS);
    expect(r.headings).toHaveLength(10_000);
    expect(new Set(r.headings.map((h) => h.id)).size).toBe(10_000);
  }, TEST_TIMEOUT_MS);

  test("10,000 footnotes", () => {
    const md = Array.from({ length: 10_000 }, (_, i) => `Ref[^${i}].`).join(" ") + "\n\n" + Array.from({ length: 10_000 }, (_, i) => `[^${i}]: Note ${i}.`).join("\n");
    const { value: r, ms } = timed(() => render(md));
    expect(ms).toBeLessThan(PATHOLOGICAL_BOUND_MS);
    expect(r.html).toContain('id="Fn-9999"');
  }, TEST_TIMEOUT_MS);

  test("components nested hundreds deep, unclosed by the thousand, and a list nested 500 deep", () => {
    const cases = [
      ":::callout[info]\n".repeat(500) + "deep\n" + ":::\n".repeat(500),
      Array.from({ length: 200 }, (_, i) => ":".repeat(i + 3) + "callout[info]\n").join("") + "deep\n",
      ":::callout[info]\nopen\n\n".repeat(5000),
      Array.from({ length: 500 }, (_, i) => "  ".repeat(i) + "- deep").join("\n"),
      ">".repeat(3000) + " deep\n",
    ];
    for (const md of cases) {
      const { value: r, ms } = timed(() => render(md));
      expect(ms).toBeLessThan(PATHOLOGICAL_BOUND_MS);
      expect(text(r.html)).toContain(md.includes("open") ? "open" : "deep");
    }
  }, TEST_TIMEOUT_MS);

  test("many inline constructs: dollars, emphasis, brackets, wikilinks", () => {
    for (const md of ["$a $b ".repeat(10_000), "*a **b ".repeat(5_000), "[".repeat(5_000) + "x" + "]".repeat(5_000), "[[a]] ".repeat(10_000)]) {
      const { ms } = timed(() => render(md));
      expect(ms).toBeLessThan(PATHOLOGICAL_BOUND_MS);
    }
  }, TEST_TIMEOUT_MS);
});

describe("limits of the costly parts", () => {
  test("past 2,000 formulas, or a formula of 10,000+ characters, TeX is shown as code with one notice", () => {
    const md = Array.from({ length: 2_100 }, (_, i) => `$x_{${i}}$`).join(" ");
    const { value: r, ms } = timed(() => render(md));
    expect(ms).toBeLessThan(PATHOLOGICAL_BOUND_MS);
    expect(r.notices).toEqual([{ component: "katex", message: expect.stringContaining("more than 2000 formulas") }]);
    expect(r.html).toContain('<code class="math-source">x_{2099}</code>');
    const long = render(`$$\n${"x+".repeat(6000)}x\n$$`);
    expect(long.notices[0]!.message).toContain("longer than");
  }, TEST_TIMEOUT_MS);

  test("a code block over 100,000 characters is shown unhighlighted, all of it", () => {
    const code = "const x = 1; // comment\n".repeat(5_000);
    const { value: r, ms } = timed(() => render("```ts\n" + code + "```"));
    expect(ms).toBeLessThan(BOUND_MS);
    expect(r.html).not.toContain('class="token');
    expect(text(r.html)).toContain(code.trim());
  }, TEST_TIMEOUT_MS);
});
