/** Line attribution over a page's versions: kept lines keep their version, new and changed lines take the newer one. */
import { expect, test } from "bun:test";
import { blame } from "../../src/history/blame.ts";

test("each line carries the version that last wrote it", () => {
  const ranges = blame([
    { commit: "a", text: "one\ntwo\nthree\n" },
    { commit: "b", text: "one\nTWO\nthree\nfour\n" },
    { commit: "c", text: "zero\none\nTWO\nthree\nfour\n" },
  ]);
  expect(ranges).toEqual([
    { start: 1, count: 1, commit: "c" },
    { start: 2, count: 1, commit: "a" },
    { start: 3, count: 1, commit: "b" },
    { start: 4, count: 1, commit: "a" },
    { start: 5, count: 1, commit: "b" },
  ]);
});

test("a deletion resets the page: a version after it writes every line", () => {
  const ranges = blame([
    { commit: "a", text: "same\n" },
    { commit: "b", text: null },
    { commit: "c", text: "same\n" },
  ]);
  expect(ranges).toEqual([{ start: 1, count: 1, commit: "c" }]);
});

test("uncommitted lines of the current file carry no commit; an unchanged file adds nothing", () => {
  expect(blame([{ commit: "a", text: "x\ny\n" }, { commit: null, text: "x\ny\nnew\n" }])).toEqual([
    { start: 1, count: 2, commit: "a" },
    { start: 3, count: 1, commit: null },
  ]);
  expect(blame([{ commit: "a", text: "x\ny\n" }, { commit: null, text: "x\ny\n" }])).toEqual([{ start: 1, count: 2, commit: "a" }]);
});

test("lines moved within a long page keep their authorship where the diff can match them; a huge rewrite is credited to its version", () => {
  const long = Array.from({ length: 3000 }, (_, i) => `line ${i}`);
  const rewritten = long.map((l) => `${l}!`);
  expect(blame([{ commit: "a", text: long.join("\n") }, { commit: "b", text: rewritten.join("\n") }])).toEqual([{ start: 1, count: 3000, commit: "b" }]);
  const edited = [...long];
  edited[1500] = "changed";
  expect(blame([{ commit: "a", text: long.join("\n") }, { commit: "b", text: edited.join("\n") }])).toEqual([
    { start: 1, count: 1500, commit: "a" },
    { start: 1501, count: 1, commit: "b" },
    { start: 1502, count: 1499, commit: "a" },
  ]);
});
