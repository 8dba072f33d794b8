/**
 * A workspace's stored HTTPS token for its remote: write-only through the API (create and settings),
 * used as the basic-auth password for clone, fetch and push, never returned and never logged.
 * Credentials written into a remote URL are not shown either.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { registerUser, type TestUser } from "../helpers/factories.ts";
import { IdeClone, startGitHttpRemote, type GitHttpRemote } from "../helpers/git-remote.ts";
import { GIT_ENV, row, settled } from "./support.ts";

const TOKEN = "glpat-Zq8xR2vT9mN4kL7wP3sY";
let server: TestServer;
let owner: TestUser;
let remote: GitHttpRemote;
beforeAll(async () => {
  server = await startTestServer(GIT_ENV);
  owner = await registerUser(server.url);
  remote = await startGitHttpRemote({ branch: "main", auth: { username: "x-access-token", token: TOKEN } });
});
afterAll(async () => {
  await remote.close();
  await server.close();
});

const create = (slug: string, extra: Record<string, unknown>) =>
  owner.client.post("/api/v1/workspaces", { name: `WS ${slug}`, slug, git_branch: "main", ...extra });
const storedToken = (id: string) =>
  server.services.db.query<{ token: string }, [string]>("SELECT token FROM workspace_git_tokens WHERE workspace_id = ?").get(id)?.token ?? null;
/** Everything a client or an operator can see: the API answers given and the server log. */
const leaks = (bodies: unknown[]) => [...bodies.map((b) => JSON.stringify(b)), ...server.logs].filter((t) => t.includes(TOKEN));

describe("stored token", () => {
  let ws: { id: string; slug: string };
  const seen: unknown[] = [];

  test("without the token the remote refuses the clone: 400 auth, nothing created", async () => {
    const r = await create("no-token", { git_remote: remote.url });
    expect(r.status).toBe(400);
    expect(r.body.details).toMatchObject({ field: "git_remote", reason: "auth" });
    expect(server.services.db.query("SELECT 1 FROM workspaces WHERE slug = 'no-token'").get()).toBeNull();
  });

  test("with git_token the clone works; answers show only git_token_set", async () => {
    const r = await create("with-token", { git_remote: remote.url, git_token: TOKEN });
    expect(r.status).toBe(201);
    ws = r.body;
    seen.push(r.body);
    expect(r.body).not.toHaveProperty("git_token");
    await settled(server);
    const page = await owner.client.get(`/api/v1/content/${ws.slug}/guide/getting-started.md`);
    expect(page.status).toBe(200);
    const settings = await owner.client.get(`/api/v1/workspaces/${ws.id}/admin/settings`);
    seen.push(settings.body);
    expect(settings.body).toMatchObject({ git_remote: remote.url, git_token_set: true });
    expect(settings.body).not.toHaveProperty("git_token");
    const get = await owner.client.get(`/api/v1/workspaces/${ws.id}`);
    const list = await owner.client.get(`/api/v1/workspaces`);
    seen.push(get.body, list.body);
    // Stored apart from the workspace row, which keeps the bare URL.
    expect(storedToken(ws.id)).toBe(TOKEN);
    expect(row(server, ws.id).git_remote).toBe(remote.url);
    expect(leaks(seen)).toEqual([]);
  });

  test("pushes and fetches authenticate with it", async () => {
    const read = await owner.client.get(`/api/v1/content/${ws.slug}/index.md`);
    const put = await owner.client.put(`/api/v1/content/${ws.slug}/index.md`, { body: "# Home\n\nPushed with a token.\n", lastKnownHash: read.body.content_hash });
    expect(put.status).toBe(200);
    await settled(server);
    expect(await remote.show("index.md")).toContain("Pushed with a token.");

    const ide = await IdeClone.clone(remote.authUrl);
    try {
      ide.writeFile("from-ide.md", "# From the IDE\n");
      await ide.commit("Add from-ide.md");
      await ide.pushWithPull();
      const sync = await owner.client.post(`/api/v1/workspaces/${ws.id}/sync`, {});
      seen.push(sync.body);
      expect(sync.body.status).not.toBe("failed");
      expect((await owner.client.get(`/api/v1/content/${ws.slug}/from-ide.md`)).status).toBe(200);
    } finally {
      await ide.close();
    }
    expect(leaks(seen)).toEqual([]);
  });

  test("cleared with null: the next sync is refused by the remote; a wrong token too; the right one again works", async () => {
    const cleared = await owner.client.put(`/api/v1/workspaces/${ws.id}/admin/settings`, { git_token: null });
    expect(cleared.status).toBe(200);
    expect(cleared.body.git_token_set).toBe(false);
    expect(storedToken(ws.id)).toBeNull();
    const refused = await owner.client.post(`/api/v1/workspaces/${ws.id}/sync`, {});
    expect(refused.body.status).toBe("failed");
    expect(row(server, ws.id).sync_status).toBe("error");

    const wrong = await owner.client.put(`/api/v1/workspaces/${ws.id}/admin/settings`, { git_token: "not-the-token" });
    expect(wrong.body.git_token_set).toBe(true);
    expect((await owner.client.post(`/api/v1/workspaces/${ws.id}/sync`, {})).body.status).toBe("failed");

    const set = await owner.client.put(`/api/v1/workspaces/${ws.id}/admin/settings`, { git_token: TOKEN });
    seen.push(set.body);
    expect(set.body).toMatchObject({ git_token_set: true });
    expect(set.body).not.toHaveProperty("git_token");
    const ok = await owner.client.post(`/api/v1/workspaces/${ws.id}/sync`, {});
    expect(ok.body.status).not.toBe("failed");
    expect(row(server, ws.id).sync_status).toBe("synced");
    expect(leaks(seen)).toEqual([]);
  });

  test("bad token values are refused with the field named; nothing changes", async () => {
    for (const bad of ["", "two words", "tab\there", 42, "x".repeat(4097)]) {
      const r = await owner.client.put(`/api/v1/workspaces/${ws.id}/admin/settings`, { git_token: bad });
      expect({ bad, status: r.status, field: r.body.details?.field }).toEqual({ bad, status: 400, field: "git_token" });
    }
    expect(storedToken(ws.id)).toBe(TOKEN);
  });

  test("only an admin can set it; a member without admin rights cannot read or change it", async () => {
    const other = await registerUser(server.url);
    const r = await other.client.put(`/api/v1/workspaces/${ws.id}/admin/settings`, { git_token: "stolen" });
    expect(r.status).toBe(404);
    expect(storedToken(ws.id)).toBe(TOKEN);
  });
});

test("credentials written into the remote URL work and are shown nowhere", async () => {
  const r = await create("url-creds", { git_remote: remote.authUrl });
  expect(r.status).toBe(201);
  await settled(server);
  expect(r.body.git_remote).toBe(remote.url);
  const settings = await owner.client.get(`/api/v1/workspaces/${r.body.id}/admin/settings`);
  expect(settings.body).toMatchObject({ git_remote: remote.url, git_token_set: false });
  const get = await owner.client.get(`/api/v1/workspaces/${r.body.id}`);
  expect(get.body.git_remote).toBe(remote.url);
  expect(leaks([r.body, settings.body, get.body])).toEqual([]);
});
