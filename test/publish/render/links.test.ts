import { describe, expect, test } from "bun:test";
import { extractText, renderMarkdown } from "../../../src/publish/render/index.ts";
import { elements } from "./html.ts";
import { render, siteLinks } from "./support.ts";

const links = (html: string) => elements(html).filter((e) => e.name === "a" && e.attribs.class !== "heading-anchor");
const broken = (html: string) => elements(html).filter((e) => e.name === "span" && e.attribs.class === "broken-link");

describe("wikilinks", () => {
  test("a live wikilink names the page's site URL; its text is the target or the label", () => {
    const { html } = render("See [[guides/setup]] and [[reference/api|the API]].");
    expect(links(html).map((a) => a.attribs.href)).toEqual(["/p/docs/guides/setup", "/p/docs/reference/api"]);
    expect(html).toContain(">guides/setup</a>");
    expect(html).toContain(">the API</a>");
  });

  test("a heading in a wikilink becomes the anchor the target's heading id uses", () => {
    const { html } = render("[[guides/setup#Install on Linux|install]]");
    expect(links(html)[0]!.attribs.href).toBe("/p/docs/guides/setup#install-on-linux");
  });

  test("a target is tried relative to the page's folder when the root has no such page (the ledger's rule)", () => {
    const { html } = render("[[setup]]", "guides/intro.md");
    expect(links(html)[0]!.attribs.href).toBe("/p/docs/guides/setup");
  });

  test("a dead wikilink is visibly broken text, never a link", () => {
    const { html } = render("Read [[nowhere/page|this]].");
    expect(links(html)).toEqual([]);
    expect(broken(html)).toHaveLength(1);
    expect(broken(html)[0]!.attribs.title).toContain("nowhere/page.md");
    expect(html).toContain(">this</span>");
  });

  test("wikilinks that climb out of the workspace are broken, also when percent-encoded", () => {
    for (const md of ["[[../../etc/passwd]]", "[[%2e%2e/%2e%2e/secret]]", "[[guides/../../x]]", "[[..%2F..%2Fx]]"]) {
      const opts = siteLinks("guides/intro.md");
      const { html } = renderMarkdown(md, opts);
      expect(links(html)).toEqual([]);
      expect(broken(html)).toHaveLength(1);
      expect(opts.targets.filter((t) => t.path.includes(".."))).toEqual([]);
    }
  });

  test("wikilinks inside code stay code", () => {
    const { html } = render("`[[guides/setup]]`\n\n```\n[[guides/setup]]\n```");
    expect(links(html)).toEqual([]);
    expect(html).toContain("[[guides/setup]]");
  });
});

describe("relative Markdown links and images", () => {
  test("relative page links are normalized to workspace paths and resolved; anchors and query strings stay", () => {
    const opts = siteLinks("guides/intro.md");
    const { html } = renderMarkdown("[a](setup.md#step-2) [b](../reference/api.md) [c](/welcome.md) [d](./) [e](../files/report.pdf?v=2)", opts);
    expect(links(html).map((a) => a.attribs.href)).toEqual([
      "/p/docs/guides/setup#step-2",
      "/p/docs/reference/api",
      "/p/docs/welcome",
      "/p/docs/guides/",
      "/p/docs/files/report.pdf?v=2",
    ]);
    expect(opts.targets.map((t) => `${t.kind}:${t.path}`)).toEqual(["page:guides/setup.md", "page:reference/api.md", "page:welcome.md", "page:guides/index.md", "file:files/report.pdf"]);
  });

  test("a link without .md names a page when one exists there (links written for sites that drop the extension)", () => {
    const { html } = render("[a](setup) [b](../reference/api#errors) [c](nothing-here)");
    expect(links(html).map((a) => a.attribs.href)).toEqual(["/p/docs/guides/setup", "/p/docs/reference/api#errors"]);
    expect(broken(html)).toHaveLength(1);
  });

  test("images resolve as files; a missing one is broken text carrying its alt", () => {
    const { html } = render("![Shot](img/shot.png \"A shot\") ![Logo](../img/logo.png) ![Gone](img/none.png)");
    const imgs = elements(html).filter((e) => e.name === "img");
    expect(imgs.map((i) => i.attribs.src)).toEqual(["/p/docs/guides/img/shot.png", "/p/docs/img/logo.png"]);
    expect(imgs[0]!.attribs).toMatchObject({ alt: "Shot", title: "A shot" });
    expect(broken(html).length).toBe(1);
    expect(html).toContain(">Gone</span>");
  });

  test("links that climb out of the workspace are broken, however they are spelled", () => {
    for (const dest of ["../../x.md", "%2e%2e/%2e%2e/x.md", "..%2f..%2fx.md", "..\\\\..\\\\x.md", "guides/../../../x.md", "%2E%2E/%2E%2E/img.png"]) {
      const opts = siteLinks("guides/intro.md");
      const { html } = renderMarkdown(`[x](${dest}) ![y](${dest})`, opts);
      expect(links(html)).toEqual([]);
      expect(elements(html).filter((e) => e.name === "img")).toEqual([]);
      expect(broken(html)).toHaveLength(2);
      expect(opts.targets).toEqual([]);
    }
  });

  test("absolute http(s) and mailto links stay as written; same-page anchors too", () => {
    const { html } = render("[a](https://example.com/x?y=1#z) [b](mailto:a@example.com) [c](#usage) <https://example.org>");
    expect(links(html).map((a) => a.attribs.href)).toEqual(["https://example.com/x?y=1#z", "mailto:a@example.com", "#usage", "https://example.org"]);
  });
});

