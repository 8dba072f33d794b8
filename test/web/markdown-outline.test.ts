/** A page's headings for `#heading` link targets: the ids the site gives them, and what a wikilink writes. */
import { expect, test } from "bun:test";
import { linkedPagePath, pageOutline } from "../../src/web/markdown/outline.ts";
import { renderMarkdown } from "../../src/publish/render/index.ts";

const PAGE = "---\ntitle: Guide\n---\n# Guide\n\nIntro.\n\n## Install the *CLI*\n\n```\n# not a heading\n```\n\n## Usage\n\n### Usage\n\n## A [b] | c\n\n> ## Quoted\n";

test("headings in order with their plain text, ids as the renderer gives them, and wikilink targets", () => {
  const outline = pageOutline(PAGE);
  expect(outline.map((h) => [h.depth, h.text, h.id, h.target])).toEqual([
    [1, "Guide", "guide", "Guide"],
    [2, "Install the CLI", "install-the-cli", "Install the CLI"],
    [2, "Usage", "usage", "Usage"],
    // A repeated heading is numbered, and a text a wikilink cannot hold is written as its id.
    [3, "Usage", "usage-1", "usage-1"],
    [2, "A [b] | c", "a-b--c", "a-b--c"],
    [2, "Quoted", "quoted", "Quoted"],
  ]);
});

test("the ids are the ones the site's renderer gives the same page, and a wikilink to each target lands on it", () => {
  const rendered = renderMarkdown(PAGE.replace(/^---[\s\S]*?---\n/, ""), { pagePath: "guide.md", resolveLink: () => "/x" });
  expect(pageOutline(PAGE).map((h) => h.id)).toEqual(rendered.headings.map((h) => h.id));
  for (const h of pageOutline(PAGE)) {
    const html = renderMarkdown(`[[guide#${h.target}]]\n`, { pagePath: "other.md", resolveLink: (t) => `/guide${t.anchor ? `#${t.anchor}` : ""}`, pageExists: () => true }).html;
    expect(html).toContain(`#${h.id}"`);
  }
});

test("a relative Markdown link names a workspace page as the site resolves it", () => {
  expect(linkedPagePath("docs/a.md", "b.md")).toBe("docs/b.md");
  expect(linkedPagePath("docs/a.md", "../guide/intro.md#setup")).toBe("guide/intro.md");
  expect(linkedPagePath("docs/a.md", "/top.md")).toBe("top.md");
  expect(linkedPagePath("docs/a.md", "./x%20y.md?v=1")).toBe("docs/x y.md");
  expect(linkedPagePath("docs/a.md", "../../etc/passwd.md")).toBeNull();
  expect(linkedPagePath("docs/a.md", "https://example.com/a.md")).toBeNull();
  expect(linkedPagePath("docs/a.md", "//example.com/a.md")).toBeNull();
  expect(linkedPagePath("docs/a.md", "image.png")).toBeNull();
});
