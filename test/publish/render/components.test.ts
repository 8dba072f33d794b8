import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { elements, text } from "./html.ts";
import { renderMarkdown } from "../../../src/publish/render/index.ts";
import { render, siteLinks } from "./support.ts";

const has = (html: string, name: string, cls?: string) =>
  elements(html).some((e) => e.name === name && (cls === undefined || (e.attribs.class ?? "").split(" ").includes(cls)));
const noticeCount = (html: string) => elements(html).filter((e) => (e.attribs.class ?? "") === "render-notice").length;

describe("components", () => {
  test("callouts of each kind, with a default or given title", () => {
    for (const kind of ["info", "warning", "danger", "tip", "note"]) {
      const r = render(`:::callout[${kind}]\nSome **text**.\n:::`);
      expect(has(r.html, "aside", `callout-${kind}`)).toBe(true);
      expect(r.html).toContain("<strong>text</strong>");
      expect(r.notices).toEqual([]);
    }
    expect(render(':::callout[tip]{title="Pro tip"}\nx\n:::').html).toContain(">Pro tip</p>");
  });

  test("an unknown callout kind is shown as a note with a notice", () => {
    const r = render("Intro\n\n:::callout[shout]\nLoud.\n:::");
    expect(has(r.html, "aside", "callout-note")).toBe(true);
    expect(r.notices).toEqual([{ component: "callout", message: expect.stringContaining('"shout"'), line: 3 }]);
    expect(noticeCount(r.html)).toBe(1);
  });

  test("tabs are radio inputs with labels and panels (no script needed); groups get page-unique names", () => {
    const md = ":::tabs\n::tab[One]\nFirst\n::\n::tab[Two]\nSecond\n::\n:::\n\n:::tabs\n::tab[A]\nx\n::\n:::";
    const { html, notices } = render(md);
    const inputs = elements(html).filter((e) => e.name === "input");
    expect(inputs.map((i) => [i.attribs.type, i.attribs.name, i.attribs.id])).toEqual([
      ["radio", "Tabs-1", "Tabs-1-1"],
      ["radio", "Tabs-1", "Tabs-1-2"],
      ["radio", "Tabs-2", "Tabs-2-1"],
    ]);
    expect("checked" in inputs[0]!).toBe(false);
    expect("checked" in inputs[0]!.attribs).toBe(true);
    expect(elements(html).filter((e) => e.name === "label").map((l) => l.attribs.for)).toEqual(["Tabs-1-1", "Tabs-1-2", "Tabs-2-1"]);
    expect(text(html)).toContain("Second");
    expect(notices).toEqual([]);
  });

  test("accordion is <details>; a group holds ::item children", () => {
    const single = render(":::accordion[More]\nHidden text\n:::").html;
    expect(has(single, "details", "accordion")).toBe(true);
    expect(single).toContain("<summary>More</summary>");
    const group = render(":::accordion\n::item[One]{open}\nA\n::\n::item[Two]\nB\n::\n:::").html;
    expect(elements(group).filter((e) => e.name === "details")).toHaveLength(2);
    expect(elements(group).find((e) => e.name === "details")!.attribs).toHaveProperty("open");
  });

  test("cards link through resolveLink (a page name, a relative path or a URL); a dead link is broken text", () => {
    const md = ":::cards\n::card[Setup]{link=guides/setup}\nA\n::\n::card[API]{link=../reference/api.md}\nB\n::\n::card[Site]{link=https://example.com}\nC\n::\n::card[Gone]{link=missing/page}\nD\n::\n:::";
    const { html } = render(md);
    expect(elements(html).filter((e) => e.attribs.class === "card-link").map((a) => a.attribs.href)).toEqual([
      "/p/docs/guides/setup",
      "/p/docs/reference/api",
      "https://example.com",
    ]);
    expect(elements(html).filter((e) => e.attribs.class === "broken-link")).toHaveLength(1);
    expect(elements(html).filter((e) => e.attribs.class === "card")).toHaveLength(4);
  });

  test("steps are an ordered list of titled steps", () => {
    const { html } = render(":::steps\n::step[Install]\nRun it.\n::\n::step[Use]\nOpen it.\n::\n:::");
    expect(has(html, "ol", "steps")).toBe(true);
    expect(elements(html).filter((e) => e.attribs.class === "step")).toHaveLength(2);
    expect(html).toContain('<p class="step-title">Install</p>');
  });

  test("api shows a method badge and the path; a bad argument is a notice with the content kept", () => {
    const { html } = render(":::api[post /api/v1/things/{id}]\nCreates a thing.\n:::");
    expect(html).toContain('<span class="api-method api-method-post">POST</span> <code class="api-path">/api/v1/things/{id}</code>');
    const bad = render(":::api[FETCH]\nStill here.\n:::");
    expect(bad.notices[0]!.component).toBe("api");
    expect(text(bad.html)).toContain("Still here.");
  });

  test("filetree wraps a list; without a list it says so", () => {
    expect(has(render(":::filetree\n- src/\n  - index.ts\n:::").html, "div", "filetree")).toBe(true);
    const bad = render(":::filetree\njust text\n:::");
    expect(bad.notices[0]!.component).toBe("filetree");
    expect(text(bad.html)).toContain("just text");
  });

  test("mermaid emits its escaped source for the browser and flags the page; a ```mermaid fence too", () => {
    const r = render(":::mermaid\ngraph TD\n  A-->B<script>\n:::");
    expect(r.hasMermaid).toBe(true);
    expect(r.html).toContain('<pre class="mermaid">graph TD\n  A--&gt;B&lt;script&gt;</pre>');
    expect(render("```mermaid\ngraph LR\n```").hasMermaid).toBe(true);
    expect(render("plain").hasMermaid).toBe(false);
  });

  test("katex renders on the server: inline $…$, block $$…$$ and :::katex; prices stay text", () => {
    const r = render("Euler: $e^{i\\pi}+1=0$.\n\n$$\n\\frac{a}{b}\n$$\n\n:::katex\nx^2\n:::\n\nIt costs $5 and $10.");
    expect(r.hasMath).toBe(true);
    expect(elements(r.html).filter((e) => e.attribs.class === "katex")).toHaveLength(3);
    expect(elements(r.html).filter((e) => e.attribs.class === "katex-display")).toHaveLength(2);
    expect(text(r.html)).toContain("It costs $5 and $10.");
    expect(render("no math, $ 5").hasMath).toBe(false);
  });

  test("a katex error shows the source in KaTeX's error style, the page renders on", () => {
    const r = render("$\\frac{$ and after");
    expect(has(r.html, "span", "katex-error")).toBe(true);
    expect(text(r.html)).toContain("and after");
  });

  test("badges inline and as a block; an unknown variant is a notice", () => {
    const { html } = render("Status :badge[Beta]{variant=warning} here.");
    expect(html).toContain('<span class="badge badge-warning">Beta</span>');
    const bad = render("x :badge[Hot]{variant=purple}");
    expect(bad.notices[0]!.component).toBe("badge");
    expect(bad.html).toContain('<span class="badge badge-default">Hot</span>');
    expect(render("::badge[Block]").html).toContain("badge-default");
  });

  test("toc lists the page's headings, also those after it", () => {
    const { html } = render(":::toc\n:::\n\n## One\n\n### One point one\n\n#### Too deep\n\n## Two");
    const nav = elements(html).filter((e) => e.name === "a" && e.attribs.class === undefined).map((a) => a.attribs.href);
    expect(nav).toEqual(["#one", "#one-point-one", "#two"]);
    expect(has(html, "nav", "toc")).toBe(true);
  });

  test("embed frames allow-listed providers from privacy-friendly hosts; anything else is a link", () => {
    const yt = render("::embed[https://www.youtube.com/watch?v=dQw4w9WgXcQ]").html;
    const frame = elements(yt).find((e) => e.name === "iframe")!;
    expect(frame.attribs.src).toBe("https://www.youtube-nocookie.com/embed/dQw4w9WgXcQ");
    expect(frame.attribs.sandbox).toContain("allow-scripts");
    expect(frame.attribs.referrerpolicy).toBe("strict-origin-when-cross-origin");
    expect(elements(render("::embed[https://vimeo.com/76979871]").html).find((e) => e.name === "iframe")!.attribs.src).toBe("https://player.vimeo.com/video/76979871?dnt=1");
    const other = render("::embed[https://evil.example/player]").html;
    expect(has(other, "iframe")).toBe(false);
    expect(elements(other).find((e) => e.name === "a")!.attribs.href).toBe("https://evil.example/player");
    const sneaky = render("::embed[https://www.youtube.com.evil.example/watch?v=abc]").html;
    expect(has(sneaky, "iframe")).toBe(false);
    // A static export asks for links: it fetches nothing from another origin.
    const exported = renderMarkdown("::embed[https://www.youtube.com/watch?v=dQw4w9WgXcQ]", { ...siteLinks("index.md"), embeds: "link" }).html;
    expect(has(exported, "iframe")).toBe(false);
    expect(elements(exported).find((e) => e.name === "a")!.attribs.href).toBe("https://www.youtube.com/watch?v=dQw4w9WgXcQ");
  });
});

