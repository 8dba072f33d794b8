import { afterAll, beforeAll, expect, test } from "bun:test";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { owner, pageRows } from "./support.ts";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

type Node = { type: string; path: string; title: string; page_id: string | null; children?: Node[] };
const shape = (nodes: Node[]): unknown => nodes.map((n) => (n.children ? { [n.title]: shape(n.children) } : n.title));

test("the starter workspace holds the example pages, nested by folder", async () => {
  const o = await owner(server);
  const tree = await o.client.get(`${o.base}/tree`);
  expect(tree.status).toBe(200);
  expect(tree.body.next_cursor).toBeNull();
  expect(shape(tree.body.items)).toEqual(["Welcome to Quire", { Guides: ["Getting started", "Writing pages"] }, "Components"]);
  const guides = tree.body.items[1];
  expect(guides).toMatchObject({ type: "folder", path: "guides", title: "Guides" });
  expect(guides.page_id).toBe(pageRows(server, o.wsId).find((r) => r.path === "guides/index.md")!.id);
  // The starter pages carry ids and link to each other.
  const welcome = await o.client.get(`${o.base}/welcome`);
  expect(welcome.body.content).toContain("[[guides/getting-started|Getting started]]");
  expect(welcome.body.frontmatter.id).toBe(welcome.body.page_id);
  expect((await o.client.get(`${o.base}/components`)).body.content).toContain(":::callout[info]");
});

test("order within a level: sort_order, then nav_order, then title; reorder sets sort_order (204)", async () => {
  const o = await owner(server);
  for (const [path, title] of [["docs/zeta", "Zeta"], ["docs/alpha", "alpha"], ["docs/Beta", "Beta"], ["docs/sub/index", "Sub"], ["docs/sub/leaf", "Leaf"], ["docs/index", "Docs"]]) {
    expect((await o.client.post(`${o.base}/${path}`, { title: title! })).status).toBe(201);
  }
  const docs = async () => (await o.client.get(`${o.base}/tree`)).body.items.find((n: Node) => n.path === "docs") as Node;
  expect(shape((await docs()).children!)).toEqual(["alpha", "Beta", { Sub: ["Leaf"] }, "Zeta"]);

  const rows = pageRows(server, o.wsId);
  const id = (p: string) => rows.find((r) => r.path === p)!.id;
  const reorder = await o.client.post(`${o.base}/reorder`, {
    parent_path: "docs",
    order: [
      { id: id("docs/zeta.md"), sort_order: 0 },
      { id: id("docs/sub/index.md"), sort_order: 1 },
      { id: id("docs/alpha.md"), sort_order: 2 },
    ],
  });
  expect(reorder.status).toBe(204);
  expect(shape((await docs()).children!)).toEqual(["Zeta", { Sub: ["Leaf"] }, "alpha", "Beta"]);
  expect(pageRows(server, o.wsId).find((r) => r.path === "docs/zeta.md")!.sort_order).toBe(0);

  // An id from another level, an unknown id, or a bad body is refused and changes nothing.
  const wrongLevel = await o.client.post(`${o.base}/reorder`, { parent_path: "docs", order: [{ id: id("docs/sub/leaf.md"), sort_order: 0 }] });
  expect(wrongLevel.status).toBe(400);
  expect(wrongLevel.body.details.field).toBe("order.0.id");
  const unknown = await o.client.post(`${o.base}/reorder`, { parent_path: "docs", order: [{ id: "01J0000000000000000000000Z", sort_order: 0 }] });
  expect(unknown.status).toBe(400);
  expect((await o.client.post(`${o.base}/reorder`, { parent_path: "docs", order: [{ id: "x", sort_order: -1 }] })).status).toBe(400);
  expect((await o.client.post(`${o.base}/reorder`, { parent_path: "../x", order: [{ id: id("docs/zeta.md"), sort_order: 0 }] })).status).toBe(400);
  expect(shape((await docs()).children!)).toEqual(["Zeta", { Sub: ["Leaf"] }, "alpha", "Beta"]);
});

