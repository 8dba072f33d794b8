import { describe, expect, test } from "bun:test";
import { deepestFolder } from "../../src/content/tree-slice.ts";
import type { TreeNode } from "../../src/content/tree.ts";

/** Where a writer's new folder would start (docs/decisions/restricted-folders.md, "Writing into a folder you cannot see"). */
const page = (path: string) => ({ type: "page", path }) as TreeNode;
const folder = (path: string, children: TreeNode[]) => ({ type: "folder", path, children }) as TreeNode;
const tree: TreeNode[] = [
  page("start.md"),
  folder("teams", [page("teams/about.md"), folder("teams/sales", [page("teams/sales/plan.md")])]),
  folder("Guides", [page("Guides/intro.md")]),
  folder("team", [page("team/x.md")]),
];

describe("the deepest folder of a tree that is a folder or holds it", () => {
  test("a folder the tree holds is its own answer; a new one's is the deepest folder above it", () => {
    expect(deepestFolder(tree, "teams/sales")).toBe("teams/sales");
    expect(deepestFolder(tree, "teams/sales/q3/board")).toBe("teams/sales");
    expect(deepestFolder(tree, "teams/finance")).toBe("teams");
    expect(deepestFolder(tree, "teams/finance/deep")).toBe("teams");
  });

  test("the root when no folder above it is in the tree; a name's prefix is not its folder", () => {
    expect(deepestFolder(tree, "hr")).toBe("");
    expect(deepestFolder(tree, "teamsx/a")).toBe("");
    expect(deepestFolder(tree, "team/a")).toBe("team");
  });

  test("matched without case, as the access rules are; the tree's own spelling is answered", () => {
    expect(deepestFolder(tree, "TEAMS/Sales/new")).toBe("teams/sales");
    expect(deepestFolder(tree, "guides/new")).toBe("Guides");
  });
});
