/**
 * What happens when the remote is not there, or not allowed: local editing goes on, the status
 * says error, and the next attempt pushes what waited. Private addresses are refused unless the
 * operator allows them; the manifests merge line-wise.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { registerUser, type TestUser } from "../helpers/factories.ts";
import { startGitHttpRemote, type GitHttpRemote } from "../helpers/git-remote.ts";
import { isPrivateAddress } from "../../src/git/remote-url.ts";
import { mergeLines } from "../../src/git/line-merge.ts";
import { GIT_ENV, createFromRemote, row, settled } from "./support.ts";

let server: TestServer;
let owner: TestUser;
let remote: GitHttpRemote;
beforeAll(async () => {
  server = await startTestServer(GIT_ENV);
  owner = await registerUser(server.url, { name: "Linus", email: "linus@example.test" });
  remote = await startGitHttpRemote({ branch: "main" });
});
afterAll(async () => {
  await server.close();
  await remote.close();
});

describe("an unreachable remote", () => {
  test("never blocks local edits; status error; the next attempt pushes everything that waited", async () => {
    const ws = (await createFromRemote(owner, "offline", remote.url)).body;
    await settled(server);
    const setRemote = (url: string) => server.services.db.query("UPDATE workspaces SET git_remote = ? WHERE id = ?").run(url, ws.id);
    setRemote("http://127.0.0.1:9/gone.git"); // the network goes away

    const started = performance.now();
    const created = await owner.client.post(`/api/v1/content/${ws.slug}/offline-1`, { title: "Offline one", body: "written offline" });
    expect(created.status).toBe(201);
    const read = await owner.client.get(`/api/v1/content/${ws.slug}/index.md`);
    const put = await owner.client.put(`/api/v1/content/${ws.slug}/index.md`, { body: "Edited offline\n", lastKnownHash: read.body.content_hash });
    expect(put.status).toBe(200);
    expect(performance.now() - started).toBeLessThan(1000);
    await settled(server);
    expect(row(server, ws.id).sync_status).toBe("error");
    expect(server.services.gitSync.lastError(ws.id)).toContain("could not be reached");

    const manual = await owner.client.post(`/api/v1/workspaces/${ws.id}/sync`, {});
    expect(manual.status).toBe(200);
    expect(manual.body.status).toBe("failed");
    expect(manual.body.error).toContain("could not be reached");
    expect(await remote.show("offline-1.md")).toBeNull();

    setRemote(remote.url); // back online: the next sync pushes both waiting commits
    const again = await owner.client.post(`/api/v1/workspaces/${ws.id}/sync`, {});
    expect(again.body).toMatchObject({ status: "completed" });
    expect(row(server, ws.id).sync_status).toBe("synced");
    expect(await remote.show("offline-1.md")).toContain("written offline");
    expect(await remote.show("index.md")).toContain("Edited offline");
    const subjects = (await remote.log()).map((c) => c.subject);
    expect(subjects.slice(0, 2)).toEqual(["Update index.md via web editor", "Create offline-1.md via web editor"]);
  });

  test("credentials in the remote URL are used, never shown, never logged", async () => {
    const secured = await startGitHttpRemote({ branch: "main", auth: { username: "bot", token: "tok-s3cret-value" } });
    try {
      const r = await createFromRemote(owner, "secured", secured.authUrl);
      expect(r.status).toBe(201);
      expect(r.body.git_remote).toBe(secured.url);
      expect(JSON.stringify(r.body)).not.toContain("tok-s3cret-value");
      const settings = await owner.client.get(`/api/v1/workspaces/${r.body.id}/admin/settings`);
      expect(settings.body.git_remote).toBe(secured.url);
      const page = await owner.client.get(`/api/v1/content/secured/index.md`);
      expect(page.status).toBe(200);
      // A wrong token: the clone is refused for the right reason, and the token is nowhere.
      const wrong = secured.authUrl.replace("tok-s3cret-value", "wrong-token-value");
      const refused = await createFromRemote(owner, "refused", wrong);
      expect(refused.status).toBe(400);
      expect(refused.body.details.reason).toBe("auth");
      expect(JSON.stringify(refused.body)).not.toContain("wrong-token-value");
      await settled(server);
      expect(server.logs.join("\n")).not.toContain("tok-s3cret-value");
      expect(server.logs.join("\n")).not.toContain("wrong-token-value");
    } finally {
      await secured.close();
    }
  });
});

describe("an empty remote", () => {
  test("is cloned as an empty workspace; the first save creates the branch on the remote", async () => {
    const empty = await startGitHttpRemote({ branch: "main", files: {} });
    try {
      const ws = (await createFromRemote(owner, "empty-remote", empty.url)).body;
      expect(ws.sync_status).toBe("synced");
      expect(ws.page_count).toBe(0);
      const r = await owner.client.post(`/api/v1/content/${ws.slug}/first`, { title: "First", body: "The first page." });
      expect(r.status).toBe(201);
      await settled(server);
      expect(await empty.head()).not.toBeNull();
      expect(await empty.show("first.md")).toContain("The first page.");
      expect((await empty.log()).map((c) => c.subject)).toEqual(["Create first.md via web editor"]);
    } finally {
      await empty.close();
    }
  });
});

describe("private network remotes", () => {
  test("are refused unless GIT_ALLOWLIST_PRIVATE=true, checking every resolved address", async () => {
    const strict = await startTestServer();
    try {
      const user = await registerUser(strict.url);
      for (const url of [remote.url, "http://localhost:8080/x.git", "http://[::1]:8080/x.git", "https://10.1.2.3/x.git", "https://192.168.0.10/x.git", "ssh://git@172.20.0.1/x.git"]) {
        const r = await createFromRemote(user, `p-${Math.random().toString(36).slice(2, 8)}`, url);
        expect({ url, status: r.status, reason: r.body.details?.reason }).toEqual({ url, status: 400, reason: "private_network" });
      }
      expect(strict.services.db.query<any, []>("SELECT COUNT(*) AS n FROM workspaces").get().n).toBe(1); // the starter only
    } finally {
      await strict.close();
    }
    for (const a of ["127.0.0.1", "10.0.0.1", "172.16.5.4", "172.31.255.255", "192.168.1.1", "169.254.169.254", "0.0.0.0", "::1", "fd00::1", "fe80::1", "::ffff:127.0.0.1", "100.64.0.1"]) {
      expect({ a, private: isPrivateAddress(a) }).toEqual({ a, private: true });
    }
    for (const a of ["140.82.112.3", "172.32.0.1", "8.8.8.8", "2606:4700::1111"]) {
      expect({ a, private: isPrivateAddress(a) }).toEqual({ a, private: false });
    }
  });
});

describe("manifest merge", () => {
  test("changes on different lines are both kept; overlapping changes are a conflict", () => {
    const base = "theme: default\nvisibility: authenticated\nnav:\n  - a\n  - b\n";
    const ours = "theme: forest\nvisibility: authenticated\nnav:\n  - a\n  - b\n";
    const theirs = "theme: default\nvisibility: authenticated\nnav:\n  - a\n  - b\n  - c\n";
    expect(mergeLines(base, ours, theirs)).toBe("theme: forest\nvisibility: authenticated\nnav:\n  - a\n  - b\n  - c\n");
    expect(mergeLines(base, ours, "theme: dark\nvisibility: authenticated\nnav:\n  - a\n  - b\n")).toBeNull();
    expect(mergeLines(base, ours, ours)).toBe(ours);
    expect(mergeLines("", "a: 1\n", "b: 2\n")).toBeNull(); // both created it differently
  });
});
