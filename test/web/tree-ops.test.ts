import { describe, expect, test } from "bun:test";
import type { TreeNode } from "../../src/web/api/types.ts";
import { dropPlan, movePlan, moveTargets, pathInFolder, reorderBody, stepBody } from "../../src/web/tree/tree-ops.ts";

const page = (path: string, id: string): TreeNode => ({ name: path, path, title: path, page_id: id, kind: "page", children: [] });
const folder = (path: string, id: string | null, children: TreeNode[]): TreeNode => ({ name: path, path, title: path, page_id: id, kind: "folder", children });
const A = "01HZZZZZZZZZZZZZZZZZZZZZZA";
const B = "01HZZZZZZZZZZZZZZZZZZZZZZB";
const C = "01HZZZZZZZZZZZZZZZZZZZZZZC";
const D = "01HZZZZZZZZZZZZZZZZZZZZZZD";
const tree = [folder("docs", D, [page("docs/a.md", A), page("docs/b.md", B)]), page("c.md", C), folder("bare", null, [])];

describe("tree operations", () => {
  test("reorder places the moved page before its target, or last", () => {
    expect(reorderBody(tree[0]!.children, "docs", B, A).order.map((o) => o.id)).toEqual([B, A]);
    expect(reorderBody(tree, "", D, null).order.map((o) => o.id)).toEqual([C, D]);
  });
  test("move up and down swap neighbours and stop at the edges", () => {
    expect(stepBody(tree, tree[0]!.children[1]!, -1)?.order.map((o) => o.id)).toEqual([B, A]);
    expect(stepBody(tree, tree[0]!.children[0]!, -1)).toBeNull();
    expect(stepBody(tree, tree[2]!, 1)).toBeNull();
  });
  test("a drop onto a folder moves the page into it; before a page of another level moves then orders", () => {
    expect(dropPlan(tree, tree[1]!, tree[0]!, "inside")).toEqual({ moveTo: "docs/c.md", reorder: null });
    expect(dropPlan(tree, tree[1]!, tree[0]!.children[1]!, "before")).toEqual({ moveTo: "docs/c.md", reorder: { parent: "docs", beforeId: B } });
    expect(dropPlan(tree, tree[0]!.children[0]!, tree[0]!.children[1]!, "after")).toEqual({ moveTo: null, reorder: { parent: "docs", beforeId: null } });
    // A folder moves only within its level; a page already in the folder is not moved again.
    expect(dropPlan(tree, tree[0]!, tree[2]!, "inside")).toBeNull();
    expect(dropPlan(tree, tree[0]!.children[0]!, tree[0]!, "inside")).toBeNull();
    expect(pathInFolder("x/y/z.md", "")).toBe("z.md");
  });
  test("Move to… offers every other folder, never a folder inside itself, and moves a folder as its pages", () => {
    const nested = [...tree, folder("bare/inner", null, [page("bare/inner/e.md", "E")])];
    const bare = folder("bare", null, [folder("bare/inner", null, [page("bare/inner/e.md", "E")]), page("bare/f.md", "F")]);
    const withBare = [tree[0]!, tree[1]!, bare];
    expect(moveTargets(withBare, tree[1]!)).toEqual(["docs", "bare", "bare/inner"]);
    expect(moveTargets(withBare, tree[0]!.children[0]!)).toEqual(["", "bare", "bare/inner"]);
    expect(moveTargets(withBare, bare)).toEqual(["docs"]);
    expect(moveTargets(nested, tree[0]!)).toEqual(["bare", "bare/inner"]);
    expect(movePlan(tree[1]!, "docs")).toEqual([{ from: "c.md", to: "docs/c.md" }]);
    // A folder with an index page moves it first; a bare folder moves only the pages below it.
    expect(movePlan(tree[0]!, "bare")).toEqual([
      { from: "docs/index.md", to: "bare/docs/index.md" },
      { from: "docs/a.md", to: "bare/docs/a.md" },
      { from: "docs/b.md", to: "bare/docs/b.md" },
    ]);
    expect(movePlan(bare, "docs")).toEqual([
      { from: "bare/inner/e.md", to: "docs/bare/inner/e.md" },
      { from: "bare/f.md", to: "docs/bare/f.md" },
    ]);
  });
});
