import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { startTestServer, type TestServer } from "../../helpers/server.ts";
import { registerUser, type TestUser } from "../../helpers/factories.ts";
import { Client, type ApiResponse } from "../../helpers/client.ts";
import { memberWithRole } from "../support.ts";

/**
 * Page share links under restricted folders (docs/decisions/restricted-folders.md, "Share links"):
 * a link to a restricted page opens it for members with access there, and for anyone else only
 * where an admin allows `link:anyone` on its rule; otherwise it answers exactly like a link to a
 * missing page. `hr/` is Ana's (editor, edit); Bob (editor) has no access there.
 */
let server: TestServer;
let owner: TestUser;
let ana: TestUser;
let bob: TestUser;
let anonymous: Client;
let ws: string;
let slug: string;

const content = (path: string) => `/api/v1/content/${slug}/${path}`;
const access = () => `/api/v1/workspaces/${ws}/access`;
const links = () => `/api/v1/workspaces/${ws}/share-links`;
const open = (c: Client, token: string) => c.get(`/api/v1/share-links/${token}/page`);
/** The body without the request id, which differs per request by design. */
const same = (r: ApiResponse) => ({ status: r.status, body: { ...r.body, request_id: undefined } });
const hrList = () => [{ who: ana.email, level: "edit" }];
const setHr = (extra: object[] = []) => owner.client.put(access(), { path: "hr/", entries: [...hrList(), ...extra] });
const rules = () => server.services.db.query("SELECT path, entries FROM access_rules WHERE workspace_id = ? ORDER BY path").all(ws);
const accessFile = () => readFileSync(join(server.services.ledger.dir(ws).root, ".quire/access.yaml"), "utf8");

async function link(path: string, role = "viewer"): Promise<{ token: string; body: any }> {
  const r = await owner.client.post(links(), { role, path });
  expect(r.status).toBe(201);
  return { token: r.body.token, body: r.body };
}

/** What a link to a page that is not there answers: the page was deleted after the link was made. */
let missing: { status: number; body: unknown };
let goneToken: string;

beforeAll(async () => {
  server = await startTestServer();
  owner = await registerUser(server.url);
  ws = owner.workspaceId;
  slug = owner.workspaceSlug;
  ana = await memberWithRole(server, owner, ws, "editor");
  bob = await memberWithRole(server, owner, ws, "editor");
  anonymous = new Client(server.url);
  for (const path of ["hr/salaries.md", "hr/policies/leave.md", "guides/launch-plan.md", "gone.md"]) {
    expect((await owner.client.post(content(path), { title: "T", body: "Pay bands and plans." })).status).toBe(201);
  }
  expect((await setHr()).status).toBe(200);
  const gone = await link("gone.md");
  goneToken = gone.token;
  expect((await owner.client.delete(content("gone.md"))).status).toBe(204);
  missing = same(await open(anonymous, gone.token));
  expect(missing).toEqual({ status: 404, body: { error: "NOT_FOUND", message: "Page not found", request_id: undefined } });
});
afterAll(() => server.close());

describe("a link to a restricted page without the allowance", () => {
  test("creating it says it works only for members with access there", async () => {
    const { body } = await link("hr/salaries.md");
    expect(body).toMatchObject({ path: "hr/salaries.md", anyone: false, role: "viewer", active: true });
    const listed = (await owner.client.get(links())).body.items.find((l: any) => l.id === body.id);
    expect(listed).toMatchObject({ path: "hr/salaries.md", anyone: false });
  });

  test("signed out, and for a member without access, it answers exactly like a link to a missing page", async () => {
    const { token } = await link("hr/salaries.md", "commenter");
    expect(same(await open(anonymous, token))).toEqual(missing);
    expect(same(await open(bob.client, token))).toEqual(missing);
    // …and like an unknown token, and like the page read of a missing page.
    expect(same(await open(anonymous, "x".repeat(43)))).toEqual(missing);
    expect(same(await bob.client.get(content("hr/salaries.md")))).toEqual(same(await bob.client.get(content("nothing-here.md"))));
    expect(same(await open(bob.client, token)).body).toEqual(same(await bob.client.get(content("nothing-here.md"))).body);
  });

  test("a member with access opens it with their own access; an admin too", async () => {
    const { token } = await link("hr/salaries.md");
    const r = await open(ana.client, token);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ page: { path: "hr/salaries.md", content: expect.stringContaining("Pay bands") }, level: "edit", via: "access" });
    expect((await open(owner.client, token)).body).toMatchObject({ level: "edit", via: "access" });
  });
});

