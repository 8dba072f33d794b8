/**
 * Page history end to end with real git: saves from the web, the API and MCP, pushes from an IDE
 * clone with their own author, a rename pushed from git, restore (one commit, one file), the
 * trash a day later, and the bad input of issue 18.
 */
import { afterAll, beforeAll, describe, expect, setSystemTime, test, setDefaultTimeout } from "bun:test";
import { Client } from "../helpers/client.ts";
import { git } from "../helpers/git-remote.ts";
import { registerUser, type TestUser } from "../helpers/factories.ts";
import { createKey, httpClient, ok, refused, type McpClient } from "../mcp/fixture.ts";
import { remoteWorkspace, settled, type RemoteWorkspace } from "../git/support.ts";

setDefaultTimeout(30_000);

let rw: RemoteWorkspace;
let api: Client;
let mcp: McpClient;
let base: string;
const idle = async () => {
  await settled(rw.server);
  await rw.server.services.versionIndex.idle(rw.ws.id);
};
const pull = async () => {
  await rw.server.services.gitSync.trigger(rw.ws.id, { reason: "manual" });
  await idle();
};
const history = async (path: string, extra = "") => (await rw.owner.client.get(`${base}/history?path=${encodeURIComponent(path)}${extra}`)).body;
const read = async (path: string) => (await rw.owner.client.get(`/api/v1/content/${rw.ws.slug}/${path}`)).body;
const save = async (client: Client, path: string, body: string) => {
  const page = await read(path);
  const res = await client.put(`/api/v1/content/${rw.ws.slug}/${path}`, { body, lastKnownHash: page.content_hash });
  expect(res.status).toBe(200);
  return res.body;
};

beforeAll(async () => {
  rw = await remoteWorkspace("history");
  base = `/api/v1/workspaces/${rw.ws.id}`;
  const key = (await createKey(rw.owner, ["read", "write", "delete"])).key;
  api = new Client(rw.server.url).withToken(key);
  mcp = await httpClient(`${rw.server.url}/mcp`, key);
  await idle();
});
afterAll(async () => {
  await mcp?.close();
  await rw?.close();
});

describe("versions from every channel", () => {
  test("web, API and MCP saves are listed newest first with their channel, author and line counts", async () => {
    await save(rw.owner.client, "index.md", "# Home\n\nFrom the browser.\n");
    await save(api, "index.md", "# Home\n\nFrom the API.\nA second line.\n");
    const page = await read("index.md");
    await ok(mcp, "quire_update_page", { workspace: rw.ws.slug, path: "index.md", last_known_hash: page.content_hash, edits: [{ find: "A second line.", replace: "A line from an agent." }] });
    await idle();
    const h = await history("index.md");
    expect(h.git).toBe(true);
    expect(h.items.slice(0, 3).map((v: any) => v.channel)).toEqual(["mcp", "api", "web"]);
    for (const v of h.items.slice(0, 3)) {
      expect(v.author).toEqual({ name: "Grace Hopper", email: "grace@example.test", user_id: rw.owner.id });
      expect(v.page_id).toBe(page.page_id);
      expect(v.commit).toMatch(/^[0-9a-f]{40}$/);
    }
    expect(h.items[0]).toMatchObject({ added: 1, removed: 1, change: "modified" });
    // The oldest versions: the remote's own commit and the ids Quire added on clone.
    expect(h.items.map((v: any) => v.channel)).toContain("import");
    expect(h.items.at(-1).channel).toBe("git");
  });

  test("a push from a second clone appears with its own author (matched to a member by email when one exists)", async () => {
    await rw.ide.git(["pull", "--quiet", "origin", "main"]);
    const text = rw.ide.readFile("index.md")!;
    rw.ide.writeFile("index.md", text + "\nFrom the IDE.\n");
    await rw.ide.commit("Tweak home", { name: "Ide Person", email: "ide@example.test" });
    rw.ide.writeFile("index.md", text + "\nFrom the IDE.\nAnd Grace's laptop.\n");
    await rw.ide.commit("Grace from her laptop", { name: "Grace H", email: "GRACE@example.test" });
    await rw.ide.push();
    await pull();
    const h = await history("index.md");
    expect(h.items[0]).toMatchObject({ channel: "git", message: "Grace from her laptop", author: { name: "Grace H", user_id: rw.owner.id }, added: 1, removed: 0 });
    expect(h.items[1]).toMatchObject({ channel: "git", message: "Tweak home", author: { name: "Ide Person", email: "ide@example.test", user_id: null } });
  });

  test("a rename pushed from git keeps one history, the rename an entry of its own", async () => {
    const before = await read("guide/getting-started.md");
    const older = (await history("guide/getting-started.md")).items.length;
    await rw.ide.git(["pull", "--quiet", "origin", "main"]);
    rw.ide.mv("guide/getting-started.md", "guide/first-steps.md");
    await rw.ide.commit("Rename the guide");
    await rw.ide.push();
    await pull();
    const h = await history("guide/first-steps.md");
    expect(h.items[0]).toMatchObject({ change: "renamed", old_path: "guide/getting-started.md", path: "guide/first-steps.md", page_id: before.page_id, channel: "git" });
    expect(h.items.length).toBe(older + 1);
    // A move in Quire continues the same history.
    const moved = await rw.owner.client.patch(`/api/v1/content/${rw.ws.slug}/guide/first-steps.md`, { new_path: "guide/start.md" });
    expect(moved.status).toBe(200);
    await idle();
    const again = await history("guide/start.md");
    expect(again.items[0]).toMatchObject({ change: "renamed", old_path: "guide/first-steps.md", channel: "web" });
    expect(again.items.length).toBe(older + 2);
  });
});

