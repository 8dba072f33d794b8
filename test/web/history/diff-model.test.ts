/** The diff view's model: unified lines with numbers and word highlights, side-by-side rows, and a diff turned round. */
import { describe, expect, test } from "bun:test";
import { structuredPatch } from "diff";
import { invertDiff, sideBySide, unifiedLines } from "../../../src/web/history/diff-model.ts";
import type { PageDiff } from "../../../src/web/api/history.ts";

const unified = [
  "--- a/p.md\tabc",
  "+++ b/p.md\tcurrent",
  "@@ -1,4 +1,5 @@",
  " # Title",
  "-old line",
  "-gone",
  "+new line",
  "+added",
  "+more",
  " tail",
  "",
].join("\n");
const diff: PageDiff = {
  from: "abc",
  to: "current",
  unified,
  frontmatter_changes: [{ field: "title", before: "A", after: "B" }],
  added: 3,
  removed: 2,
  words: [{ old_line: 2, new_line: 2, parts: [{ kind: "removed", text: "old" }, { kind: "added", text: "new" }, { kind: "same", text: " line" }] }],
  rendered: [{ kind: "same", html: "<h1>Title</h1>" }, { kind: "removed", html: "<p>old</p>" }, { kind: "added", html: "<p>new</p>" }],
};

describe("unified lines", () => {
  test("numbers each side from the hunk header; word highlights land on their line pair, each side its own parts", () => {
    const lines = unifiedLines(diff);
    expect(lines.map((l) => [l.kind, l.oldNo, l.newNo])).toEqual([
      ["hunk", null, null],
      ["same", 1, 1],
      ["removed", 2, null],
      ["removed", 3, null],
      ["added", null, 2],
      ["added", null, 3],
      ["added", null, 4],
      ["same", 4, 5],
    ]);
    expect(lines[2]!.parts).toEqual([{ kind: "removed", text: "old" }, { kind: "same", text: " line" }]);
    expect(lines[4]!.parts).toEqual([{ kind: "added", text: "new" }, { kind: "same", text: " line" }]);
    expect(lines[3]!.parts).toBeUndefined();
  });

  test("an empty diff has no lines", () => {
    expect(unifiedLines({ ...diff, unified: "", words: [] })).toEqual([]);
  });
});

test("side by side: a removed run beside the added run that replaced it, the longer run's rest against nothing", () => {
  const rows = sideBySide(unifiedLines(diff));
  expect(rows.map((r) => r.hunk ?? [r.left?.text ?? null, r.right?.text ?? null])).toEqual([
    "@@ -1,4 +1,5 @@",
    ["# Title", "# Title"],
    ["old line", "new line"],
    ["gone", "added"],
    [null, "more"],
    ["tail", "tail"],
  ]);
});

describe("a diff turned round", () => {
  test("added and removed swap, removals come first again, numbers and fields follow", () => {
    const back = invertDiff(diff);
    expect(back.unified.split("\n")).toEqual([
      "--- b/p.md\tcurrent",
      "+++ a/p.md\tabc",
      "@@ -1,5 +1,4 @@",
      " # Title",
      "-new line",
      "-added",
      "-more",
      "+old line",
      "+gone",
      " tail",
      "",
    ]);
    expect([back.added, back.removed, back.from, back.to]).toEqual([2, 3, "current", "abc"]);
    expect(back.frontmatter_changes).toEqual([{ field: "title", before: "B", after: "A" }]);
    expect(back.rendered!.map((b) => b.kind)).toEqual(["same", "added", "removed"]);
    const lines = unifiedLines(back);
    expect(lines.find((l) => l.text === "new line")).toMatchObject({ kind: "removed", oldNo: 2, parts: [{ kind: "removed", text: "new" }, { kind: "same", text: " line" }] });
    expect(lines.find((l) => l.text === "old line")).toMatchObject({ kind: "added", newNo: 2, parts: [{ kind: "added", text: "old" }, { kind: "same", text: " line" }] });
  });

  test("turned round twice it reads as the original; it matches the diff taken the other way", () => {
    const lines = (d: PageDiff) => unifiedLines(d).map((l) => [l.kind, l.text, l.oldNo, l.newNo]);
    expect(lines(invertDiff(invertDiff(diff)))).toEqual(lines(diff));
    // The same texts diffed the other way by jsdiff give the same lines.
    const before = "# Title\nold line\ngone\ntail\n";
    const after = "# Title\nnew line\nadded\nmore\ntail\n";
    const patch = structuredPatch("p", "p", after, before, "", "", { context: 3 });
    const h = patch.hunks[0]!;
    const reverse = `--- a\n+++ b\n@@ -${h.oldStart},${h.oldLines} +${h.newStart},${h.newLines} @@\n${h.lines.join("\n")}\n`;
    expect(lines(invertDiff(diff)).slice(1)).toEqual(lines({ ...diff, unified: reverse, words: [] }).slice(1));
  });
});
