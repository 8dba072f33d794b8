/**
 * Components as blocks: a callout opens as a block whose body is edited richly, and saving writes
 * back only what changed — its opening line when the type changes, one body line when one body
 * paragraph does. Anything the editor cannot show stays source, and odd attributes stay text.
 */
import { describe, expect, test } from "bun:test";
import { MarkdownSession } from "../../src/web/markdown/session.ts";
import type { PMNode } from "../../src/web/markdown/pm.ts";
import { componentNotice } from "../../src/web/markdown/component.ts";

function open(source: string) {
  const s = new MarkdownSession(source);
  expect(s.rebase(s.initial)).toBe(true);
  return s;
}
const clone = <T>(v: T): T => JSON.parse(JSON.stringify(v));
const edit = (source: string, change: (doc: PMNode) => void) => {
  const s = open(source);
  const doc = clone(s.initial);
  change(doc);
  return s.save(doc);
};

const PAGE = 'Intro.\n\n:::callout[warning]{title="Careful"}\nA **bold** start.\n\n```js\nconst x = ":::";\n```\n\nLast  line, spaced *oddly*.\n:::\n\nAfter.\n';

describe("a callout", () => {
  test("opens as a block with its type, attributes and a rich body", () => {
    const s = open(PAGE);
    const callout = s.initial.content![1]!;
    expect(callout.type).toBe("callout");
    expect(callout.attrs).toEqual({ type: "warning", extra: '{title="Careful"}', colons: ":::" });
    expect(callout.content!.map((n) => n.type)).toEqual(["paragraph", "codeBlock", "paragraph"]);
    expect(callout.content![0]!.content![1]).toEqual({ type: "text", text: "bold", marks: [{ type: "bold" }] });
    expect(s.save(clone(s.initial))).toBe(PAGE);
  });

  test("a new type rewrites only the opening line", () => {
    const out = edit(PAGE, (doc) => (doc.content![1]!.attrs!.type = "tip"));
    expect(out).toBe(PAGE.replace(":::callout[warning]", ":::callout[tip]"));
  });

  test("an edited body paragraph rewrites only its line; the other body blocks keep their bytes", () => {
    const out = edit(PAGE, (doc) => (doc.content![1]!.content![0]!.content = [{ type: "text", text: "A calm start." }]));
    expect(out).toBe(PAGE.replace("A **bold** start.", "A calm start."));
    const added = edit(PAGE, (doc) => doc.content![1]!.content!.push({ type: "paragraph", content: [{ type: "text", text: "More." }] }));
    expect(added).toBe(PAGE.replace("spaced *oddly*.\n:::", "spaced *oddly*.\n\nMore.\n:::"));
  });

  test("a callout inserted in the editor is written as a directive and reads back the same", () => {
    const s = open("Text.\n");
    const doc = clone(s.initial);
    doc.content!.push({ type: "callout", attrs: { type: "info", extra: "", colons: ":::" }, content: [{ type: "paragraph", content: [{ type: "text", text: "New *note*" }] }] });
    const out = s.save(doc);
    expect(out).toBe("Text.\n\n:::callout[info]\nNew \\*note\\*\n:::\n");
    expect(open(out).initial.content![1]!.type).toBe("callout");
  });

  test("hostile attributes and labels stay text, written back as they were", () => {
    const md = ':::callout[<img src=x onerror=alert(1)>]{title="<script>alert(1)</script>" href="javascript:alert(1)"}\nBody.\n:::\n';
    const s = open(md);
    const node = s.initial.content![0]!;
    expect(node.type).toBe("callout");
    expect(node.attrs!.extra).toBe('{title="<script>alert(1)</script>" href="javascript:alert(1)"}');
    expect(s.save(clone(s.initial))).toBe(md);
    const out = edit(md, (doc) => (doc.content![0]!.content![0]!.content = [{ type: "text", text: "Changed." }]));
    expect(out).toBe(md.replace("Body.", "Changed."));
  });

  test("unclosed, mismatched or CRLF callouts, and unknown components, stay source", () => {
    for (const md of [":::callout[info]\nnever closed\n", ":::callout[info]\nBody\n::::\n", ":::callout[info]\r\nBody\r\n:::\r\n", ":::unknown-thing\nx\n:::\n"]) {
      const s = open(md);
      expect(s.initial.content!.map((n) => n.type)).toEqual(["rawBlock"]);
      expect(s.save(clone(s.initial))).toBe(md);
    }
  });

  test("nested twelve deep: the outer ones are blocks, the deepest stay source, and nothing changes", () => {
    let md = "Core.";
    for (let d = 0; d < 12; d++) {
      const colons = ":".repeat(3 + d);
      md = `${colons}callout[info]\n${md}\n${colons}`;
    }
    md += "\n";
    const s = open(md);
    let depth = 0;
    let node: PMNode | undefined = s.initial.content![0];
    while (node?.type === "callout") {
      depth++;
      node = node.content![0];
    }
    expect(depth).toBe(8);
    expect(node!.type).toBe("rawBlock");
    expect(s.save(clone(s.initial))).toBe(md);
  });
});

