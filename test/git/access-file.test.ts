/**
 * `.quire/access.yaml` through git against a real smart-HTTP remote on loopback
 * (docs/decisions/restricted-folders.md): a restriction set in Quire is committed as the admin who
 * set it and pushed; a file pushed from an IDE that widens a rule, or is not YAML, is refused in the
 * sync status and the last valid rules stay in force; a valid one is applied and audited.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { registerUser, type TestUser } from "../helpers/factories.ts";
import { IdeClone, startGitHttpRemote, type GitHttpRemote } from "../helpers/git-remote.ts";
import { memberWithRole } from "../access/support.ts";
import { GIT_ENV, createFromRemote, row, settled } from "./support.ts";

let server: TestServer;
let owner: TestUser;
let ana: TestUser;
let bob: TestUser;
let remote: GitHttpRemote;
let ide: IdeClone;
let ws: { id: string; slug: string };

beforeAll(async () => {
  server = await startTestServer(GIT_ENV);
  owner = await registerUser(server.url, { name: "Ada Admin", email: "ada.admin@example.test" });
  remote = await startGitHttpRemote({ branch: "main" });
  const r = await createFromRemote(owner, "restricted", remote.url);
  expect(r.status).toBe(201);
  ws = r.body;
  ana = await memberWithRole(server, owner, ws.id, "editor");
  bob = await memberWithRole(server, owner, ws.id, "editor");
  expect((await owner.client.post(`/api/v1/content/${ws.slug}/hr/salaries.md`, { title: "Salaries", body: "Bands." })).status).toBe(201);
  await settled(server);
});
afterAll(async () => {
  await ide?.close();
  await remote?.close();
  await server.close();
});

const access = `/api/v1/workspaces/{id}/access`;
const rules = async () => (await owner.client.get(access.replace("{id}", ws.id))).body;
const bobReads = async () => (await bob.client.get(`/api/v1/content/${ws.slug}/hr/salaries.md`)).status;

test("with a remote, a restriction needs the admin to confirm the remote is private; then it is committed and pushed", async () => {
  const url = access.replace("{id}", ws.id);
  const body = { path: "hr/", entries: [{ who: ana.email, level: "edit" }] };
  const unconfirmed = await owner.client.put(url, body);
  expect(unconfirmed.status).toBe(400);
  expect(unconfirmed.body.details.field).toBe("confirm_private_remote");
  expect(unconfirmed.body.message).toContain("Anyone who can clone");
  expect(await bobReads()).toBe(200);
  expect((await owner.client.put(url, { ...body, confirm_private_remote: true })).status).toBe(200);
  expect(await bobReads()).toBe(404);
  await settled(server);
  const [top] = await remote.log();
  expect(top).toMatchObject({ subject: "Update .quire/access.yaml via Quire", author_name: "Ada Admin", author_email: "ada.admin@example.test" });
  expect(await remote.show(".quire/access.yaml")).toContain(`hr/:\n    - { who: ${ana.email.toLowerCase()}, level: edit }`);
});

test("a widening or broken file pushed from an IDE is refused in the sync status; the last rules stay", async () => {
  ide = await IdeClone.clone(remote.url);
  const before = (await rules()).restricted;
  for (const [text, why] of [
    [`restricted:\n  hr/:\n    - { who: ${ana.email}, level: edit }\n  hr/policies/:\n    - { who: ${bob.email}, level: edit }\n`, "can only narrow"],
    ["restricted:\n  hr/: [\n", "not valid YAML"],
    [`restricted:\n  hr/:\n    - { who: stranger@example.test, level: view }\n`, "not a member"],
  ] as const) {
    ide.writeFile(".quire/access.yaml", text);
    await ide.commit("Change access by hand");
    await ide.push();
    const result = await server.services.gitSync.trigger(ws.id, { reason: "webhook", branch: "main" });
    expect(result.error).toContain(why);
    expect(row(server, ws.id).sync_status).toBe("error");
    expect(server.services.gitSync.lastError(ws.id)).toContain("the last valid rules stay in force");
    expect(await rules()).toEqual({ restricted: before, refused: expect.stringContaining(why) });
    expect(await bobReads()).toBe(404);
  }
});

test("a valid file is applied, audited as from git, and the sync status clears", async () => {
  ide.writeFile(".quire/access.yaml", `restricted:\n  hr/:\n    - { who: ${ana.email}, level: edit }\n    - { who: ${bob.email}, level: view }\n`);
  await ide.commit("Let Bob read hr");
  await ide.push();
  const result = await server.services.gitSync.trigger(ws.id, { reason: "webhook", branch: "main" });
  expect(result.error).toBeUndefined();
  expect(row(server, ws.id).sync_status).toBe("synced");
  expect((await rules()).refused).toBeNull();
  expect(await bobReads()).toBe(200);
  const audit = server.services.db
    .query<any, [string]>("SELECT * FROM activity WHERE workspace_id = ? AND action = 'access_changed' ORDER BY id DESC LIMIT 1")
    .get(ws.id);
  expect(audit.actor_id).toBeNull();
  expect(JSON.parse(audit.details)).toMatchObject({ source: "git", to: [{ level: "edit" }, { who: bob.email.toLowerCase(), level: "view" }] });
});

test("a sync conflict on a hidden page is missing for those it is hidden from", async () => {
  // Bob may no longer read hr/ (the file from the IDE gave him view: narrow it again).
  expect((await owner.client.put(access.replace("{id}", ws.id), { path: "hr/", entries: [{ who: ana.email, level: "edit" }] })).status).toBe(200);
  await settled(server);
  await ide.pull();
  ide.writeFile("hr/salaries.md", ide.readFile("hr/salaries.md")!.replace("Bands.", "Bands from the IDE."));
  await ide.commit("IDE edit of hr/salaries.md");
  await ide.push();
  const read = await owner.client.get(`/api/v1/content/${ws.slug}/hr/salaries.md`);
  expect((await owner.client.put(`/api/v1/content/${ws.slug}/hr/salaries.md`, { body: "Bands from the web.", lastKnownHash: read.body.content_hash })).status).toBe(200);
  await settled(server);
  const list = (u: TestUser) => u.client.get(`/api/v1/workspaces/${ws.id}/conflicts`);
  const [c] = (await list(owner)).body.conflicts;
  expect(c.path).toBe("hr/salaries.md");
  expect((await list(bob)).body.conflicts).toEqual([]);
  const shape = (r: { status: number; body: any }) => ({ status: r.status, body: { ...r.body, request_id: undefined } });
  const missingId = `${c.page_id}-19990101T000000Z`;
  for (const [hidden, missing] of [
    [`/api/v1/conflicts/${c.page_id}/${c.timestamp}/theirs`, `/api/v1/conflicts/${c.page_id}/19990101T000000Z/theirs`],
    [`/api/v1/workspaces/${ws.id}/sync/conflicts/${c.id}`, `/api/v1/workspaces/${ws.id}/sync/conflicts/${missingId}`],
  ]) {
    expect(shape(await bob.client.get(hidden!))).toEqual(shape(await bob.client.get(missing!)));
  }
  expect(shape(await bob.client.post(`/api/v1/conflicts/${c.page_id}/${c.timestamp}/resolve`, {}))).toEqual(
    shape(await bob.client.post(`/api/v1/conflicts/${c.page_id}/19990101T000000Z/resolve`, {})),
  );
  expect((await ana.client.get(`/api/v1/conflicts/${c.page_id}/${c.timestamp}/theirs`)).status).toBe(200);
});

test("a clone brings its rules: in force at once, people named who are not members yet included", async () => {
  const cloned = await startGitHttpRemote({
    branch: "main",
    files: {
      "index.md": "---\ntitle: Home\n---\n\nHome.\n",
      "board/minutes.md": "---\ntitle: Minutes\n---\n\nSecret minutes.\n",
      ".quire/access.yaml": "restricted:\n  board/:\n    - { who: chair@example.test, level: edit }\n",
    },
  });
  try {
    const r = await createFromRemote(owner, "cloned-rules", cloned.url);
    expect(r.status).toBe(201);
    await settled(server);
    const rules = (await owner.client.get(`/api/v1/workspaces/${r.body.id}/access`)).body;
    expect(rules).toEqual({ restricted: { "board/": [{ who: "chair@example.test", level: "edit" }] }, refused: null });
    const member = await memberWithRole(server, owner, r.body.id, "editor");
    expect((await member.client.get(`/api/v1/content/${r.body.slug}/board/minutes.md`)).status).toBe(404);
    expect((await member.client.get(`/api/v1/content/${r.body.slug}/index.md`)).status).toBe(200);
  } finally {
    await cloned.close();
  }
});