describe("the link:anyone allowance", () => {
  test("an admin allows it on hr/: every link to a page there opens for anyone, at most at the allowance's level", async () => {
    const viewer = await link("hr/salaries.md");
    const commenter = await link("hr/policies/leave.md", "commenter");
    expect((await setHr([{ who: "link:anyone", level: "view" }])).status).toBe(200);
    expect(accessFile()).toContain("- { who: link:anyone, level: view }");
    const r = await open(anonymous, viewer.token);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ page: { path: "hr/salaries.md" }, level: "view", via: "link" });
    // The body rendered as the published site renders it.
    expect(r.body.html).toContain("<p>Pay bands and plans.</p>");
    // A commenter's link is capped by the allowance (view); Bob, a member without access, opens it as anyone.
    expect((await open(anonymous, commenter.token)).body).toMatchObject({ level: "view", via: "link" });
    expect((await open(bob.client, commenter.token)).body).toMatchObject({ page: { path: "hr/policies/leave.md" }, level: "view", via: "link" });
    // The link is all it opens: the page itself stays hidden from Bob, and the allowance grants members nothing.
    expect((await bob.client.get(content("hr/salaries.md"))).status).toBe(404);
    expect((await owner.client.get(links())).body.items.find((l: any) => l.id === viewer.body.id)).toMatchObject({ anyone: true });
    // At comment, a commenter's link comments; an editor's link is capped at comment too.
    expect((await setHr([{ who: "link:anyone", level: "comment" }])).status).toBe(200);
    expect((await open(anonymous, commenter.token)).body.level).toBe("comment");
    const editor = await link("hr/salaries.md", "editor");
    expect((await open(anonymous, editor.token)).body.level).toBe("comment");
  });

  test("turning it off stops every such link at once; turning it on again restores them", async () => {
    const { token } = await link("hr/salaries.md");
    expect((await setHr([{ who: "link:anyone", level: "view" }])).status).toBe(200);
    expect((await open(anonymous, token)).status).toBe(200);
    expect((await setHr()).status).toBe(200);
    expect(same(await open(anonymous, token))).toEqual(missing);
    expect(same(await open(bob.client, token))).toEqual(missing);
    expect((await open(ana.client, token)).body.via).toBe("access");
    expect((await setHr([{ who: "link:anyone", level: "view" }])).status).toBe(200);
    expect((await open(anonymous, token)).status).toBe(200);
    expect((await setHr()).status).toBe(200);
  });

  test("a narrower rule below inherits it or takes it away, never adds it", async () => {
    expect((await setHr([{ who: "link:anyone", level: "view" }])).status).toBe(200);
    const { token } = await link("hr/policies/leave.md");
    expect((await open(anonymous, token)).status).toBe(200);
    // A rule on hr/policies/ without the entry takes it away there.
    expect((await owner.client.put(access(), { path: "hr/policies/", entries: hrList() })).status).toBe(200);
    expect(same(await open(anonymous, token))).toEqual(missing);
    // Keeping it at view is allowed; more than hr/ allows is a widening rule, refused, nothing changed.
    expect((await owner.client.put(access(), { path: "hr/policies/", entries: [...hrList(), { who: "link:anyone", level: "view" }] })).status).toBe(200);
    expect((await open(anonymous, token)).status).toBe(200);
    const before = { rules: rules(), file: accessFile() };
    const widening = await owner.client.put(access(), { path: "hr/policies/", entries: [...hrList(), { who: "link:anyone", level: "comment" }] });
    expect(widening.status).toBe(400);
    expect(widening.body.message).toContain("link:anyone comment, but hr/ above it allows view");
    // Taking it off hr/ while hr/policies/ keeps it would leave a widening rule below: refused too.
    expect((await owner.client.put(access(), { path: "hr/", entries: hrList() })).status).toBe(400);
    expect({ rules: rules(), file: accessFile() }).toEqual(before);
    expect((await owner.client.put(access(), { path: "hr/policies/", entries: [] })).status).toBe(200);
    expect((await setHr()).status).toBe(200);
  });

  test("the allowance is view or comment, and the one link entry", async () => {
    const before = { rules: rules(), file: accessFile() };
    for (const [entry, message] of [
      [{ who: "link:anyone", level: "edit" }, "link:anyone allows view or comment at most"],
      [{ who: "link:everyone", level: "view" }, "unknown link:everyone"],
    ] as const) {
      const r = await setHr([entry]);
      expect(r.status).toBe(400);
      expect(r.body.message).toContain(message);
    }
    expect({ rules: rules(), file: accessFile() }).toEqual(before);
  });

  test("the rule read back names it like any entry, and the effective access of a page shows it", async () => {
    expect((await setHr([{ who: "LINK:anyone", level: "view" }])).status).toBe(200);
    expect((await owner.client.get(access())).body.restricted["hr/"]).toEqual([...hrList().map((e) => ({ ...e, who: e.who.toLowerCase() })), { who: "link:anyone", level: "view" }]);
    expect((await ana.client.get(`${access()}/effective?path=hr/salaries.md`)).body.entries).toContainEqual({ who: "link:anyone", level: "view" });
    expect((await setHr()).status).toBe(200);
  });
});

