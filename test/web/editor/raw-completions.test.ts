/** The raw editor's completions for Quire's own Markdown, as pure text in and options out. */
import { describe, expect, test } from "bun:test";
import { completeAt } from "../../../src/web/editor/raw-completions.ts";
import { renderMarkdown } from "../../../src/publish/render/index.ts";

const at = (line: string) => completeAt(line, line.length);
const labels = (line: string) => at(line)?.options.map((o) => o.label) ?? null;
/** A snippet with its fields filled by their placeholders, as inserted with nothing typed. */
const filled = (snippet: string) => snippet.replace(/\$\{([^}]*)\}/g, "$1");

describe("raw editor completions", () => {
  test("component names after ::: at a line's start, children after ::, filtered by what is typed", () => {
    expect(labels(":::")).toEqual(["callout", "tabs", "steps", "cards", "accordion", "api", "filetree", "mermaid", "math", "katex", "toc"]);
    expect(labels(":::ca")).toEqual(["callout", "cards"]);
    expect(at(":::ca")!.from).toBe(3);
    expect(labels("  ::t")).toEqual(["tab"]);
    expect(labels("::e")).toEqual(["embed"]);
    expect(labels("text :::")).toBeNull();
    expect(labels("    :::")).toBeNull(); // four spaces: code, not a component
  });

  test("a callout's types, the badge and its variants", () => {
    expect(labels(":::callout[")).toEqual(["info", "warning", "danger", "tip", "note"]);
    expect(labels(":::callout[w")).toEqual(["warning"]);
    expect(labels("It is :ba")).toEqual(["badge"]);
    expect(labels("(:b")).toEqual(["badge"]);
    // Not after a word or a number ("10:b" is a time, "a:b" a word).
    expect(labels("time 10:b")).toBeNull();
    expect(labels("a:b")).toBeNull();
    expect(labels("It is :badge[New]{variant=d")).toEqual(["default", "danger", "deprecated"]);
    expect(labels('It is :badge[New]{.x type=')).toHaveLength(10);
  });

  test("each block component's completion, inserted as is, is a component the site renders without a notice", () => {
    for (const o of at(":::")!.options) {
      const md = `:::${filled(o.snippet)}\n`;
      const html = renderMarkdown(md, { pagePath: "x.md", resolveLink: () => "/x" }).html;
      expect({ name: o.label, notice: /class="[^"]*notice/.test(html) }).toEqual({ name: o.label, notice: false });
    }
    // The closing line matches the opening's colons.
    expect(filled(at("::::")!.options[0]!.snippet)).toBe("callout[info]\n\n::::");
    const badge = `It is :${filled(at("It is :b")!.options[0]!.snippet)}.`;
    expect(renderMarkdown(badge, { pagePath: "x.md", resolveLink: () => "/x" }).html).toContain('class="badge badge-info"');
  });
});