describe("version, diff and restore", () => {
  test("a version's content, and a diff listing frontmatter changes as fields", async () => {
    await save(rw.owner.client, "index.md", "# Home\n\nFirst.\n");
    const page = await read("index.md");
    const fm = await rw.owner.client.put(`/api/v1/content/${rw.ws.slug}/index.md`, { body: "# Home\n\nSecond.\n", frontmatter: { title: "Start", tags: ["a"] }, lastKnownHash: page.content_hash });
    expect(fm.status).toBe(200);
    await idle();
    const [newest, older] = (await history("index.md")).items;
    const v = await rw.owner.client.get(`${base}/history/version?path=index.md&commit=${older.commit}`);
    expect(v.status).toBe(200);
    expect(v.body).toMatchObject({ commit: older.commit, path: "index.md", valid_utf8: true });
    expect(v.body.content).toStartWith(`---\nid: ${page.page_id}\n`);
    expect(v.body.content).toEndWith("First.\n");
    const d = await rw.owner.client.get(`${base}/history/diff?path=index.md&from=${older.commit}&to=${newest.commit}&words=true`);
    expect(d.status).toBe(200);
    expect(d.body.unified).toContain("-First.");
    expect(d.body.unified).toContain("+Second.");
    expect(d.body.frontmatter_changes).toEqual(expect.arrayContaining([{ field: "title", before: "Home", after: "Start" }, { field: "tags", before: null, after: ["a"] }]));
    expect(d.body.words.length).toBeGreaterThan(0);
    // Against the current file by default.
    const cur = await rw.owner.client.get(`${base}/history/diff?path=index.md&from=${older.commit}`);
    expect(cur.body.to).toBe("current");
    expect(cur.body.unified).toBe(d.body.unified.replace(`\t${newest.commit.slice(0, 12)}`, "\tcurrent"));
  });

  test("restore makes exactly one commit, by the restorer, whose tree differs only in that file", async () => {
    const page = await read("index.md");
    const [, older] = (await history("index.md")).items;
    const dir = rw.dir;
    const headBefore = (await git(["rev-parse", "HEAD"], { cwd: dir })).trim();
    const res = await rw.owner.client.post(`${base}/history/restore`, { path: "index.md", commit: older.commit, last_known_hash: page.content_hash });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ page_id: page.page_id, path: "index.md", title: "Home" });
    expect(res.body.content).toContain("First.");
    await idle();
    const log = (await git(["log", "--format=%H %an <%ae> %s", `${headBefore}..HEAD`], { cwd: dir })).trim().split("\n");
    expect(log).toHaveLength(1);
    expect(log[0]).toContain(`Grace Hopper <grace@example.test> Restore index.md to version ${older.commit.slice(0, 12)} via web editor`);
    expect((await git(["diff", "--name-only", headBefore, "HEAD"], { cwd: dir })).trim()).toBe("index.md");
    // The restored file is the version's text exactly.
    const v = await rw.owner.client.get(`${base}/history/version?path=index.md&commit=${older.commit}`);
    expect((await git(["show", "HEAD:index.md"], { cwd: dir }))).toBe(v.body.content);
    expect((await history("index.md")).items[0]).toMatchObject({ channel: "restore", author: { user_id: rw.owner.id } });
  });

  test("a stale last_known_hash is 409 with the current hash, and nothing is written", async () => {
    const page = await read("index.md");
    const [, older] = (await history("index.md")).items;
    await save(rw.owner.client, "index.md", "# Home\n\nMeanwhile.\n");
    const res = await rw.owner.client.post(`${base}/history/restore`, { path: "index.md", commit: older.commit, last_known_hash: page.content_hash });
    expect(res.status).toBe(409);
    expect(res.body.current_hash).toBe((await read("index.md")).content_hash);
    expect((await read("index.md")).content).toContain("Meanwhile.");
  });

  test("MCP: history, a version through quire_read_page, a diff, and a hash-checked restore", async () => {
    const h = await ok(mcp, "quire_page_history", { workspace: rw.ws.slug, path: "/index", limit: 2 });
    expect(h.items).toHaveLength(2);
    expect(h.next_cursor).toBeString();
    const older = h.items[1];
    const v = await ok(mcp, "quire_read_page", { workspace: rw.ws.slug, path: "index.md", version: older.commit });
    expect(v.version).toBe(older.commit);
    const d = await ok(mcp, "quire_diff", { workspace: rw.ws.slug, path: "index.md", from: older.commit });
    expect(d.to).toBe("current");
    const stale = await refused(mcp, "quire_restore_page", { workspace: rw.ws.slug, path: "index.md", commit: older.commit, last_known_hash: `sha256:${"0".repeat(64)}` });
    expect(stale).toContain("current_hash");
    const page = await read("index.md");
    const restored = await ok(mcp, "quire_restore_page", { workspace: rw.ws.slug, path: "index.md", commit: older.commit, last_known_hash: page.content_hash });
    expect(restored.page_id).toBe(page.page_id);
    await idle();
    expect((await history("index.md")).items[0]).toMatchObject({ channel: "restore", message: expect.stringContaining("via MCP") });
  });
});