describe("only admins allow it", () => {
  test("with editors managing access, an editor leaves what a link allows as it is: adding, changing, removing or unmasking it is refused", async () => {
    expect((await owner.client.put(`/api/v1/workspaces/${ws}/admin/settings`, { editors_manage_access: true })).status).toBe(200);
    try {
      const before = { rules: rules(), file: accessFile() };
      const add = await ana.client.put(access(), { path: "hr/", entries: [...hrList(), { who: "link:anyone", level: "view" }] });
      expect(add.status).toBe(403);
      expect(add.body.message).toBe("Only an admin may allow or remove link:anyone (anyone with a share link)");
      expect({ rules: rules(), file: accessFile() }).toEqual(before);

      expect((await setHr([{ who: "link:anyone", level: "view" }])).status).toBe(200);
      const kept = { rules: rules(), file: accessFile() };
      // (Lifting hr/ altogether stays an editor's right: the folder then opens to every member, and its links with it.)
      for (const entries of [hrList(), [...hrList(), { who: "link:anyone", level: "comment" }]]) {
        const r = await ana.client.put(access(), { path: "hr/", entries });
        expect(r.status).toBe(403);
      }
      expect({ rules: rules(), file: accessFile() }).toEqual(kept);
      // Keeping it unchanged, an editor still manages the rest of the list.
      const ok = await ana.client.put(access(), { path: "hr/", entries: [...hrList(), { who: bob.email, level: "view" }, { who: "link:anyone", level: "view" }] });
      expect(ok.status).toBe(200);
      // A new rule below must carry it on: without the entry it would take it away there.
      const kept2 = { rules: rules(), file: accessFile() };
      expect((await ana.client.put(access(), { path: "hr/policies/", entries: hrList() })).status).toBe(403);
      expect({ rules: rules(), file: accessFile() }).toEqual(kept2);
      expect((await ana.client.put(access(), { path: "hr/policies/", entries: [...hrList(), { who: "link:anyone", level: "view" }] })).status).toBe(200);
      // Lifting a rule that took it away would let the allowance above reach its pages again: refused too.
      expect((await owner.client.put(access(), { path: "hr/policies/", entries: hrList() })).status).toBe(200);
      const { token } = await link("hr/policies/leave.md");
      const kept3 = { rules: rules(), file: accessFile() };
      expect((await ana.client.put(access(), { path: "hr/policies/", entries: [] })).status).toBe(403);
      expect({ rules: rules(), file: accessFile() }).toEqual(kept3);
      expect(same(await open(anonymous, token))).toEqual(missing);
      expect((await owner.client.put(access(), { path: "hr/policies/", entries: [] })).status).toBe(200);
      expect((await open(anonymous, token)).status).toBe(200);
      // A folder nobody restricted: an editor restricts it (its links then open for members with access only), but cannot allow links there.
      const fresh = await ana.client.put(access(), { path: "guides/", entries: [...hrList(), { who: "link:anyone", level: "view" }] });
      expect(fresh.status).toBe(403);
      expect((await ana.client.put(access(), { path: "guides/", entries: hrList() })).status).toBe(200);
      expect((await ana.client.put(access(), { path: "guides/", entries: [] })).status).toBe(200);
    } finally {
      expect((await owner.client.put(`/api/v1/workspaces/${ws}/admin/settings`, { editors_manage_access: false })).status).toBe(200);
      expect((await setHr()).status).toBe(200);
    }
  });

  test("only admins make share links, page links included", async () => {
    const before = server.services.db.query("SELECT * FROM share_links ORDER BY id").all();
    for (const u of [ana, bob]) {
      const r = await u.client.post(links(), { role: "viewer", path: "hr/salaries.md" });
      expect(r.status).toBe(403);
    }
    expect(server.services.db.query("SELECT * FROM share_links ORDER BY id").all()).toEqual(before);
  });
});

