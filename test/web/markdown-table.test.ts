/**
 * GFM tables as grids in the rich editor: a table opens as a table node (cells with inline marks,
 * code and links), and saving writes back only what changed — one edited cell rewrites that row,
 * in the table's own style, plus that column's padding when the table was padded.
 */
import { describe, expect, test } from "bun:test";
import { marked } from "marked";
import { MarkdownSession } from "../../src/web/markdown/session.ts";
import type { PMNode } from "../../src/web/markdown/pm.ts";

function open(source: string) {
  const s = new MarkdownSession(source);
  expect(s.rebase(s.initial)).toBe(true);
  return s;
}
const clone = <T>(v: T): T => JSON.parse(JSON.stringify(v));
const tableOf = (doc: PMNode) => doc.content!.find((n) => n.type === "table")!;
const textOf = (n: PMNode): string => (n.text ?? "") + (n.content ?? []).map(textOf).join("");
/** The grid's text, row by row. */
const gridOf = (table: PMNode) => table.content!.map((r) => r.content!.map(textOf));
function setCell(doc: PMNode, row: number, col: number, content: PMNode[]) {
  tableOf(doc).content![row]!.content![col]!.content = [{ type: "paragraph", content }];
}
const text = (t: string): PMNode => ({ type: "text", text: t });
const edit = (source: string, change: (doc: PMNode) => void) => {
  const s = open(source);
  const doc = clone(s.initial);
  change(doc);
  return s.save(doc);
};

const PADDED = "Intro.\n\n| Name  | Size |\n| :---- | ---: |\n| alpha |    1 |\n| beta  |   22 |\n\nAfter.\n";
const COMPACT = "| a | b |\n|---|:-:|\n| x \\| y | `c\\|d` |\n| **bold** [link](/l) | z |\n";

describe("a GFM table opens as a grid", () => {
  test("cells hold inline marks, code and links; escaped pipes and code with pipes are their text", () => {
    const s = open(COMPACT);
    const table = tableOf(s.initial);
    expect(gridOf(table)).toEqual([["a", "b"], ["x | y", "c|d"], ["bold link", "z"]]);
    expect(table.content![0]!.content![0]!.type).toBe("tableHeader");
    expect(table.content![1]!.content![0]!.type).toBe("tableCell");
    expect(table.content![1]!.content![1]!.content![0]!.content![0]).toEqual({ type: "text", text: "c|d", marks: [{ type: "code" }] });
    const marks = table.content![2]!.content![0]!.content![0]!.content!.map((n) => n.marks?.[0]?.type);
    expect(marks).toEqual(["bold", undefined, "link"]);
    // Alignment is kept on each cell of its column.
    expect(table.content!.map((r) => r.content![1]!.attrs!.align)).toEqual(["center", "center", "center"]);
  });

  test("untouched tables of every style save back byte for byte", () => {
    const styles = [
      PADDED,
      COMPACT,
      "a | b\n--|--\n1 | 2\n",
      "|a|b|\n|-|-|\n|1|2|\n",
      // Ragged rows, and an alignment row with spaces.
      "| a | b | c |\n|  :---  |   ---:  | :-: |\n| only one |\n| 1 | 2 | 3 | 4 |\n",
      "  | indented | table |\n  | --- | --- |\n  | x | y |\n",
      "| 表 | 列 |\n| -- | -- |\n| 中文 | x |\n",
    ];
    for (const md of styles) {
      const s = open(md);
      expect(tableOf(s.initial)).toBeDefined();
      expect(s.save(clone(s.initial))).toBe(md);
    }
  });

  test("a table inside a quote or list stays Markdown source", () => {
    const s = open("> | a | b |\n> |---|---|\n> | 1 | 2 |\n");
    expect(s.initial.content![0]!.type).toBe("rawBlock");
  });
});

