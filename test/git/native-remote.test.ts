/**
 * The native git path (the one SSH remotes take): `quire init --git-url` with a bare repository
 * on a local path, then a server over that data directory pushing and pulling with the git
 * command; and polling, which pulls without any webhook.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { startTestServer, tempDir, type TestServer } from "../helpers/server.ts";
import { registerUser, type TestUser } from "../helpers/factories.ts";
import { IdeClone, createLocalBareRemote, startGitHttpRemote, type BareRemote } from "../helpers/git-remote.ts";
import { initWorkspace } from "../../src/commands/init.ts";
import { sshCommand } from "../../src/git/native-git.ts";
import { GIT_ENV, createFromRemote, row, settled, waitFor } from "./support.ts";

describe("init --git-url with a local bare repository (native git)", () => {
  let bare: BareRemote;
  let dataDir: string;
  let server: TestServer;
  let workspaceId: string;
  beforeAll(async () => {
    bare = await createLocalBareRemote({ branch: "main" });
    dataDir = join(tempDir(), "data");
    const { workspace, result } = await initWorkspace({ name: "Native", slug: "native", gitUrl: bare.url, branch: "main", dataDir });
    workspaceId = workspace.id;
    expect(result.inserted).toBe(2);
    expect(workspace.sync_status).toBe("ahead"); // ids were added: the server pushes them
    server = await startTestServer(GIT_ENV, { dataDir });
  });
  afterAll(async () => {
    await server.close();
    await bare.close();
  });

  test("the server pushes what init committed, then web edits, with the git command", async () => {
    await waitFor(() => row(server, workspaceId).sync_status === "synced", 5000, "first sync");
    expect((await bare.log()).map((c) => c.subject)).toEqual(["Add page ids via Quire", "Initial commit"]);
    expect(await bare.show("index.md")).toMatch(/^---\nid: [0-9A-Z]{26}\ntitle: Home/);

    // The default organization's workspace: the instance's first user takes that organization over
    // as Super Admin (docs/decisions/default-organization.md), so registering is enough to edit it.
    const owner = await registerUser(server.url, { name: "Native Editor", email: "native@example.test" });
    const org = server.services.db.query<any, [string]>("SELECT org_id FROM workspaces WHERE id = ?").get(workspaceId).org_id;
    expect(server.services.db.query<any, [string, string]>("SELECT role FROM org_members WHERE org_id = ? AND user_id = ?").get(org, owner.id)).toEqual({ role: "super_admin" });
    const read = await owner.client.get("/api/v1/content/native/index.md");
    expect(read.status).toBe(200);
    const put = await owner.client.put("/api/v1/content/native/index.md", { body: "Native edit\n", lastKnownHash: read.body.content_hash });
    expect(put.status).toBe(200);
    await settled(server);
    expect((await bare.log())[0]).toMatchObject({ subject: "Update index.md via web editor", author_name: "Native Editor", author_email: "native@example.test" });

    const ide = await IdeClone.clone(bare.url);
    try {
      ide.writeFile("from-ide.md", "---\ntitle: From the IDE\n---\n\nPushed to a path.\n");
      await ide.commit("IDE page");
      await ide.push();
      const sync = await owner.client.post(`/api/v1/workspaces/${workspaceId}/sync`, {});
      expect(sync.body).toMatchObject({ status: "completed", changes: { added: 1, updated: 0, deleted: 0 } });
      expect((await owner.client.get("/api/v1/content/native/from-ide.md")).body.content).toBe("Pushed to a path.\n");
    } finally {
      await ide.close();
    }
  });

  test("init refuses a path that is not a repository and leaves nothing", async () => {
    const dir = join(tempDir(), "data");
    try {
      await expect(initWorkspace({ name: "X", slug: "x", gitUrl: "/nonexistent/repo.git", dataDir: dir })).rejects.toThrow("--git-url");
      const { Database } = await import("bun:sqlite");
      const db = new Database(join(dir, "quire.db"), { readonly: true });
      expect(db.query("SELECT COUNT(*) AS n FROM workspaces").get()).toEqual({ n: 0 });
      db.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("SSH remotes are driven with strict host key checking and the configured key", () => {
    expect(sshCommand({})).toContain("StrictHostKeyChecking=yes");
    const cmd = sshCommand({ keyPath: "/keys/id ed25519", knownHosts: "/keys/known_hosts" });
    expect(cmd).toContain("-i '/keys/id ed25519'");
    expect(cmd).toContain("UserKnownHostsFile='/keys/known_hosts'");
    expect(cmd).toContain("BatchMode=yes");
  });
});

describe("polling", () => {
  let server: TestServer;
  let owner: TestUser;
  beforeAll(async () => {
    server = await startTestServer(GIT_ENV);
    owner = await registerUser(server.url);
  });
  afterAll(() => server.close());

  test("an IDE push shows up after sync_interval seconds without any webhook", async () => {
    const remote = await startGitHttpRemote({ branch: "main" });
    try {
      const ws = (await createFromRemote(owner, "polled", remote.url)).body;
      const put = await owner.client.put(`/api/v1/workspaces/${ws.id}/admin/settings`, { sync_interval: 10 });
      expect(put.status).toBe(200);
      await settled(server);
      const ide = await IdeClone.clone(remote.url);
      try {
        ide.writeFile("polled.md", "---\ntitle: Polled\n---\n\nArrived by polling.\n");
        await ide.commit("Polled page");
        await ide.push();
      } finally {
        await ide.close();
      }
      const pushedAt = Date.now();
      // Watch the record (polling the API this often would meet its rate limit), then read it.
      await waitFor(() => server.services.ledger.records.live(ws.id, "polled.md"), 14_000, "the polled page");
      const page = await owner.client.get(`/api/v1/content/polled/polled.md`);
      expect(page.body.content).toBe("Arrived by polling.\n");
      expect(Date.now() - pushedAt).toBeLessThan(13_000);
    } finally {
      await remote.close();
    }
  }, 20_000);
});
