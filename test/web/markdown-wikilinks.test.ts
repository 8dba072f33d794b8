/** Wikilinks open as their own inline nodes (the editor's chips) and are written back as typed. */
import { expect, test } from "bun:test";
import { MarkdownSession } from "../../src/web/markdown/session.ts";
import type { PMNode } from "../../src/web/markdown/pm.ts";

const open = (md: string) => {
  const s = new MarkdownSession(md);
  expect(s.rebase(s.initial)).toBe(true);
  return s;
};
const clone = <T>(v: T): T => JSON.parse(JSON.stringify(v));

test("each form of wikilink is a node; code spans and link texts keep theirs as text", () => {
  const s = open("A [[guide/intro]], **[[x|X]]**, [[p#h]] and `[[code]]` and [see [[y]]](/l).\n");
  const para = s.initial.content![0]!.content!;
  const links = para.filter((n) => n.type === "wikilink");
  expect(links).toEqual([
    { type: "wikilink", attrs: { target: "guide/intro", label: null } },
    { type: "wikilink", attrs: { target: "x", label: "X" }, marks: [{ type: "bold" }] },
    { type: "wikilink", attrs: { target: "p#h", label: null } },
  ]);
  expect(para.find((n) => n.marks?.[0]?.type === "code")!.text).toBe("[[code]]");
  expect(s.save(clone(s.initial))).toBe("A [[guide/intro]], **[[x|X]]**, [[p#h]] and `[[code]]` and [see [[y]]](/l).\n");
});

test("an edited paragraph writes its wikilinks back unescaped, a new one included", () => {
  const s = open("Intro [[a]].\n\nOther.\n");
  const doc = clone(s.initial);
  const para = doc.content![0]!;
  para.content!.push({ type: "text", text: " and " }, { type: "wikilink", attrs: { target: "b/c", label: "The C" } } as PMNode);
  expect(s.save(doc)).toBe("Intro [[a]]. and [[b/c|The C]]\n\nOther.\n");
});

test("in a table cell a wikilink's label pipe is escaped, as GFM needs", () => {
  const md = "| k | v |\n|---|---|\n| [[a\\|A]] | 1 |\n";
  const s = open(md);
  const cell = s.initial.content![0]!.content![1]!.content![0]!.content![0]!.content![0]!;
  expect(cell).toEqual({ type: "wikilink", attrs: { target: "a", label: "A" } });
  const doc = clone(s.initial);
  doc.content![0]!.content![1]!.content![1]!.content![0]!.content = [{ type: "text", text: "2" }];
  expect(s.save(doc)).toBe("| k | v |\n|---|---|\n| [[a\\|A]] | 2 |\n");
});