describe("editing a cell", () => {
  test("in a compact table rewrites only that row, in the table's own spacing", () => {
    const out = edit(COMPACT, (doc) => setCell(doc, 2, 1, [text("changed")]));
    expect(out).toBe("| a | b |\n|---|:-:|\n| x \\| y | `c\\|d` |\n| **bold** [link](/l) | changed |\n");
    // The row with escaped pipes, untouched, kept its backslashes; edited, it keeps its meaning.
    const again = edit(COMPACT, (doc) => setCell(doc, 1, 0, [text("x | y!")]));
    expect(again).toBe("| a | b |\n|---|:-:|\n| x \\| y! | `c\\|d` |\n| **bold** [link](/l) | z |\n");
  });

  test("tables without outer pipes or spaces keep that style", () => {
    expect(edit("a | b\n--|--\n1 | 2\n", (doc) => setCell(doc, 1, 0, [text("one")]))).toBe("a | b\n--|--\none | 2\n");
    expect(edit("|a|b|\n|-|-|\n|1|2|\n", (doc) => setCell(doc, 1, 1, [text("two")]))).toBe("|a|b|\n|-|-|\n|1|two|\n");
  });

  test("in a padded table, a shorter value changes only its row; a longer one also re-pads that column", () => {
    const shorter = edit(PADDED, (doc) => setCell(doc, 1, 0, [text("al")]));
    expect(shorter).toBe(PADDED.replace("| alpha |    1 |", "| al    |    1 |"));
    const longer = edit(PADDED, (doc) => setCell(doc, 2, 0, [text("gamma-ray")]));
    expect(longer).toBe("Intro.\n\n| Name      | Size |\n| :---- | ---: |\n| alpha     |    1 |\n| gamma-ray |   22 |\n\nAfter.\n".replace("| :---- |", "| :-------- |"));
    // The Size column's bytes did not move in any row.
    const sizes = (md: string) => md.split("\n").filter((l) => l.startsWith("|")).map((l) => l.slice(l.lastIndexOf("|", l.length - 2)));
    expect(sizes(longer)).toEqual(sizes(PADDED));
  });

  test("a moved row keeps its own line; a moved column takes its width and alignment with it", () => {
    const rows = edit(PADDED, (doc) => {
      const t = tableOf(doc);
      t.content = [t.content![0]!, t.content![2]!, t.content![1]!];
    });
    expect(rows).toBe(PADDED.replace("| alpha |    1 |\n| beta  |   22 |", "| beta  |   22 |\n| alpha |    1 |"));
    const columns = edit(PADDED, (doc) => {
      for (const row of tableOf(doc).content!) row.content = [row.content![1]!, row.content![0]!];
    });
    expect(columns).toBe("Intro.\n\n| Size | Name  |\n| ---: | :---- |\n|    1 | alpha |\n|   22 | beta  |\n\nAfter.\n");
  });

  test("a typed pipe is escaped in the file and reads back as a pipe", () => {
    const out = edit(COMPACT, (doc) => setCell(doc, 2, 1, [text("a|b "), { type: "text", text: "x|y", marks: [{ type: "code" }] }]));
    expect(out).toContain("| **bold** [link](/l) | a\\|b `x\\|y` |\n");
    const table = tableOf(open(out).initial);
    expect(gridOf(table)[2]).toEqual(["bold link", "a|b x|y"]);
  });

  test("a ragged row stays as written while another row changes", () => {
    const md = "| a | b | c |\n|  :---  |   ---:  | :-: |\n| only one |\n| 1 | 2 | 3 | 4 |\n";
    const out = edit(md, (doc) => setCell(doc, 2, 0, [text("9")]));
    expect(out).toBe("| a | b | c |\n|  :---  |   ---:  | :-: |\n| only one |\n| 9 | 2 | 3 |\n");
  });

  test("wide characters count two columns when padding", () => {
    const md = "| 名前 | x |\n| ---- | - |\n| 太郎 | 1 |\n";
    expect(edit(md, (doc) => setCell(doc, 1, 1, [text("2")]))).toBe("| 名前 | x |\n| ---- | - |\n| 太郎 | 2 |\n");
  });
});

describe("changing the grid", () => {
  const row = (cells: string[], type = "tableCell"): PMNode => ({
    type: "tableRow",
    content: cells.map((c) => ({ type, attrs: { colspan: 1, rowspan: 1, colwidth: null, align: null }, content: [{ type: "paragraph", content: c ? [text(c)] : [] }] })),
  });

  test("a new row is one new line; a removed row is one line less", () => {
    const added = edit(COMPACT, (doc) => tableOf(doc).content!.splice(2, 0, row(["new", ""])));
    expect(added).toBe("| a | b |\n|---|:-:|\n| x \\| y | `c\\|d` |\n| new |  |\n| **bold** [link](/l) | z |\n");
    const removed = edit(PADDED, (doc) => tableOf(doc).content!.splice(1, 1));
    expect(removed).toBe(PADDED.replace("| alpha |    1 |\n", ""));
  });

  test("a new row in a padded table is padded and placed by each column's alignment", () => {
    const out = edit(PADDED, (doc) => tableOf(doc).content!.push(row(["c", "333"])));
    expect(out).toBe(PADDED.replace("|   22 |\n", "|   22 |\n| c     |  333 |\n"));
  });

  test("a new column rewrites the table in its style; a padded one stays padded", () => {
    const out = edit(PADDED, (doc) => {
      const t = tableOf(doc);
      t.content!.forEach((r, i) => r.content!.push(row([i === 0 ? "Note" : "n" + i], i === 0 ? "tableHeader" : "tableCell").content![0]!));
    });
    expect(out).toBe("Intro.\n\n| Name  | Size | Note |\n| :---- | ---: | ---- |\n| alpha |    1 | n1   |\n| beta  |   22 | n2   |\n\nAfter.\n");
    expect(marked.parse(out)).toContain("<th>Note</th>");
  });

  test("changing a column's alignment rewrites only the delimiter row", () => {
    const out = edit(COMPACT, (doc) => tableOf(doc).content!.forEach((r) => (r.content![0]!.attrs!.align = "right")));
    expect(out).toBe(COMPACT.replace("|---|:-:|", "| --: | :-: |"));
  });

  test("a table inserted in the editor is written compact, and reads back as the same grid", () => {
    const s = open("Text.\n");
    const doc = clone(s.initial);
    const table: PMNode = { type: "table", content: [row(["H1", "H2"], "tableHeader"), row(["a", "b | c"])] };
    doc.content!.push(table);
    const out = s.save(doc);
    expect(out).toBe("Text.\n\n| H1 | H2 |\n| --- | --- |\n| a | b \\| c |\n");
    expect(gridOf(tableOf(open(out).initial))).toEqual([["H1", "H2"], ["a", "b | c"]]);
  });

  test("a merged cell (from a pasted table) keeps the grid whole with empty cells", () => {
    const out = edit(COMPACT, (doc) => {
      const r = tableOf(doc).content![2]!;
      r.content = [{ ...r.content![0]!, attrs: { ...r.content![0]!.attrs, colspan: 2 } }];
    });
    expect(out).toContain("| **bold** [link](/l) |  |\n");
  });
});
