import { describe, expect, test } from "bun:test";
import { renderMarkdown } from "../../../src/publish/render/index.ts";
import { elements, text } from "./html.ts";
import { render } from "./support.ts";

/**
 * Hostile pages: nothing an author writes may reach the published page as something a browser
 * would execute. Each output is read with a real HTML parser and checked for script elements,
 * event handlers, executable URLs, styles and frames the renderer did not make itself.
 */
const EXECUTABLE_URL = /^\s*(javascript|vbscript|data|file):/i;

function assertInert(html: string, opts: { math?: boolean } = {}): void {
  for (const e of elements(html)) {
    expect(["script", "style", "object", "embed", "form", "base", "meta", "link", "svg", "math", "textarea", "select", "button"].filter((n) => n === e.name && !(n === "button" && e.attribs.class === "copy-code") && !(n === "math" && e.attribs.xmlns === "http://www.w3.org/1998/Math/MathML"))).toEqual([]);
    for (const [name, value] of Object.entries(e.attribs)) {
      expect(name.startsWith("on"), `${e.name} ${name}`).toBe(false);
      if (["href", "src", "action", "formaction", "xlink:href", "srcdoc", "background", "poster"].includes(name)) {
        // Raster data: images are the only data: URLs allowed, on <img>.
        if (e.name === "img" && /^data:image\/(png|jpeg|gif|webp|avif);/i.test(value)) continue;
        expect(EXECUTABLE_URL.test(value), `${e.name} ${name}=${value}`).toBe(false);
      }
      // Inline styles only come from KaTeX (on its own spans); a page without math has none.
      if (name === "style") expect(opts.math === true && e.name === "span" && (isKatexElement(e.attribs.class ?? "") || e.attribs.class === undefined), `style on ${e.name}`).toBe(true);
    }
    if (e.name === "iframe") expect(e.attribs.src).toMatch(/^https:\/\/(www\.youtube-nocookie\.com|player\.vimeo\.com|www\.loom\.com|codepen\.io|www\.figma\.com|codesandbox\.io)\//);
    if (e.name === "input") expect(["checkbox", "radio"]).toContain(e.attribs.type ?? "(none)");
  }
}

function isKatexElement(cls: string): boolean {
  return /(^|\s)(katex|mord|mspace|vlist|pstrut|katex-strut|frac-line|mop|katex-error|strut)/.test(cls);
}

describe("raw HTML", () => {
  const attacks = [
    "<script>alert(1)</script>",
    "<SCRIPT SRC=//evil.example/x.js></SCRIPT>",
    "<img src=x onerror=alert(1)>",
    '<a href="javascript:alert(1)">x</a>',
    '<a href="JaVaScRiPt:alert(1)">x</a>',
    '<a href="&#106;avascript:alert(1)">x</a>',
    '<a href="java&#x09;script:alert(1)">x</a>',
    '<a href="  javascript:alert(1)">x</a>',
    "<iframe src=https://evil.example></iframe>",
    "<style>body{display:none}</style>",
    '<div style="background:url(javascript:alert(1))">x</div>',
    "<svg onload=alert(1)><circle/></svg>",
    "<math><mtext><script>alert(1)</script></mtext></math>",
    '<form action="https://evil.example"><input name=a><button>go</button></form>',
    '<object data="x.swf"></object><embed src="x.swf">',
    '<base href="https://evil.example/">',
    '<meta http-equiv="refresh" content="0;url=https://evil.example">',
    '<details open ontoggle=alert(1)>x</details>',
    '<img src="data:text/html,<script>alert(1)</script>">',
    '<a href="data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==">x</a>',
    "<textarea><img src=x onerror=alert(1)></textarea>",
    "<noscript><p title=\"</noscript><img src=x onerror=alert(1)>\"></noscript>",
    "<div>\n\n<img src=x onerror=alert(1)>\n\n</div>",
    "<!--><img src=x onerror=alert(1)>-->",
    '<input type="text" autofocus onfocus=alert(1)>',
    '<a href="vbscript:msgbox(1)">x</a>',
  ];
  for (const attack of attacks) {
    test(`inert: ${attack.slice(0, 60)}`, () => assertInert(render(`Before\n\n${attack}\n\nAfter`).html));
  }

  test("an unclosed <style> or <textarea> cannot hide the rest of the page", () => {
    // CommonMark reads everything after an unclosed <style> as one raw HTML block: it is shown as text.
    for (const tag of ["style", "textarea", "script", "title"]) {
      const r = render(`Intro\n\n<${tag}>\n\n:::callout[info]\nStill shown.\n:::`);
      expect(text(r.html)).toContain("Still shown.");
      assertInert(r.html);
    }
    // Inline, the tag is text and what follows renders as usual.
    const inline = render("a <textarea> b\n\n:::callout[info]\nStill a callout.\n:::");
    expect(elements(inline.html).some((e) => e.name === "aside")).toBe(true);
  });

  test("a complete script, style or iframe element goes with its content", () => {
    const { html } = render('<script>window.__pwned = 1</script>\n\n<style>body{display:none}</style>\n\n<iframe src="https://evil.example">fallback __pwned</iframe>\n\nkept');
    expect(html).not.toContain("__pwned");
    expect(html).not.toContain("display:none");
    expect(text(html)).toContain("kept");
  });

  test("safe raw HTML stays", () => {
    const { html } = render('<details><summary>More</summary>\n\nHidden <kbd>Ctrl</kbd>\n\n</details>\n\n<a href="https://example.com" title="t">ok</a>');
    expect(html).toContain("<details><summary>More</summary>");
    expect(html).toContain("<kbd>Ctrl</kbd>");
    expect(elements(html).find((e) => e.name === "a" && e.attribs.href === "https://example.com")).toBeDefined();
  });
});

describe("Markdown links and images", () => {
  const urls = [
    "javascript:alert(1)",
    "JAVASCRIPT:alert(1)",
    "&#106;avascript:alert(1)",
    "&#x6A;avascript:alert(1)",
    "java%0Ascript:alert(1)",
    "<javascript:alert(1)>",
    "vbscript:x",
    "data:text/html,<script>alert(1)</script>",
    "file:///etc/passwd",
  ];
  for (const url of urls) {
    test(`link and image to ${url} are not links`, () => {
      const { html } = render(`[click](${url}) ![img](${url}) <${url}>\n\n[ref]\n\n[ref]: ${url}`);
      assertInert(html);
    });
  }

  test("java\\tscript with an escaped tab and entity-encoded colons is refused", () => {
    assertInert(render("[x](java&#9;script&#58;alert(1))").html);
    assertInert(render("[x](javascript&colon;alert(1))").html);
  });

  test("alt and title text cannot break out of their attributes", () => {
    const { html } = render('![a" onerror="alert(1)](img/shot.png "t\\" onload=\\"alert(1)") [l](https://x.example "a\\" onmouseover=\\"alert(1)")');
    assertInert(html);
    const img = elements(html).find((e) => e.name === "img")!;
    expect(img.attribs.alt).toBe('a" onerror="alert(1)');
  });

  test("a wikilink label or target cannot inject markup", () => {
    const { html } = render('[[guides/setup|<img src=x onerror=alert(1)>]] [["><script>alert(1)</script>]] [[javascript:alert(1)]]');
    assertInert(html);
    expect(text(html)).toContain("<img src=x onerror=alert(1)>");
  });
});

describe("components, code and math", () => {
  test("component arguments and attributes are text, never markup", () => {
    const md = [
      ':::callout[info]{title="<img src=x onerror=alert(1)>"}\nx\n:::',
      ":::tabs\n::tab[<script>alert(1)</script>]\nx\n::\n:::",
      ":::cards\n::card[<b onmouseover=alert(1)>x</b>]{link=javascript:alert(1)}\ny\n::\n:::",
      ':::api[GET /x"><script>alert(1)</script>]\nz\n:::',
      ":::accordion[<svg onload=alert(1)>]\nq\n:::",
      ":::steps\n::step[\"><img src=x onerror=alert(1)>]\ns\n::\n:::",
      ':badge[<img src=x onerror=alert(1)>]{variant="x\\" onclick=\\"alert(1)"}',
      ":::callout[\"><script>alert(1)</script>]\nw\n:::",
      ":::toc{depth=\"3\\\" onclick=\\\"alert(1)\"}\n:::\n\n## <img src=x onerror=alert(1)>",
      ':::<script>alert(1)</script>\n:::',
      ":::mermaid\n</pre><script>alert(1)</script>\n:::",
    ].join("\n\n");
    const r = render(md);
    assertInert(r.html);
  });

  test("embeds frame only allow-listed players; any other URL is a plain link or a notice", () => {
    const md = [
      "::embed[javascript:alert(1)]",
      "::embed[https://evil.example/embed]",
      "::embed[https://www.youtube.com/watch?v=\"><script>alert(1)</script>]",
      "::embed[https://youtube.com.evil.example/watch?v=abc]",
      "::embed[https://evil.example/?u=https://www.youtube.com/watch?v=abc]",
      "::embed[data:text/html,<script>alert(1)</script>]",
      "::embed[https://user:pass@www.youtube.com/watch?v=abcdefghijk]",
    ].join("\n\n");
    const { html } = render(md);
    assertInert(html);
    expect(elements(html).filter((e) => e.name === "iframe")).toEqual([]);
  });

  test("code block info strings are hostile input", () => {
    const md = [
      '```"><script>alert(1)</script>\nx\n```',
      "```js title=\"<img src=x onerror=alert(1)>\" {1-99999999}\ny\n```",
      "```ts onclick=alert(1) title='\"><svg onload=alert(1)>'\nz\n```",
      "```<img/src/onerror=alert(1)>\nw\n```",
      "```js {1,2,3-2,a-b,-5}\nq\n```",
    ].join("\n\n");
    const r = render(md);
    assertInert(r.html);
    expect(r.notices).toEqual([]);
  });

  test("code content is escaped text", () => {
    const { html } = render("```html\n<script>alert(1)</script>\n```\n\n`<img src=x onerror=alert(1)>`");
    assertInert(html);
    expect(text(html)).toContain("<script>alert(1)</script>");
  });

  test("KaTeX input cannot make links, scripts or attributes", () => {
    const md = [
      "$\\href{javascript:alert(1)}{click}$",
      "$\\url{javascript:alert(1)}$",
      "$$\\htmlData{onclick=alert(1)}{x}$$",
      "$\\htmlClass{x\" onclick=\"alert(1)}{y}$",
      "$\\includegraphics{javascript:alert(1)}$",
      ":::katex\n\\text{<script>alert(1)</script>}\n:::",
      "$\\def\\a{\\a\\a}\\a$",
    ].join("\n\n");
    const r = render(md);
    assertInert(r.html, { math: true });
    expect(elements(r.html).filter((e) => e.name === "a")).toEqual([]);
  });
});

describe("placeholders", () => {
  test("an author cannot forge the renderer's own markup slots", () => {
    const { html } = render("\uE0000\uE001 [x](\uE0000\uE001) ```\uE0000\uE001\n```\n\n:::callout[info]\nx\n:::");
    assertInert(html);
    expect(html).not.toContain("\uE000");
  });
});

describe("the caller's URLs", () => {
  test("a resolveLink answering an executable URL still yields no link (cards included)", () => {
    const { html } = renderMarkdown("[a](x.md) [[y]] ![i](i.png)\n\n:::cards\n::card[C]{link=z}\nc\n::\n:::", {
      pagePath: "index.md",
      resolveLink: () => "javascript:alert(1)",
    });
    assertInert(html);
    expect(elements(html).filter((e) => e.attribs.class === "broken-link")).toHaveLength(4);
  });
});
