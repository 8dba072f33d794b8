/**
 * docs/architecture.md §5: a workspace folder that is missing or holds no Markdown while pages exist stops
 * reconciliation "and the workspace reports the error": the workspace JSON carries a `problems`
 * entry and /api/ready warns while the stop holds; a completed pass clears both. Seen over HTTP
 * across restarts (the start-up pass is the reconcile that meets the folder).
 */
import { afterAll, expect, test } from "bun:test";
import { mkdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startTestServer, tempDir, type TestServer } from "../helpers/server.ts";
import { Client } from "../helpers/client.ts";
import { registerUser } from "../helpers/factories.ts";
import { owner, type Owner } from "./support.ts";

const dataDir = tempDir();
// Only the start-up pass reconciles here, so each phase sees exactly one pass.
const ENV = { QUIRE_WATCH_FILES: "false" };
let server: TestServer | null = null;
afterAll(async () => {
  await server?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

async function restart(): Promise<TestServer> {
  await server?.close();
  server = await startTestServer(ENV, { dataDir, keepDir: true });
  return server;
}

/** The workspace as its owner sees it, once the start-up pass has run. */
async function workspaceAfterStartup(s: TestServer, o: Owner, client: Client) {
  const deadline = Date.now() + 5000;
  while (s.services.reconciler.lastResult(o.wsId) === null) {
    if (Date.now() > deadline) throw new Error("no start-up reconcile");
    await Bun.sleep(10);
  }
  const r = await client.get(`/api/v1/workspaces/${o.wsId}`);
  expect(r.status).toBe(200);
  return r.body;
}

test("a safety stop is reported by the workspace (GET one, list) and /api/ready until a pass completes", async () => {
  let s = await restart();
  const o = await owner(s);
  const stranger = await registerUser(s.url);
  const fresh = await o.client.get(`/api/v1/workspaces/${o.wsId}`);
  expect(fresh.body.problems).toEqual([]);
  const pages = fresh.body.page_count;
  expect(pages).toBeGreaterThan(0);

  // The folder disappears while the server is down.
  renameSync(o.dir, o.dir + ".away");
  s = await restart();
  let client = new Client(s.url);
  client.token = (await client.post("/api/auth/login", { email: o.email, password: o.password })).body.access_token;
  let ws = await workspaceAfterStartup(s, o, client);
  expect(ws.problems).toEqual([
    // (start-up may recreate the empty folder before the pass reads it: either message is the stop)
    { kind: "safety_stop", message: expect.stringMatching(/^The workspace folder (is missing|holds no Markdown files while pages exist); nothing was deleted$/), since: expect.stringMatching(/^\d{4}-\d\d-\d\dT.*Z$/) },
  ]);
  const since = ws.problems[0].since;
  expect(ws.page_count).toBe(pages); // nothing was deleted
  const listed = (await client.get("/api/v1/workspaces")).body.items.find((w: { id: string }) => w.id === o.wsId);
  expect(listed.problems).toEqual(ws.problems);
  const ready = await new Client(s.url).get("/api/ready");
  expect(ready.status).toBe(200); // pages are still served: a warning, not an outage
  expect(ready.body.status).toBe("ready");
  expect(ready.body.checks.workspaces).toMatchObject({ status: "warning", stopped: 1 });
  // The public endpoint names no workspace; someone without access learns nothing of it.
  expect(JSON.stringify(ready.body)).not.toContain(o.wsId);
  const strangerClient = new Client(s.url);
  strangerClient.token = (await strangerClient.post("/api/auth/login", { email: stranger.email, password: stranger.password })).body.access_token;
  expect((await strangerClient.get(`/api/v1/workspaces/${o.wsId}`)).status).toBe(404);

  // Emptied instead of missing: still stopped, with its own message and the first `since` kept.
  rmSync(o.dir, { recursive: true, force: true });
  mkdirSync(o.dir);
  writeFileSync(join(o.dir, "readme.txt"), "no markdown here");
  s = await restart();
  client = new Client(s.url);
  client.token = (await client.post("/api/auth/login", { email: o.email, password: o.password })).body.access_token;
  ws = await workspaceAfterStartup(s, o, client);
  expect(ws.problems).toEqual([
    { kind: "safety_stop", message: "The workspace folder holds no Markdown files while pages exist; nothing was deleted", since },
  ]);
  expect((await new Client(s.url).get("/api/ready")).body.checks.workspaces).toMatchObject({ status: "warning", stopped: 1 });

  // The folder comes back: the next pass completes and the report is gone.
  rmSync(o.dir, { recursive: true });
  renameSync(o.dir + ".away", o.dir);
  s = await restart();
  client = new Client(s.url);
  client.token = (await client.post("/api/auth/login", { email: o.email, password: o.password })).body.access_token;
  ws = await workspaceAfterStartup(s, o, client);
  expect(s.services.reconciler.lastResult(o.wsId)!.aborted).toBe(false);
  expect(ws.problems).toEqual([]);
  expect(ws.page_count).toBe(pages);
  expect((await new Client(s.url).get("/api/ready")).body.checks.workspaces).toEqual({ status: "ok", stopped: 0 });
}, 30_000);

test("a stopped workspace that is deleted no longer counts in /api/ready", async () => {
  let s = await restart();
  const o = await owner(s);
  rmSync(o.dir, { recursive: true });
  s = await restart();
  const client = new Client(s.url);
  client.token = (await client.post("/api/auth/login", { email: o.email, password: o.password })).body.access_token;
  expect((await workspaceAfterStartup(s, o, client)).problems).toHaveLength(1);
  const before = (await new Client(s.url).get("/api/ready")).body.checks.workspaces.stopped;
  expect(before).toBeGreaterThanOrEqual(1);
  expect((await client.delete(`/api/v1/workspaces/${o.wsId}`)).status).toBe(204);
  expect((await new Client(s.url).get("/api/ready")).body.checks.workspaces.stopped).toBe(before - 1);
}, 30_000);
