/**
 * The link:anyone allowance through git (docs/decisions/restricted-folders.md, "Share links"):
 * `.quire/access.yaml` pushed from an IDE turns it on and off for every page share link at once;
 * a file that gives it `edit`, or adds it below a rule without it, is refused in the sync status and
 * the last valid rules (and what the links open) stay.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { registerUser, type TestUser } from "../helpers/factories.ts";
import { Client } from "../helpers/client.ts";
import { IdeClone, startGitHttpRemote, type GitHttpRemote } from "../helpers/git-remote.ts";
import { memberWithRole } from "../access/support.ts";
import { GIT_ENV, createFromRemote, row, settled } from "./support.ts";

let server: TestServer;
let owner: TestUser;
let ana: TestUser;
let remote: GitHttpRemote;
let ide: IdeClone;
let ws: { id: string; slug: string };
let token: string;
let anonymous: Client;

beforeAll(async () => {
  server = await startTestServer(GIT_ENV);
  owner = await registerUser(server.url);
  remote = await startGitHttpRemote({ branch: "main" });
  const r = await createFromRemote(owner, "link-anyone", remote.url);
  expect(r.status).toBe(201);
  ws = r.body;
  ana = await memberWithRole(server, owner, ws.id, "editor");
  anonymous = new Client(server.url);
  for (const path of ["hr/salaries.md", "hr/policies/leave.md"]) {
    expect((await owner.client.post(`/api/v1/content/${ws.slug}/${path}`, { title: "T", body: "Bands." })).status).toBe(201);
  }
  const set = await owner.client.put(`/api/v1/workspaces/${ws.id}/access`, { path: "hr/", entries: [{ who: ana.email, level: "edit" }], confirm_private_remote: true });
  expect(set.status).toBe(200);
  const link = await owner.client.post(`/api/v1/workspaces/${ws.id}/share-links`, { role: "commenter", path: "hr/policies/leave.md" });
  expect(link.body).toMatchObject({ path: "hr/policies/leave.md", anyone: false });
  token = link.body.token;
  await settled(server);
  ide = await IdeClone.clone(remote.url);
});
afterAll(async () => {
  await ide?.close();
  await remote?.close();
  await server.close();
});

const opened = async () => {
  const r = await anonymous.get(`/api/v1/share-links/${token}/page`);
  return r.status === 200 ? r.body.level : r.status;
};
async function push(text: string, message: string) {
  ide.writeFile(".quire/access.yaml", text);
  await ide.commit(message);
  await ide.push();
  return server.services.gitSync.trigger(ws.id, { reason: "webhook", branch: "main" });
}
const rule = (extra = "") => `restricted:\n  hr/:\n    - { who: ${ana.email.toLowerCase()}, level: edit }\n${extra}`;

test("pushed on, a link opens for anyone; pushed off, it answers as missing again", async () => {
  expect(await opened()).toBe(404);
  const on = await push(rule("    - { who: link:anyone, level: comment }\n"), "Let anyone with a link read hr/");
  expect(on.error).toBeUndefined();
  expect(row(server, ws.id).sync_status).toBe("synced");
  expect(await opened()).toBe("comment");
  const audit = server.services.db
    .query<any, [string]>("SELECT details FROM activity WHERE workspace_id = ? AND action = 'access_changed' ORDER BY id DESC LIMIT 1")
    .get(ws.id);
  expect(JSON.parse(audit.details)).toMatchObject({ source: "git", to: [{ level: "edit" }, { who: "link:anyone", level: "comment" }] });
  const off = await push(rule(), "Links to hr/ for members with access only");
  expect(off.error).toBeUndefined();
  expect(await opened()).toBe(404);
  expect((await push(rule("    - { who: link:anyone, level: view }\n"), "Anyone with a link may view hr/")).error).toBeUndefined();
  expect(await opened()).toBe("view");
});

test("an invalid allowance pushed from git is refused; the last valid rules, and what the link opens, stay", async () => {
  const before = (await owner.client.get(`/api/v1/workspaces/${ws.id}/access`)).body.restricted;
  for (const [text, why] of [
    [rule("    - { who: link:anyone, level: edit }\n"), "link:anyone allows view or comment at most"],
    [rule("    - { who: link:anyone, level: view }\n  hr/policies/:\n    - { who: link:anyone, level: comment }\n"), "link:anyone comment, but hr/ above it allows view"],
    [rule("    - { who: link:someone, level: view }\n"), "unknown link:someone"],
  ] as const) {
    const result = await push(text, "Change access by hand");
    expect(result.error).toContain(why);
    expect(row(server, ws.id).sync_status).toBe("error");
    expect((await owner.client.get(`/api/v1/workspaces/${ws.id}/access`)).body).toEqual({ restricted: before, refused: expect.stringContaining(why) });
    expect(await opened()).toBe("view");
  }
  // A narrower rule below that leaves it out takes it away for the pages there.
  const narrower = await push(rule("    - { who: link:anyone, level: view }\n  hr/policies/:\n    - { who: " + ana.email.toLowerCase() + ", level: edit }\n"), "Not hr/policies/");
  expect(narrower.error).toBeUndefined();
  expect(await opened()).toBe(404);
});
