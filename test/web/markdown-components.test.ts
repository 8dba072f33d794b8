/**
 * Components as blocks: a callout opens as a block whose body is edited richly, and saving writes
 * back only what changed — its opening line when the type changes, one body line when one body
 * paragraph does. Anything the editor cannot show stays source, and odd attributes stay text.
 */
import { describe, expect, test } from "bun:test";
import { MarkdownSession } from "../../src/web/markdown/session.ts";
import type { PMNode } from "../../src/web/markdown/pm.ts";

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