describe("components written wrong", () => {
  test("an unknown component is a notice and its content is kept", () => {
    const r = render("# T\n\n:::sparkles[x]\nKeep **me**.\n:::");
    expect(r.notices).toEqual([{ component: "sparkles", message: expect.stringContaining("unknown component"), line: 3 }]);
    expect(r.html).toContain("<strong>me</strong>");
  });

  test("an unclosed component is a notice; the rest of the page renders as Markdown", () => {
    const r = render("Intro\n\n:::callout[info]\nNever closed.\n\n## Later heading");
    expect(r.notices).toEqual([{ component: "callout", message: expect.stringContaining("never closed"), line: 3 }]);
    expect(text(r.html)).toContain("Never closed.");
    expect(r.headings.map((h) => h.text)).toEqual(["Later heading"]);
  });

  test("a child outside its parent, stray content in tabs, an empty container, a bad opener", () => {
    expect(render("::tab[Lost]\nx\n::").notices[0]!.message).toContain(":::tabs");
    const stray = render(":::tabs\nloose text\n::tab[A]\nx\n::\n:::");
    expect(stray.notices[0]!.message).toContain("outside");
    expect(text(stray.html)).toContain("loose text");
    expect(render(":::tabs\nno tabs\n:::").notices[0]!.component).toBe("tabs");
    const bad = render(":::[oops]\nx\n:::");
    expect(bad.notices[0]!.message).toContain("not a component opener");
    expect(text(bad.html)).toContain("x");
    expect(render("::: callout[tip]\nSpaced.\n:::").html).toContain("callout-tip");
    const trailing = render(":::callout[info] and more words\nBody.\n:::");
    expect(trailing.notices[0]).toMatchObject({ component: "callout", line: 1 });
    expect(text(trailing.html)).toContain("Body.");
    expect(render("::: is how a component starts, in prose").notices).toEqual([]);
  });

  test("fenced code inside a component may hold ::: lines", () => {
    const r = render(":::callout[info]\n```\n:::\n```\nafter\n:::");
    expect(r.notices).toEqual([]);
    expect(text(r.html)).toContain("after");
  });

  test("nested components render inside each other", () => {
    const r = render(":::tabs\n::tab[One]\n:::callout[tip]\nInside.\n:::\n::\n:::");
    expect(r.notices).toEqual([]);
    expect(has(r.html, "aside", "callout-tip")).toBe(true);
  });
});