describe("headings, footnotes, task lists", () => {
  test("headings get unique ids and anchor links; the headings list follows the page", () => {
    const r = render("# Intro\n\n## Set up\n\n## Set up\n\n### `code` & *more*");
    expect(r.headings).toEqual([
      { depth: 1, text: "Intro", id: "intro" },
      { depth: 2, text: "Set up", id: "set-up" },
      { depth: 2, text: "Set up", id: "set-up-1" },
      { depth: 3, text: "code & more", id: "code--more" },
    ]);
    const anchors = elements(r.html).filter((e) => e.name === "a" && e.attribs.class === "heading-anchor");
    expect(anchors.map((a) => a.attribs.href)).toEqual(["#intro", "#set-up", "#set-up-1", "#code--more"]);
  });

  test("footnotes link to their notes and back", () => {
    const { html } = render("Text[^1] and more[^note].\n\n[^1]: First.\n[^note]: Second, **bold**.");
    const els = elements(html);
    expect(els.some((e) => e.name === "section" && e.attribs.class === "footnotes")).toBe(true);
    expect(els.filter((e) => e.name === "a" && e.attribs.href === "#Fn-1")).toHaveLength(1);
    expect(els.filter((e) => e.name === "li" && e.attribs.id === "Fn-note")).toHaveLength(1);
    expect(html).toContain("<strong>bold</strong>");
  });

  test("task lists render disabled checkboxes", () => {
    const { html } = render("- [x] done\n- [ ] todo");
    const boxes = elements(html).filter((e) => e.name === "input");
    expect(boxes).toHaveLength(2);
    expect(boxes.every((b) => b.attribs.type === "checkbox" && "disabled" in b.attribs)).toBe(true);
    expect("checked" in boxes[0]!.attribs).toBe(true);
    expect("checked" in boxes[1]!.attribs).toBe(false);
  });
});

describe("extractText", () => {
  test("the page's words without the renderer's chrome: formulas as TeX, no anchors, buttons, toc or notices", () => {
    const { html } = render(":::toc\n:::\n\n## Setup\n\nRun it: $x^2$ and **go**.\n\n```sh\nquire serve\n```\n\n:::nope\nkept\n:::\n\n<p>a</p><p>b</p>");
    const plain = extractText(html);
    expect(plain).toBe("Setup Run it: x^2 and go. quire serve kept a b");
  });
});

describe("footnote ids", () => {
  test("every reference has its own id and back link, also for labels that look like counters", () => {
    const { html } = render("a[^x] b[^x] c[^x-2]\n\n[^x]: One.\n[^x-2]: Two.");
    const ids = elements(html).map((e) => e.attribs.id).filter((id): id is string => id !== undefined);
    expect(new Set(ids).size).toBe(ids.length);
    const backs = elements(html).filter((e) => "data-footnote-backref" in e.attribs).map((e) => e.attribs.href);
    expect(backs).toEqual(["#Fnref-x", "#Fnref-x.2", "#Fnref-x-2"]);
  });
});

describe("re-entrance", () => {
  test("a resolveLink that renders another page leaves the outer render intact", () => {
    const inner: string[] = [];
    const r = renderMarkdown(":::tabs\n::tab[A]\n[[guides/setup]]\n::\n:::\n\n## After", {
      pagePath: "index.md",
      resolveLink(t) {
        inner.push(renderMarkdown("## Inner\n\n:::callout[tip]\nx\n:::", { pagePath: t.path, resolveLink: () => null }).headings[0]!.id);
        return "/p/docs/" + t.path;
      },
    });
    expect(inner).toEqual(["inner"]);
    expect(r.headings.map((h) => h.id)).toEqual(["after"]);
    expect(r.notices).toEqual([]);
    expect(r.html).toContain('href="/p/docs/guides/setup.md"');
  });
});
