/**
 * A long page is handed to the editor in pieces (RichEditor.tsx): the blocks converted a chunk at a
 * time are the blocks of the whole page, and a document assembled from the chunks saves the file
 * byte for byte, with an edit in an early chunk written alone.
 */
import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { MarkdownSession } from "../../src/web/markdown/session.ts";
import type { PMNode } from "../../src/web/markdown/pm.ts";

const TRICKY = readFileSync(join(import.meta.dir, "fixtures/tricky.md"), "utf8");
const LONG = Array.from({ length: 12 }, () => TRICKY.trimEnd()).join("\n\n") + "\n";
const clone = (n: PMNode): PMNode => JSON.parse(JSON.stringify(n)) as PMNode;

test("the blocks converted chunk by chunk are the page's blocks, each converted once", () => {
  const whole = new MarkdownSession(LONG).initial.content!;
  const s = new MarkdownSession(LONG);
  const pieces: PMNode[] = [];
  for (let at = 0; at < s.blockCount; at += 7) pieces.push(...s.blockNodes(at, at + 7));
  expect(pieces.length).toBe(s.blockCount);
  expect(pieces).toEqual(whole);
  // The same objects the whole document is made of: nothing converted twice.
  expect(s.initial.content!.every((n, i) => n === pieces[i])).toBe(true);
  expect(s.blockNodes(s.blockCount, s.blockCount + 5)).toEqual([]);
});

test("a document assembled from chunks saves byte for byte; an edit in the first chunk changes only its block", () => {
  const s = new MarkdownSession(LONG);
  const loaded = [...s.blockNodes(0, 5), ...s.blockNodes(5, s.blockCount)].map(clone);
  expect(s.rebaseLater(loaded.length, () => loaded)).toBe(true);
  expect(s.save({ type: "doc", content: loaded.map(clone) })).toBe(LONG);
  const edited = loaded.map(clone);
  const i = edited.findIndex((n) => n.type === "paragraph" && (n.content ?? []).length > 0);
  edited[i]!.content!.push({ type: "text", text: " (typed while loading)" });
  const out = s.save({ type: "doc", content: edited });
  // Everything after the edited block (the rest of the first chunk and every later chunk) keeps its bytes.
  const end = "must stay where it is.";
  expect(out.slice(out.indexOf(end + " (typed while loading)") + end.length + " (typed while loading)".length)).toBe(LONG.slice(LONG.indexOf(end) + end.length));
  expect(out.slice(0, out.indexOf("Intro paragraph"))).toBe(LONG.slice(0, LONG.indexOf("Intro paragraph")));
});

test("a baseline counting fewer nodes than the page has blocks is refused (the page opens as source)", () => {
  const s = new MarkdownSession(LONG);
  expect(s.rebaseLater(s.blockCount - 1, () => s.blockNodes(0, s.blockCount - 1))).toBe(false);
});
