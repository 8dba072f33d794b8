import { afterAll, beforeAll, expect, test } from "bun:test";
import { readdirSync } from "node:fs";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { fileOf, livePage, owner, pageRows } from "./support.ts";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

test("two PUTs with the same hash: exactly one 200 and one 409 naming the winner's hash", async () => {
  const o = await owner(server);
  for (let round = 0; round < 5; round++) {
    const page = await o.client.post(`${o.base}/race-${round}`, { title: "Race", body: "start\n" });
    const [a, b] = await Promise.all([
      o.client.put(`${o.base}/race-${round}`, { body: "from A\n", lastKnownHash: page.body.content_hash }),
      o.client.put(`${o.base}/race-${round}`, { body: "from B\n", lastKnownHash: page.body.content_hash }),
    ]);
    expect([a.status, b.status].sort()).toEqual([200, 409]);
    const winner = a.status === 200 ? a : b;
    const loser = a.status === 200 ? b : a;
    expect(loser.body).toMatchObject({ error: "CONFLICT", current_hash: winner.body.content_hash, your_hash: page.body.content_hash, modified_by: o.name });
    expect(fileOf(o, `race-${round}.md`)).toEndWith(winner.body.content);
    expect(livePage(server, o.wsId, `race-${round}.md`)!.content_hash).toBe(winner.body.content_hash);
  }
});

test("a move and a write racing: the write lands before the move or gets 404, never a torn or lost state", async () => {
  const o = await owner(server);
  for (let round = 0; round < 5; round++) {
    const page = await o.client.post(`${o.base}/mv-${round}`, { title: "Mv", body: "v1\n" });
    const [move, put] = await Promise.all([
      o.client.patch(`${o.base}/mv-${round}`, { new_path: `moved/mv-${round}` }),
      o.client.put(`${o.base}/mv-${round}`, { body: "v2\n", lastKnownHash: page.body.content_hash }),
    ]);
    expect(move.status).toBe(200);
    expect([200, 404]).toContain(put.status);
    const text = fileOf(o, `moved/mv-${round}.md`)!;
    expect(fileOf(o, `mv-${round}.md`)).toBeNull();
    expect(text).toEndWith(put.status === 200 ? "v2\n" : "v1\n");
    const row = livePage(server, o.wsId, `moved/mv-${round}.md`)!;
    expect(row.id).toBe(page.body.page_id);
    expect((await o.client.get(`${o.base}/moved/mv-${round}`)).body.content_hash).toBe(row.content_hash);
  }
  // No temporary files are left behind by the atomic writes.
  expect(readdirSync(o.dir, { recursive: true }).filter((n) => String(n).endsWith(".tmp"))).toEqual([]);
});

test("creates racing for one path: one 201, the others 409, one file and one record", async () => {
  const o = await owner(server);
  const results = await Promise.all([1, 2, 3, 4].map((n) => o.client.post(`${o.base}/same`, { title: `Writer ${n}` })));
  expect(results.map((r) => r.status).sort()).toEqual([201, 409, 409, 409]);
  const winner = results.find((r) => r.status === 201)!;
  expect(fileOf(o, "same.md")).toContain(`title: ${winner.body.title}`);
  expect(pageRows(server, o.wsId).filter((r) => r.path === "same.md")).toHaveLength(1);
});

test("writes to two workspaces at once all land, each in its own workspace", async () => {
  const [a, b] = [await owner(server), await owner(server)];
  const writes = await Promise.all([
    ...Array.from({ length: 10 }, (_, i) => a.client.post(`${a.base}/p${i}`, { title: `A${i}` })),
    ...Array.from({ length: 10 }, (_, i) => b.client.post(`${b.base}/p${i}`, { title: `B${i}` })),
  ]);
  expect(writes.every((w) => w.status === 201)).toBe(true);
  expect(pageRows(server, a.wsId).filter((r) => /^p\d\.md$/.test(r.path))).toHaveLength(10);
  expect(pageRows(server, b.wsId).filter((r) => /^p\d\.md$/.test(r.path))).toHaveLength(10);
});