test("reorder refuses a field it does not have, at the top or in an entry (400 naming it), and changes nothing", async () => {
  const o = await owner(server);
  for (const [path, title] of [["docs/one", "One"], ["docs/two", "Two"]]) {
    expect((await o.client.post(`${o.base}/${path}`, { title: title! })).status).toBe(201);
  }
  const rows = pageRows(server, o.wsId);
  const id = (p: string) => rows.find((r) => r.path === p)!.id;
  const order = [{ id: id("docs/two.md"), sort_order: 0 }, { id: id("docs/one.md"), sort_order: 1 }];
  for (const [body, field] of [
    [{ parent_path: "docs", order, folder: "docs" }, "folder"],
    [{ parent_path: "docs", order: [order[0], { ...order[1], path: "docs/one.md" }] }, "order.1.path"],
    [{ parent_path: "docs", order: [{ id: id("docs/two.md"), sort_order: 0, position: 5 }] }, "order.0.position"],
  ] as const) {
    const r = await o.client.post(`${o.base}/reorder`, body);
    expect({ field, status: r.status, error: r.body.error, named: r.body.details?.field }).toEqual({ field, status: 400, error: "VALIDATION_ERROR", named: field });
    expect(r.body.message).toContain("is not a known field");
  }
  expect(pageRows(server, o.wsId).filter((r) => r.path.startsWith("docs/")).map((r) => r.sort_order)).toEqual(rows.filter((r) => r.path.startsWith("docs/")).map((r) => r.sort_order));
  // The documented body alone is accepted.
  expect((await o.client.post(`${o.base}/reorder`, { parent_path: "docs", order })).status).toBe(204);
  expect(pageRows(server, o.wsId).find((r) => r.path === "docs/two.md")!.sort_order).toBe(0);
});

test("nav_order from frontmatter orders pages that were not reordered", async () => {
  const o = await owner(server);
  const b = await o.client.post(`${o.base}/nav/b`, { title: "B" });
  await o.client.post(`${o.base}/nav/a`, { title: "A" });
  await o.client.put(`${o.base}/nav/b`, { lastKnownHash: b.body.content_hash, frontmatter: { nav_order: 1 } });
  const nav = (await o.client.get(`${o.base}/tree`)).body.items.find((n: Node) => n.path === "nav") as Node;
  expect(shape(nav.children!)).toEqual(["B", "A"]);
});

test("by folder and depth: a folder's direct children, each folder counting its own; the whole tree stays the default", async () => {
  const o = await owner(server);
  for (const path of ["lazy/a", "lazy/b", "lazy/sub/index", "lazy/sub/c", "lazy/sub/deep/d", "lazy/sub/deep/e"]) {
    expect((await o.client.post(`${o.base}/${path}`, { title: path.split("/").pop()! })).status).toBe(201);
  }
  const whole = await o.client.get(`${o.base}/tree`);
  expect(JSON.stringify(whole.body)).not.toContain("child_count");

  const root = await o.client.get(`${o.base}/tree?depth=1`);
  expect(root.status).toBe(200);
  const lazy = root.body.items.find((n: Node) => n.path === "lazy");
  expect(lazy).toMatchObject({ type: "folder", child_count: 3 });
  expect(lazy.children).toBeUndefined();
  expect(root.body.items.map((n: Node) => n.path)).toEqual(whole.body.items.map((n: Node) => n.path));

  const level = await o.client.get(`${o.base}/tree?folder=lazy&depth=1`);
  expect(level.body.items.map((n: Node & { child_count?: number }) => [n.path, n.child_count ?? null, n.children === undefined])).toEqual([
    ["lazy/a.md", null, true],
    ["lazy/b.md", null, true],
    ["lazy/sub", 2, true],
  ]);
  // A folder's index page gives it its id and title, as in the whole tree.
  expect(level.body.items[2]).toMatchObject({ title: "index", page_id: expect.any(String) });

  const two = await o.client.get(`${o.base}/tree?folder=lazy/sub/&depth=2`);
  expect(shape(two.body.items)).toEqual(["c", { Deep: ["d", "e"] }]);
  expect(two.body.items[1].child_count).toBe(2);

  // Without depth, the folder's whole part; an unknown folder has nothing under it.
  expect(shape((await o.client.get(`${o.base}/tree?folder=lazy`)).body.items)).toEqual(["a", "b", { index: ["c", { Deep: ["d", "e"] }] }]);
  expect((await o.client.get(`${o.base}/tree?folder=nowhere&depth=1`)).body.items).toEqual([]);

  for (const bad of ["depth=0", "depth=x", "folder=../etc"]) {
    const r = await o.client.get(`${o.base}/tree?${bad}`);
    expect(r.status, bad).toBe(400);
    expect(r.body.error).toBe("VALIDATION_ERROR");
  }
});