describe("trash", () => {
  test("a page deleted 25 hours ago (its record purged) is listed and restored with its id at its old path, its comments with it", async () => {
    const made = await rw.owner.client.post(`/api/v1/content/${rw.ws.slug}/notes/old.md`, { title: "Old notes", body: "Keep me.\n" });
    expect(made.status).toBe(201);
    const comment = await rw.owner.client.post(`${base}/comments`, { page_path: "notes/old.md", body: "A thread worth keeping." });
    expect(comment.status).toBe(201);
    await idle();
    expect((await rw.owner.client.delete(`/api/v1/content/${rw.ws.slug}/notes/old.md`)).status).toBe(204);
    await idle();
    const listed = (await rw.owner.client.get(`${base}/trash`)).body.items.find((i: any) => i.page_id === made.body.page_id);
    expect(listed).toMatchObject({ trash_id: made.body.page_id, path: "notes/old.md", title: "Old notes", deleted_by: "Grace Hopper", source: "ledger" });
    setSystemTime(new Date(Date.now() + 25 * 3600 * 1000));
    try {
      rw.server.services.ledger.records.purgeDeleted(rw.ws.id, new Date(Date.now() - 24 * 3600 * 1000).toISOString());
      expect(rw.server.services.ledger.records.byId(made.body.page_id)).toBeNull();
      // Session tokens have expired a day later; the API key has not.
      const later = (await api.get(`${base}/trash`)).body.items.find((i: any) => i.page_id === made.body.page_id);
      expect(later).toMatchObject({ trash_id: made.body.page_id, path: "notes/old.md", source: "git", deleted_by: "Grace Hopper" });
    } finally {
      // Back to the real clock before restoring: a commit dated a day ahead would sort after every
      // later commit of this file's other tests.
      setSystemTime();
    }
    const back = await api.post(`${base}/trash/restore`, { trash_id: made.body.page_id });
    expect(back.status).toBe(200);
    expect(back.body).toMatchObject({ page_id: made.body.page_id, path: "notes/old.md", title: "Old notes" });
    expect(back.body.content).toContain("Keep me.");
    await idle();
    const thread = (await rw.owner.client.get(`${base}/comments?page=notes/old.md`)).body.items;
    expect(thread.map((c: any) => [c.id, c.body])).toEqual([[comment.body.id, "A thread worth keeping."]]);
    expect((await rw.owner.client.get(`${base}/trash`)).body.items.find((i: any) => i.page_id === made.body.page_id)).toBeUndefined();
    expect((await history("notes/old.md")).items.map((v: any) => v.change)).toEqual(["added", "deleted", "added"]);
  });

  test("a page deleted by a push is in the trash; deleted and recreated at its path, it comes back beside it", async () => {
    const made = await rw.owner.client.post(`/api/v1/content/${rw.ws.slug}/pushed.md`, { title: "Pushed away", body: "Text.\n" });
    await idle();
    await rw.ide.git(["pull", "--quiet", "origin", "main"]);
    rw.ide.rm("pushed.md");
    await rw.ide.commit("Remove pushed.md", { name: "Ide Person", email: "ide@example.test" });
    await rw.ide.push();
    await pull();
    const entry = (await rw.owner.client.get(`${base}/trash`)).body.items.find((i: any) => i.page_id === made.body.page_id);
    expect(entry).toBeDefined();
    const again = await rw.owner.client.post(`/api/v1/content/${rw.ws.slug}/pushed.md`, { title: "A new page", body: "New.\n" });
    expect(again.body.page_id).not.toBe(made.body.page_id);
    const back = await rw.owner.client.post(`${base}/trash/restore`, { trash_id: made.body.page_id });
    expect(back.status).toBe(200);
    expect(back.body).toMatchObject({ page_id: made.body.page_id, path: "pushed-restored.md", title: "Pushed away" });
    const taken = await rw.owner.client.post(`${base}/trash/restore`, { trash_id: made.body.page_id, path: "elsewhere.md" });
    expect(taken.status).toBe(409); // it is not in the trash any more
  });
});