describe("pages that move, links that join", () => {
  test("a page moved into hr/ without the allowance stops opening for outsiders at once; moved out, it opens again", async () => {
    const { token, body } = await link("guides/launch-plan.md", "commenter");
    expect(body.anyone).toBe(true);
    expect((await open(anonymous, token)).body).toMatchObject({ page: { path: "guides/launch-plan.md" }, level: "comment", via: "link" });
    expect((await owner.client.post(content("move"), { path: "guides/launch-plan.md", new_path: "hr/launch-plan.md" })).status).toBe(200);
    expect(same(await open(anonymous, token))).toEqual(missing);
    expect(same(await open(bob.client, token))).toEqual(missing);
    expect((await owner.client.get(links())).body.items.find((l: any) => l.id === body.id)).toMatchObject({ path: "hr/launch-plan.md", anyone: false });
    expect((await open(ana.client, token)).body).toMatchObject({ page: { path: "hr/launch-plan.md" }, via: "access" });
    expect((await owner.client.post(content("move"), { path: "hr/launch-plan.md", new_path: "guides/launch-plan.md" })).status).toBe(200);
    expect((await open(anonymous, token)).status).toBe(200);
  });

  test("a page link joins no one, a join link opens no page, a missing page cannot be linked", async () => {
    const { token } = await link("hr/salaries.md");
    const join = await bob.client.post(`/api/v1/share-links/${token}/use`);
    expect(join.status).toBe(404);
    expect(join.body.message).toBe("Share link not found");
    const joinLink = await owner.client.post(links(), { role: "viewer" });
    expect(joinLink.body).toMatchObject({ path: null, anyone: null });
    expect(same(await open(anonymous, joinLink.body.token))).toEqual(missing);
    const none = await owner.client.post(links(), { role: "viewer", path: "hr/nothing.md" });
    expect(none.status).toBe(404);
  });

  test("a link to a deleted page never opens a page made later at its path", async () => {
    expect((await owner.client.post(content("gone.md"), { title: "Another page", body: "New." })).status).toBe(201);
    for (const c of [anonymous, bob.client, owner.client]) expect(same(await open(c, goneToken))).toEqual(missing);
    expect((await owner.client.get(links())).body.items.at(-1)).toMatchObject({ path: null, anyone: null, active: false });
    expect((await owner.client.delete(content("gone.md"))).status).toBe(204);
  });

  test("a revoked or expired page link answers as missing", async () => {
    expect((await setHr([{ who: "link:anyone", level: "view" }])).status).toBe(200);
    const { token, body } = await link("hr/salaries.md");
    expect((await open(anonymous, token)).status).toBe(200);
    expect((await owner.client.delete(`${links()}/${body.id}`)).status).toBe(204);
    expect(same(await open(anonymous, token))).toEqual(missing);
    const soon = await owner.client.post(links(), { role: "viewer", path: "hr/salaries.md", expires_at: new Date(Date.now() + 1500).toISOString() });
    expect((await open(anonymous, soon.body.token)).status).toBe(200);
    await Bun.sleep(1600);
    expect(same(await open(anonymous, soon.body.token))).toEqual(missing);
    expect((await setHr()).status).toBe(200);
  });
});
