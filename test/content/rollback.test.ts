import { afterAll, beforeAll, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { Database } from "bun:sqlite";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { owner, recordBus, type Owner } from "./support.ts";

/**
 * An update, delete or move whose transaction fails changes nothing (docs/architecture.md §10): the failure is made
 * honestly, by a trigger installed on the real database file through a second connection.
 */
let server: TestServer;
let o: Owner;
let admin: Database;
beforeAll(async () => {
  server = await startTestServer();
  o = await owner(server);
  admin = new Database(join(server.dataDir, "quire.db"));
});
afterAll(() => {
  admin.close();
  server.close();
});

/** Every page record and activity row of the workspace, and the exact bytes of the given files. */
function state(files: string[]) {
  const db = server.services.db;
  return {
    pages: db.query("SELECT * FROM pages WHERE workspace_id = ? ORDER BY id").all(o.wsId),
    activity: db.query("SELECT * FROM activity WHERE workspace_id = ? ORDER BY id").all(o.wsId),
    files: Object.fromEntries(files.map((f) => [f, existsSync(join(o.dir, f)) ? readFileSync(join(o.dir, f)).toString("base64") : null])),
  };
}

test("a delete whose transaction fails leaves the file, its folder and the record exactly as they were", async () => {
  const page = await o.client.post(`${o.base}/keep/only-page`, { title: "Keep me", body: "Precious words.\n" });
  expect(page.status).toBe(201);
  const before = state(["keep/only-page.md"]);
  admin.run(`CREATE TRIGGER refuse_delete BEFORE UPDATE OF deleted_at ON pages
    WHEN NEW.deleted_at IS NOT NULL AND OLD.id = '${page.body.page_id}' BEGIN SELECT RAISE(ABORT, 'refused by test'); END`);
  const bus = recordBus(server, o.wsId);
  const r = await o.client.delete(`${o.base}/keep/only-page`);
  bus.stop();
  admin.run("DROP TRIGGER refuse_delete");

  expect(r.status).toBe(500);
  expect(r.body.error).toBe("INTERNAL_ERROR");
  expect(state(["keep/only-page.md"])).toEqual(before);
  expect(bus.events).toEqual([]);
  expect(bus.changes).toEqual([]);
  expect((await o.client.get(`${o.base}/keep/only-page`)).body.content).toBe("Precious words.\n");
  // Nothing else was in the way: without the trigger the same delete goes through.
  expect((await o.client.delete(`${o.base}/keep/only-page`)).status).toBe(204);
  expect(existsSync(join(o.dir, "keep"))).toBe(false);
});

test("a move whose transaction fails part-way restores the old file, removes the new one and un-rewrites linking pages", async () => {
  const page = await o.client.post(`${o.base}/src/one`, { title: "One", body: "Back to [home](../home.md).\n" });
  await o.client.post(`${o.base}/home`, { title: "Home", body: "See [one](src/one.md) and [[src/one]].\n" });
  const files = ["src/one.md", "home.md", "dst/deep/one.md"];
  const before = state(files);
  // Fails on the last statement of the move's transaction, after the page's own record changed.
  admin.run(`CREATE TRIGGER refuse_link_update BEFORE INSERT ON activity
    WHEN NEW.action = 'page_updated' AND NEW.workspace_id = '${o.wsId}' BEGIN SELECT RAISE(ABORT, 'refused by test'); END`);
  const bus = recordBus(server, o.wsId);
  const r = await o.client.patch(`${o.base}/src/one`, { new_path: "dst/deep/one" });
  bus.stop();
  admin.run("DROP TRIGGER refuse_link_update");

  expect(r.status).toBe(500);
  expect(state(files)).toEqual(before);
  expect(before.files["dst/deep/one.md"]).toBeNull();
  expect(existsSync(join(o.dir, "dst"))).toBe(false);
  expect(bus.events).toEqual([]);
  expect((await o.client.get(`${o.base}/src/one`)).body.page_id).toBe(page.body.page_id);
  expect((await o.client.get(`${o.base}/dst/deep/one`)).status).toBe(404);

  const moved = await o.client.patch(`${o.base}/src/one`, { new_path: "dst/deep/one" });
  expect(moved.status).toBe(200);
  expect(readFileSync(join(o.dir, "home.md"), "utf8")).toEndWith("See [one](dst/deep/one.md) and [[dst/deep/one]].\n");
  expect(existsSync(join(o.dir, "src"))).toBe(false);
});

test("an update whose transaction fails leaves the file byte for byte, the record and the hash as they were", async () => {
  const page = await o.client.post(`${o.base}/keep/edited`, { title: "Edited", body: "First text.\n" });
  expect(page.status).toBe(201);
  const before = state(["keep/edited.md"]);
  admin.run(`CREATE TRIGGER refuse_update BEFORE UPDATE OF content_hash ON pages
    WHEN OLD.id = '${page.body.page_id}' BEGIN SELECT RAISE(ABORT, 'refused by test'); END`);
  const bus = recordBus(server, o.wsId);
  const r = await o.client.put(`${o.base}/keep/edited`, { body: "Second text.\n", lastKnownHash: page.body.content_hash });
  bus.stop();
  admin.run("DROP TRIGGER refuse_update");

  expect(r.status).toBe(500);
  expect(state(["keep/edited.md"])).toEqual(before);
  expect(bus.events).toEqual([]);
  expect(bus.changes).toEqual([]);
  // The hash the person holds is still the current one: the same save goes through now.
  const retry = await o.client.put(`${o.base}/keep/edited`, { body: "Second text.\n", lastKnownHash: page.body.content_hash });
  expect(retry.status).toBe(200);
  expect(readFileSync(join(o.dir, "keep/edited.md"), "utf8")).toEndWith("Second text.\n");
});