describe("bad input", () => {
  let other: TestUser;
  let viewer: TestUser;
  beforeAll(async () => {
    other = await registerUser(rw.server.url, { name: "Other", email: "other@example.test" });
    viewer = await registerUser(rw.server.url, { name: "Viewer", email: "viewer@example.test" });
    rw.server.services.db.query("INSERT INTO workspace_members (workspace_id, user_id, role, joined_at) VALUES (?, ?, 'viewer', ?)").run(rw.ws.id, viewer.id, new Date().toISOString());
    await rw.server.services.versionIndex.catchUp(other.workspaceId);
    await rw.server.services.versionIndex.idle(other.workspaceId);
  });

  test("a commit that does not exist, is another page's, or another workspace's is 404 naming nothing", async () => {
    const mine = (await history("index.md")).items[0].commit;
    const guide = (await history("guide/start.md")).items[0].commit;
    const otherWs = (await other.client.get(`/api/v1/workspaces/${other.workspaceId}/history?path=welcome.md`)).body.items[0].commit;
    for (const commit of ["0123456789abcdef0123456789abcdef01234567", guide, otherWs]) {
      const v = await rw.owner.client.get(`${base}/history/version?path=index.md&commit=${commit}`);
      expect(v.status).toBe(404);
      expect(v.body).toMatchObject({ error: "NOT_FOUND", message: "Version not found" });
      const d = await rw.owner.client.get(`${base}/history/diff?path=index.md&from=${commit}`);
      expect(d.status).toBe(404);
    }
    // The owner of the other workspace cannot read this one's history at all.
    expect((await other.client.get(`${base}/history?path=index.md`)).status).toBe(404);
    expect((await other.client.get(`/api/v1/workspaces/${other.workspaceId}/history/version?path=welcome.md&commit=${mine}`)).status).toBe(404);
  });

  test("malformed input is 400 naming the field", async () => {
    for (const [url, field] of [
      [`${base}/history/version?path=index.md&commit=xyz`, "commit"],
      [`${base}/history?path=../x.md`, "path"],
      [`${base}/history?path=index.md&limit=0`, "limit"],
      [`${base}/history?path=index.md&cursor=nope`, "cursor"],
      [`${base}/changes?since=yesterday`, "since"],
    ] as const) {
      const res = await rw.owner.client.get(url);
      expect(res.status, url).toBe(400);
      expect(res.body.error).toBe("VALIDATION_ERROR");
      expect(JSON.stringify(res.body)).toContain(field);
    }
    const body = await rw.owner.client.post(`${base}/history/restore`, { path: "index.md", commit: "abcdef1" });
    expect(body.status).toBe(400);
  });

  test("viewers read history but cannot restore", async () => {
    expect((await viewer.client.get(`${base}/history?path=index.md`)).status).toBe(200);
    const page = await read("index.md");
    const older = (await history("index.md")).items[1].commit;
    const res = await viewer.client.post(`${base}/history/restore`, { path: "index.md", commit: older, last_known_hash: page.content_hash });
    expect(res.status).toBe(403);
  });

  test("a long history pages to the end by cursor without repeats", async () => {
    for (let i = 0; i < 12; i++) await save(rw.owner.client, "index.md", `# Home\n\nEdit ${i}.\n`);
    await idle();
    const all = (await history("index.md", "&limit=100")).items.map((v: any) => v.commit);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: any = await history("index.md", `&limit=5${cursor ? `&cursor=${cursor}` : ""}`);
      seen.push(...page.items.map((v: any) => v.commit));
      cursor = page.next_cursor;
    } while (cursor);
    expect(seen).toEqual(all);
    expect(new Set(seen).size).toBe(seen.length);
  });

  test("workspace changes since a date or a commit", async () => {
    const h = (await history("index.md")).items;
    const since = h[3].commit;
    const res = await rw.owner.client.get(`${base}/changes?since=${since}`);
    expect(res.status).toBe(200);
    expect(res.body.items.map((c: any) => c.commit)).toEqual(h.slice(0, 3).map((v: any) => v.commit));
    // The link is the change's own diff: the version before it → this commit (read before
    // toMatchObject, which leaves its matcher in the object it was given).
    const link = res.body.items[0].diff;
    expect(res.body.items[0]).toMatchObject({ change: "edited", path: "index.md", diff: expect.stringContaining("/history/diff?path=index.md&from=") });
    expect(link).toBe(`${base}/history/diff?path=index.md&from=${h[1].commit}&to=${h[0].commit}`);
    const own = await rw.owner.client.get(link);
    expect(own.status).toBe(200);
    expect([own.body.from, own.body.to]).toEqual([h[1].commit, h[0].commit]);
    const byDate = await rw.owner.client.get(`${base}/changes?since=2000-01-01T00:00:00Z&limit=100`);
    expect(byDate.body.items.map((c: any) => c.change)).toEqual(expect.arrayContaining(["created", "edited", "moved", "deleted"]));
  });
});