const TABS = "Intro.\n\n:::tabs\n::tab[macOS]\n`brew install quire`\n::\n\n::tab[Linux]{default}\nRun  *this*:\n\n```sh\ncurl x | sh\n```\n::\n:::\n\nAfter.\n";

describe("tabs, steps and cards", () => {
  const tab = (label: string, text: string): PMNode => ({ type: "tab", attrs: { type: label, extra: "", colons: "::" }, content: [{ type: "paragraph", content: [{ type: "text", text }] }] });

  test("tabs open as tab blocks with their labels and rich bodies, and save back byte for byte", () => {
    const s = open(TABS);
    const tabs = s.initial.content![1]!;
    expect(tabs.type).toBe("tabs");
    expect(tabs.content!.map((t) => [t.type, t.attrs!.type, t.attrs!.extra])).toEqual([
      ["tab", "macOS", ""],
      ["tab", "Linux", "{default}"],
    ]);
    expect(tabs.content![1]!.content!.map((n) => n.type)).toEqual(["paragraph", "codeBlock"]);
    expect(s.save(clone(s.initial))).toBe(TABS);
  });

  test("renaming a tab rewrites its opening line; editing its body, only that line", () => {
    expect(edit(TABS, (doc) => (doc.content![1]!.content![0]!.attrs!.type = "Mac"))).toBe(TABS.replace("::tab[macOS]", "::tab[Mac]"));
    expect(edit(TABS, (doc) => (doc.content![1]!.content![1]!.content![0]!.content = [{ type: "text", text: "Run this:" }]))).toBe(TABS.replace("Run  *this*:", "Run this:"));
  });

  test("adding and removing tabs keeps the other tabs' bytes and the blank lines between them", () => {
    expect(edit(TABS, (doc) => doc.content![1]!.content!.push(tab("Windows", "Use the installer.")))).toBe(
      TABS.replace("```\n::\n:::", "```\n::\n\n::tab[Windows]\nUse the installer.\n::\n:::"),
    );
    expect(edit(TABS, (doc) => doc.content![1]!.content!.splice(0, 1))).toBe(TABS.replace("::tab[macOS]\n`brew install quire`\n::\n\n", ""));
  });

  test("steps, cards and accordions are blocks too; a stray line among children keeps the container as source", () => {
    const md = ":::steps\n::step[Write]\nA page.\n::\n::step[Publish]\nThe site.\n::\n:::\n\n:::cards\n::card[Start]{link=guides/start}\nFirst.\n::\n:::\n\n:::accordion[What is stored?]\nFiles.\n:::\n\n:::tabs\nstray text\n::tab[A]\nx\n::\n:::\n";
    const s = open(md);
    expect(s.initial.content!.map((n) => n.type)).toEqual(["steps", "cards", "accordion", "rawBlock"]);
    expect(s.initial.content![1]!.content![0]!.attrs!.extra).toBe("{link=guides/start}");
    expect(s.save(clone(s.initial))).toBe(md);
    expect(edit(md, (doc) => (doc.content![2]!.attrs!.type = "Where are files?"))).toBe(md.replace("[What is stored?]", "[Where are files?]"));
  });

  test("new tabs and steps are written as directives that read back the same", () => {
    const s = open("Text.\n");
    const doc = clone(s.initial);
    doc.content!.push({ type: "tabs", attrs: { type: null, extra: "", colons: ":::" }, content: [tab("One", "First."), tab("Two", "Second.")] });
    const out = s.save(doc);
    expect(out).toBe("Text.\n\n:::tabs\n::tab[One]\nFirst.\n::\n::tab[Two]\nSecond.\n::\n:::\n");
    expect(open(out).initial.content![1]!.content!.map((t) => t.attrs!.type)).toEqual(["One", "Two"]);
  });
});

describe("Quire's inline syntax in an edited paragraph", () => {
  test("badges and math are written back verbatim, never escaped; an embed line is a block of its own", () => {
    const md = "This is :badge[New]{variant=info}, math $e^{i\\pi} + 1 = 0$ and $$x_1$$.\n\n::embed[https://example.com/v]{title=\"A video\"}\n";
    const s = open(md);
    expect(s.initial.content!.map((n) => n.type)).toEqual(["paragraph", "embed"]);
    const out = edit(md, (doc) => doc.content![0]!.content!.push({ type: "text", text: " More_text [here]." }));
    expect(out).toBe("This is :badge[New]{variant=info}, math $e^{i\\pi} + 1 = 0$ and $$x_1$$. More_text \\[here\\].\n\n::embed[https://example.com/v]{title=\"A video\"}\n");
  });

  test("a paragraph whose inline syntax would not come back byte for byte stays source", () => {
    const s = open("Math with an escape $a\\*b$ here.\n");
    expect(s.initial.content![0]!.type).toBe("rawBlock");
  });
});