describe("code blocks", () => {
  test("highlighted with classes (no inline style), numbered lines, a title, highlighted lines and a copy button", () => {
    const r = render('```ts title="app.ts" {1,3-4}\nconst a = 1;\nlet b = "x";\n// c\nfunction d() {}\n```');
    expect(r.hasCode).toBe(true);
    const els = elements(r.html);
    expect(els.some((e) => e.name === "span" && (e.attribs.class ?? "").startsWith("token"))).toBe(true);
    expect(els.filter((e) => "style" in e.attribs)).toEqual([]);
    expect(els.filter((e) => e.attribs.class?.startsWith("line")).map((e) => e.attribs.class)).toEqual(["line highlighted", "line", "line highlighted", "line highlighted"]);
    expect(r.html).toContain('<figcaption class="code-title">app.ts</figcaption>');
    expect(els.find((e) => e.name === "button")!.attribs).toMatchObject({ class: "copy-code", type: "button", "data-copy": "" });
    expect(els.find((e) => e.name === "pre")!.attribs.class).toBe("language-ts line-numbers");
  });

  test("a token spanning lines is closed and reopened on each line", () => {
    const { html } = render("```js\n/* one\ntwo */\n```");
    const lines = html.split("\n").filter((l) => l.includes('class="line'));
    for (const l of lines) expect((l.match(/<span/g) ?? []).length).toBe((l.match(/<\/span>/g) ?? []).length);
    expect(lines).toHaveLength(2);
  });

  test("many languages load on demand; an unknown language is escaped plain text, no error", () => {
    for (const lang of ["rust", "python", "go", "bash", "yaml", "sql", "cpp", "php", "haskell", "elixir"]) {
      expect(render("```" + lang + '\nx = "s" # 1\n```').html, lang).toContain('class="token');
    }
    const r = render("```nosuchlang\n<b>x</b>\n```");
    expect(r.html).toContain("&lt;b&gt;x&lt;/b&gt;");
    expect(r.notices).toEqual([]);
  });
});

describe("the starter workspace's components page", () => {
  test("renders every component without a notice", () => {
    const file = readFileSync(join(import.meta.dir, "../../../assets/starter/components.md"), "utf8");
    const body = file.replace(/^---\n[\s\S]*?\n---\n/, "");
    const r = render(body, "components.md");
    expect(r.notices).toEqual([]);
    const classes = new Set(elements(r.html).flatMap((e) => (e.attribs.class ?? "").split(" ")));
    for (const c of ["callout-info", "callout-warning", "callout-danger", "callout-tip", "callout-note", "tabs", "accordion", "cards", "card", "steps", "step", "api", "filetree", "mermaid", "katex", "badge", "toc", "embed", "code-block"]) {
      expect(classes.has(c), c).toBe(true);
    }
    expect(r.hasMermaid && r.hasMath && r.hasCode).toBe(true);
  });
});

describe("ids the renderer makes", () => {
  test("never clash with heading ids", () => {
    const { html } = render("## Tabs 1 1\n\n## Fn 1\n\n:::tabs\n::tab[A]\nx[^1]\n::\n:::\n\n[^1]: Note.");
    const ids = elements(html).map((e) => e.attribs.id).filter((id): id is string => id !== undefined);
    expect(new Set(ids).size).toBe(ids.length);
  });
});