describe("blame", () => {
  test("each line of a page renamed by a push and edited from two channels names the version that wrote it", async () => {
    const create = await rw.owner.client.post(`/api/v1/content/${rw.ws.slug}/notes/blamed.md`, { title: "Blamed", body: "first line\nsecond line\n" });
    expect(create.status).toBe(201);
    await save(api, "notes/blamed.md", "first line\nsecond line, from the API\nthird line\n");
    await idle();
    await rw.ide.git(["pull", "--quiet", "origin", "main"]);
    rw.ide.mv("notes/blamed.md", "notes/renamed.md");
    await rw.ide.commit("Rename the notes", { name: "Ide Person", email: "ide@example.test" });
    await rw.ide.push();
    await pull();
    const h = (await history("notes/renamed.md")).items;
    const res = await rw.owner.client.get(`${base}/history/blame?path=notes/renamed.md`);
    expect(res.status).toBe(200);
    expect(res.body.truncated).toBe(false);
    const byLine = (n: number) => res.body.ranges.find((r: any) => n >= r.start && n < r.start + r.count).commit;
    const lines = rw.ide.readFile("notes/renamed.md")!.split("\n");
    const at = (text: string) => lines.findIndex((l: string) => l === text) + 1;
    const created = h.find((v: any) => v.change === "added").commit;
    const apiSave = h.find((v: any) => v.channel === "api").commit;
    expect(byLine(at("first line"))).toBe(created);
    expect(byLine(at("second line, from the API"))).toBe(apiSave);
    expect(byLine(at("third line"))).toBe(apiSave);
    // Every commit a range names is described once, with its author and channel.
    const named = new Set(res.body.ranges.map((r: any) => r.commit));
    expect(new Set(res.body.commits.map((c: any) => c.commit))).toEqual(named);
    expect(res.body.commits.find((c: any) => c.commit === apiSave)).toMatchObject({ channel: "api", author: { user_id: rw.owner.id } });
  });

  test("a page that does not exist is 404 and a bad path 400; someone outside the workspace sees 404", async () => {
    const missing = await rw.owner.client.get(`${base}/history/blame?path=notes/nowhere.md`);
    expect(missing.status).toBe(404);
    expect(missing.body).toMatchObject({ error: "NOT_FOUND", message: "Page not found" });
    const stranger = await registerUser(rw.server.url, { name: "Stranger", email: "stranger@example.test" });
    const hidden = await stranger.client.get(`${base}/history/blame?path=notes/renamed.md`);
    expect(hidden.status).toBe(404);
    const bad = await rw.owner.client.get(`${base}/history/blame?path=../etc/passwd`);
    expect(bad.status).toBe(400);
  });
});