describe("the notice beside a component kept as source", () => {
  test("names an unknown component, an unclosed one and an unreadable opening line, in the renderer's words", () => {
    expect(componentNotice(":::mystery\nx\n:::")).toStartWith('unknown component "mystery" (known: callout, tabs');
    expect(componentNotice(":::callout[info]\nnever closed")).toBe(':::callout is never closed (add a line ":::" after its content); the content below is shown as ordinary text');
    expect(componentNotice(":::callout[info] trailing words\nx\n:::")).toStartWith('could not read the opening line ":::callout[info] trailing words"');
    expect(componentNotice(":::filetree\n- a\n:::")).toBeNull();
  });
});

describe("the api badge", () => {
  test("opens as a block whose label is method and path; a new method rewrites only the opening line", () => {
    const md = ":::api[GET /api/v1/content/{workspace}/{path}]\nReturns the page with its content and hashes.\n:::\n";
    const s = open(md);
    expect(s.initial.content![0]).toMatchObject({ type: "api", attrs: { type: "GET /api/v1/content/{workspace}/{path}" } });
    expect(s.save(clone(s.initial))).toBe(md);
    expect(edit(md, (doc) => (doc.content![0]!.attrs!.type = "POST /api/v1/content/{workspace}/{path}"))).toBe(md.replace(":::api[GET", ":::api[POST"));
  });
});

describe("the embed line", () => {
  test("opens as an embed block holding its address and attributes, and is rewritten alone when changed", () => {
    const md = 'Intro.\n\n::embed[https://www.youtube.com/watch?v=dQw4w9WgXcQ]{title="A video"}\n\nAfter.\n';
    const s = open(md);
    expect(s.initial.content![1]).toEqual({ type: "embed", attrs: { type: "https://www.youtube.com/watch?v=dQw4w9WgXcQ", extra: '{title="A video"}', colons: "::" } });
    expect(s.save(clone(s.initial))).toBe(md);
    expect(edit(md, (doc) => (doc.content![1]!.attrs!.type = "https://vimeo.com/123"))).toBe(md.replace("https://www.youtube.com/watch?v=dQw4w9WgXcQ", "https://vimeo.com/123"));
  });

  test("an embed line with more on it, or trailing spaces, stays as it was", () => {
    for (const md of ["::embed[https://x.test/a] and text\n", "::embed[https://x.test/a]   \n"]) {
      const s = open(md);
      expect(s.initial.content![0]!.type).not.toBe("embed");
      expect(s.save(clone(s.initial))).toBe(md);
    }
  });
});

describe("math and diagrams", () => {
  test("open as source blocks whose text is the body exactly, and write back only what changed", () => {
    const md = "Intro.\n\n:::katex\n\\int_0^1 x^2 \\, dx = \\frac{1}{3}\n:::\n\n:::mermaid\ngraph LR\n  Write --> Review\n:::\n";
    const s = open(md);
    expect(s.initial.content![1]).toEqual({ type: "katex", attrs: { type: null, extra: "", colons: ":::" }, content: [{ type: "text", text: "\\int_0^1 x^2 \\, dx = \\frac{1}{3}" }] });
    expect(s.initial.content![2]!.type).toBe("mermaid");
    expect(s.save(clone(s.initial))).toBe(md);
    const out = edit(md, (doc) => (doc.content![2]!.content = [{ type: "text", text: "graph LR\n  Write --> Publish" }]));
    expect(out).toBe(md.replace("Write --> Review", "Write --> Publish"));
    expect(edit(md, (doc) => delete doc.content![1]!.content)).toBe(md.replace(":::katex\n\\int_0^1 x^2 \\, dx = \\frac{1}{3}\n:::", ":::katex\n:::"));
  });
});

describe("file tree and table of contents", () => {
  test("a file tree's list is edited richly; a table of contents is a block of its own; both save back unchanged", () => {
    const md = ":::toc\n:::\n\n:::filetree\n- docs/\n  - index.md\n:::\n\n:::toc\nstray\n:::\n";
    const s = open(md);
    expect(s.initial.content!.map((n) => n.type)).toEqual(["toc", "filetree", "rawBlock"]);
    expect(s.initial.content![1]!.content![0]!.type).toBe("bulletList");
    expect(s.save(clone(s.initial))).toBe(md);
    const doc = clone(s.initial);
    doc.content!.push({ type: "toc", attrs: { type: null, extra: "", colons: ":::" } });
    expect(s.save(doc)).toBe(md + "\n:::toc\n:::\n");
  });
});
