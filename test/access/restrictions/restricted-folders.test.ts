import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startTestServer, type TestServer } from "../../helpers/server.ts";
import { registerUser, type TestUser } from "../../helpers/factories.ts";
import { memberWithRole } from "../support.ts";
import type { ApiResponse } from "../../helpers/client.ts";

/**
 * Restricted folders end to end (docs/decisions/restricted-folders.md): an admin restricts `hr/`
 * to Ana (editor) and Vic (viewer); Bob (editor) and Val (viewer) are members without access.
 * A hidden page answers exactly like a missing one, and a refused write changes nothing.
 */
let server: TestServer;
let owner: TestUser;
let ana: TestUser;
let bob: TestUser;
let vic: TestUser;
let val: TestUser;
let ws: string;
let slug: string;
const SECRET = "zanzibarquux";

const content = (path: string) => `/api/v1/content/${slug}/${path}`;
const access = () => `/api/v1/workspaces/${ws}/access`;
/** The body without the request id, which differs per request by design. */
const same = (r: ApiResponse) => ({ status: r.status, body: { ...r.body, request_id: undefined } });
const pageRow = (path: string) => server.services.db.query<any, [string, string]>("SELECT * FROM pages WHERE workspace_id = ? AND path = ? AND deleted_at IS NULL").get(ws, path);
const fileOf = (path: string) => join(server.services.ledger.dir(ws).root, path);

beforeAll(async () => {
  server = await startTestServer();
  owner = await registerUser(server.url);
  ws = owner.workspaceId;
  slug = owner.workspaceSlug;
  ana = await memberWithRole(server, owner, ws, "editor");
  bob = await memberWithRole(server, owner, ws, "editor");
  vic = await memberWithRole(server, owner, ws, "viewer");
  val = await memberWithRole(server, owner, ws, "viewer");
  for (const [path, title, body] of [
    ["hr/salaries.md", "Salaries", `Pay bands. The codeword is ${SECRET}.`],
    ["hr/policies/leave.md", "Leave policy", "Days off."],
    ["guides/launch-plan.md", "Launch plan", "The plan."],
    ["public.md", "Public", "Everyone reads this."],
  ]) {
    const r = await owner.client.post(content(path!), { title, body });
    expect(r.status).toBe(201);
  }
  const set = await owner.client.put(access(), { path: "hr/", entries: [{ who: ana.email, level: "edit" }, { who: vic.email, level: "view" }] });
  expect(set.status).toBe(200);
});
afterAll(() => server.close());

describe("the rules", () => {
  test("an admin reads them; the effective rule names its source; the file in the work tree says the same", async () => {
    const list = await owner.client.get(access());
    expect(list.status).toBe(200);
    expect(list.body).toEqual({
      restricted: { "hr/": [{ who: ana.email.toLowerCase(), level: "edit" }, { who: vic.email.toLowerCase(), level: "view" }] },
      refused: null,
    });
    const eff = await ana.client.get(`${access()}/effective?path=hr/policies/leave.md`);
    expect(eff.status).toBe(200);
    expect(eff.body).toMatchObject({ path: "hr/policies/leave.md", restricted: true, from: "hr/", level: "edit" });
    const vicEff = await vic.client.get(`${access()}/effective?path=hr/salaries.md`);
    expect(vicEff.body.level).toBe("view");
    const file = readFileSync(fileOf(".quire/access.yaml"), "utf8");
    expect(file).toContain("restricted:\n  hr/:\n");
    expect(file).toContain(`- { who: ${ana.email.toLowerCase()}, level: edit }`);
  });

  test("an admin sees each member's level on a path, and where it comes from", async () => {
    const r = await owner.client.get(`${access()}/members?path=hr/policies/leave.md`);
    expect(r.status).toBe(200);
    expect(r.body.from).toBe("hr/");
    const level = (u: TestUser) => r.body.items.find((i: any) => i.user_id === u.id)?.level;
    expect([level(owner), level(ana), level(vic), level(bob), level(val)]).toEqual(["edit", "edit", "view", null, null]);
    expect((await bob.client.get(`${access()}/members?path=hr/`)).status).toBe(403);
  });

  test("only admins read or set them", async () => {
    expect((await bob.client.get(access())).status).toBe(403);
    expect((await ana.client.put(access(), { path: "guides/", entries: [] })).status).toBe(403);
  });

  test("each change is in the activity feed: who, from what, to what", async () => {
    const row = server.services.db
      .query<any, [string]>("SELECT * FROM activity WHERE workspace_id = ? AND action = 'access_changed' ORDER BY id DESC LIMIT 1")
      .get(ws);
    expect(row.actor_id).toBe(owner.id);
    expect(row.page_path).toBe("hr/");
    expect(JSON.parse(row.details)).toMatchObject({ from: null, to: [{ level: "edit" }, { level: "view" }] });
  });

  test("bad lists are refused and change nothing", async () => {
    const before = readFileSync(fileOf(".quire/access.yaml"), "utf8");
    const outsider = await registerUser(server.url);
    const cases: Array<[unknown, string]> = [
      [{ path: "guides/", entries: [{ who: outsider.email, level: "view" }] }, "not a member"],
      [{ path: "guides/", entries: [{ who: "group:owners", level: "view" }] }, "unknown group"],
      [{ path: "guides/", entries: [{ who: ana.email, level: "admin" }] }, "level"],
      [{ path: "guides/", entries: [{ who: ana.email, level: "view" }, { who: ana.email.toUpperCase(), level: "edit" }] }, "named twice"],
      [{ path: "guides", entries: [{ who: ana.email, level: "view" }] }, "a folder ends with '/'"],
      [{ path: "./hr/../hr/", entries: [{ who: ana.email, level: "view" }] }, "segments"],
      // A widening rule: Bob has nothing in hr/, so hr/policies/ cannot give him anything.
      [{ path: "hr/policies/", entries: [{ who: bob.email, level: "view" }] }, "can only narrow"],
      [{ path: "hr/policies/", entries: [{ who: vic.email, level: "edit" }] }, "can only narrow"],
      [{ path: "HR/", entries: [{ who: ana.email, level: "view" }] }, "name the same folder"],
    ];
    for (const [body, message] of cases) {
      const r = await owner.client.put(access(), body);
      expect(r.status).toBe(400);
      expect(r.body.error).toBe("VALIDATION_ERROR");
      expect(r.body.message).toContain(message);
    }
    const many = Array.from({ length: 10_000 }, (_, i) => ({ who: `p${i}@example.test`, level: "view" }));
    const big = await owner.client.put(access(), { path: "guides/", entries: many });
    expect(big.status).toBe(400);
    expect(readFileSync(fileOf(".quire/access.yaml"), "utf8")).toBe(before);
    expect((await owner.client.get(access())).body.restricted).toEqual({ "hr/": expect.any(Array) });
  });

  test("a narrower rule below is accepted, and access is the narrowest along the path", async () => {
    const r = await owner.client.put(access(), { path: "hr/policies/", entries: [{ who: vic.email, level: "view" }] });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ path: "hr/policies/", restricted: true, from: "hr/policies/" });
    expect((await ana.client.get(content("hr/policies/leave.md"))).status).toBe(404);
    expect((await vic.client.get(content("hr/policies/leave.md"))).status).toBe(200);
    expect((await owner.client.put(access(), { path: "hr/policies/", entries: [] })).status).toBe(200);
    expect((await ana.client.get(content("hr/policies/leave.md"))).status).toBe(200);
  });
});

describe("a person without access learns nothing", () => {
  test("a hidden page answers exactly like a missing one, however its path is written", async () => {
    const missing = same(await bob.client.get(content("hr/nothing-here.md")));
    expect(missing.status).toBe(404);
    for (const path of ["hr/salaries.md", "hr/salaries", "HR/salaries.md", "hr%2Fsalaries.md", "Hr/Salaries.md"]) {
      expect(same(await bob.client.get(content(path)))).toEqual(missing);
    }
    // Dot segments are resolved before the path is looked at: the same hidden page, the same answer.
    expect(same(await bob.client.get(content("./hr/../hr/salaries.md")))).toEqual(missing);
    expect(same(await bob.client.get(content("hr/./salaries.md")))).toEqual(missing);
    expect((await ana.client.get(content("hr/salaries.md"))).status).toBe(200);
    expect((await vic.client.get(content("hr/salaries.md"))).status).toBe(200);
    expect(same(await val.client.get(content("hr/salaries.md")))).toEqual(same(await val.client.get(content("hr/nothing-here.md"))));
    expect((await owner.client.get(content("hr/salaries.md"))).status).toBe(200);
  });

  test("the tree has no hr folder, and the page count leaves its pages out", async () => {
    const names = (r: ApiResponse) => JSON.stringify(r.body.items);
    const bobTree = await bob.client.get(content("tree"));
    expect(bobTree.status).toBe(200);
    expect(names(bobTree)).not.toContain("hr/");
    expect(names(bobTree)).not.toContain("Salaries");
    expect(names(bobTree)).toContain("public.md");
    expect(names(await ana.client.get(content("tree")))).toContain("hr/salaries.md");
    // Those who see the folder see that it is restricted.
    const hr = (await ana.client.get(content("tree"))).body.items.find((n: any) => n.path === "hr");
    expect(hr.restricted).toBe(true);
    expect(hr.children.find((n: any) => n.path === "hr/salaries.md").restricted).toBeUndefined();
    const count = async (u: TestUser) => (await u.client.get(`/api/v1/workspaces/${ws}`)).body.page_count;
    expect((await count(owner)) - (await count(bob))).toBe(2);
    expect(await count(ana)).toBe(await count(owner));
  });

  test("a word only a hidden page holds finds nothing", async () => {
    await server.services.search.whenIndexed(ws);
    const q = `/api/v1/workspaces/${ws}/search?q=${SECRET}`;
    const bobs = await bob.client.get(q);
    expect(bobs.status).toBe(200);
    expect(bobs.body.items).toEqual([]);
    expect(JSON.stringify(bobs.body)).not.toContain("salaries");
    const anas = await ana.client.get(q);
    expect(anas.body.items.map((h: any) => h.path)).toEqual(["hr/salaries.md"]);
  });

  test("a query that found a restricted page reaches no analytics report", async () => {
    expect((await ana.client.get(`/api/v1/workspaces/${ws}/search?q=codeword`)).body.items).toHaveLength(1);
    expect((await owner.client.get(`/api/v1/workspaces/${ws}/search?q=everyone`)).body.items.length).toBeGreaterThan(0);
    const report = JSON.stringify((await owner.client.get(`/api/v1/workspaces/${ws}/analytics/searches?source=app`)).body);
    expect(report).toContain("everyone");
    expect(report).not.toContain("codeword");
  });

  test("the effective access of a hidden path answers like a missing one", async () => {
    const missing = same(await bob.client.get(`${access()}/effective?path=nowhere/`));
    expect(missing.status).toBe(404);
    expect(same(await bob.client.get(`${access()}/effective?path=hr/`))).toEqual(missing);
    expect(same(await bob.client.get(`${access()}/effective?path=hr/salaries.md`))).toEqual(missing);
  });
});

describe("writes need edit access, and a refused one changes nothing", () => {
  test("update, delete and move of a hidden page answer 404; the file and the record stay", async () => {
    const row = pageRow("hr/salaries.md");
    const text = readFileSync(fileOf("hr/salaries.md"), "utf8");
    const missingPut = same(await bob.client.put(content("hr/nothing-here.md"), { body: "x", lastKnownHash: row.content_hash }));
    expect(same(await bob.client.put(content("hr/salaries.md"), { body: "x", lastKnownHash: row.content_hash }))).toEqual(missingPut);
    expect((await bob.client.put(content("hr/salaries.md"), { body: "x", frontmatter: { title: "T" } })).status).toBe(403);
    expect((await bob.client.post(content("hr/new.md"), { title: "New", body: "x" })).status).toBe(403);
    expect(same(await bob.client.delete(content("hr/salaries.md")))).toEqual(same(await bob.client.delete(content("hr/nothing-here.md"))));
    expect((await bob.client.patch(content("hr/salaries.md"), { new_path: "stolen.md" })).status).toBe(404);
    expect((await bob.client.post(content("move"), { path: "hr/salaries.md", new_path: "stolen.md" })).status).toBe(404);
    // Moving a page he can edit into the folder he cannot see is refused too.
    expect((await bob.client.patch(content("public.md"), { new_path: "hr/public.md" })).status).toBe(403);
    expect(pageRow("hr/salaries.md")).toEqual(row);
    expect(readFileSync(fileOf("hr/salaries.md"), "utf8")).toBe(text);
    expect(existsSync(fileOf("hr/new.md"))).toBe(false);
    expect(existsSync(fileOf("stolen.md"))).toBe(false);
    expect(existsSync(fileOf("hr/public.md"))).toBe(false);
    expect(pageRow("public.md")).not.toBeNull();
  });

  test("a view-only entry reads but does not write; an edit entry writes", async () => {
    await owner.client.put(access(), { path: "guides/launch-plan.md", entries: [{ who: "group:editors", level: "view" }] });
    const page = await ana.client.get(content("guides/launch-plan.md"));
    expect(page.status).toBe(200);
    const refused = await ana.client.put(content("guides/launch-plan.md"), { body: "changed", lastKnownHash: page.body.content_hash });
    expect(refused.status).toBe(403);
    expect((await ana.client.get(content("guides/launch-plan.md"))).body.content_hash).toBe(page.body.content_hash);
    const salaries = await ana.client.get(content("hr/salaries.md"));
    const saved = await ana.client.put(content("hr/salaries.md"), { body: `New bands. ${SECRET}.`, lastKnownHash: salaries.body.content_hash });
    expect(saved.status).toBe(200);
  });
});

describe("writing into a folder you cannot see", () => {
  // A hidden folder and one that does not exist must answer a write alike, or the write would tell
  // them apart: the root holds hr/, hidden from Bob, so he starts no new folder at the root.
  const pathsOf = () => (server.services.db.query<{ path: string }, [string]>("SELECT path FROM pages WHERE workspace_id = ? ORDER BY path").all(ws)).map((r) => r.path);

  test("create, upsert, move and import into a hidden folder answer exactly as into a new one, and change nothing", async () => {
    const before = pathsOf();
    const attempts: Record<string, (folder: string) => Promise<ApiResponse>> = {
      create: (f) => bob.client.post(content(`${f}/new.md`), { title: "New", body: "x" }),
      "create deeper": (f) => bob.client.post(content(`${f}/policies/new.md`), { title: "New", body: "x" }),
      "upsert without a hash": (f) => bob.client.put(content(`${f}/salaries.md`), { body: "x", frontmatter: { title: "T" } }),
      "move into": (f) => bob.client.patch(content("public.md"), { new_path: `${f}/public.md` }),
      "move by path": (f) => bob.client.post(content("move"), { path: "public.md", new_path: `${f}/public.md` }),
    };
    for (const [name, attempt] of Object.entries(attempts)) {
      const hidden = same(await attempt("hr"));
      const fresh = same(await attempt("brand-new"));
      expect(hidden, name).toEqual(fresh);
      expect(hidden.status, name).toBe(403);
      expect(hidden.body.message, name).toContain("a page goes into a folder you can see");
      // Case and dot variants of the hidden folder answer as the same variants of a new one.
      for (const variant of [(f: string) => f.toUpperCase(), (f: string) => `./${f}/../${f}`, (f: string) => `${f}%2F${f}`]) {
        expect(same(await attempt(variant("hr"))), `${name} ${variant("hr")}`).toEqual(same(await attempt(variant("brand-new"))));
      }
    }
    expect(pathsOf()).toEqual(before);
    expect(existsSync(fileOf("hr/new.md"))).toBe(false);
    expect(existsSync(fileOf("brand-new"))).toBe(false);
  });

  test("a rule on a folder that has no pages answers as one with pages: what is refused is the rule, not what it holds", async () => {
    expect((await owner.client.put(access(), { path: "vault/", entries: [{ who: ana.email, level: "edit" }] })).status).toBe(200);
    const post = (path: string) => bob.client.post(content(path), { title: "New", body: "x" });
    expect(same(await post("vault/a.md"))).toEqual(same(await post("hr/a.md")));
    expect(same(await post("vault/a.md"))).toEqual(same(await post("brand-new/a.md")));
    expect((await owner.client.put(access(), { path: "vault/", entries: [] })).status).toBe(200);
  });

  test("a page a rule hides in a folder he sees is not reported as taken", async () => {
    expect((await owner.client.post(content("guides/board-notes.md"), { title: "Board notes", body: "Secret." })).status).toBe(201);
    expect((await owner.client.put(access(), { path: "guides/board-notes.md", entries: [{ who: ana.email, level: "edit" }] })).status).toBe(200);
    const taken = await bob.client.post(content("guides/board-notes.md"), { title: "Mine", body: "x" });
    expect(taken.status).toBe(403);
    expect(JSON.stringify(taken.body)).not.toMatch(/exist|taken|Board/i);
    expect(same(taken)).toEqual(same(await bob.client.post(content("hr/board-notes.md"), { title: "Mine", body: "x" })));
    expect((await owner.client.put(access(), { path: "guides/board-notes.md", entries: [] })).status).toBe(200);
    expect((await owner.client.delete(content("guides/board-notes.md"))).status).toBe(204);
  });

  test("in a folder he sees, and at the root, he writes as before; admins and members with access start folders", async () => {
    const mine = await bob.client.post(content("guides/bobs-notes.md"), { title: "Bob's notes", body: "x" });
    expect(mine.status).toBe(201);
    expect((await bob.client.post(content("bobs-root.md"), { title: "Root", body: "x" })).status).toBe(201);
    expect((await bob.client.patch(content("bobs-root.md"), { new_path: "guides/bobs-root.md" })).status).toBe(200);
    expect((await ana.client.post(content("hr/anas-draft.md"), { title: "Draft", body: "x" })).status).toBe(201);
    expect((await owner.client.post(content("handbook-new/start.md"), { title: "Start", body: "x" })).status).toBe(201);
    for (const p of ["guides/bobs-notes.md", "guides/bobs-root.md", "hr/anas-draft.md", "handbook-new/start.md"]) {
      expect((await owner.client.delete(content(p))).status, p).toBe(204);
    }
  });

  test("an upload takes no folder: it answers the same whoever sends it", async () => {
    const send = async (u: TestUser) => {
      const form = new FormData();
      form.append("file", new File([new TextEncoder().encode("notes\n")], "notes.txt", { type: "text/plain" }));
      const r = await u.client.request("POST", `/api/v1/content/${slug}/uploads`, { body: form });
      return { status: r.status, keys: Object.keys(r.body).sort(), folder: String(r.body.url).replace(/[^/]+$/, "") };
    };
    expect(await send(bob)).toEqual(await send(ana));
  });
});

describe("the file from git or the disk", () => {
  test("a widening or invalid file is refused, the last valid rules stay, and the refusal is reported", async () => {
    const restrictions = server.services.restrictions;
    const row = server.services.workspaces.byId(ws)!;
    const before = (await owner.client.get(access())).body.restricted;
    const path = fileOf(".quire/access.yaml");
    const valid = readFileSync(path, "utf8");
    for (const [text, why] of [
      [`restricted:\n  hr/:\n    - { who: ${ana.email}, level: edit }\n  hr/policies/:\n    - { who: ${bob.email}, level: view }\n`, "can only narrow"],
      ["restricted: [\n", "not valid YAML"],
      ["restricted:\n  hr/: nobody\n", "expected a list"],
      // The only way to loop a rule back on itself is to name one folder twice: refused too.
      [`restricted:\n  hr/:\n    - { who: ${ana.email}, level: edit }\n  HR/:\n    - { who: ${bob.email}, level: edit }\n`, "name the same folder"],
    ] as const) {
      writeFileSync(path, text);
      expect(restrictions.applyFile(row)).toContain(why);
      expect((await owner.client.get(access())).body).toEqual({ restricted: before, refused: expect.stringContaining(why) });
      expect((await bob.client.get(content("hr/salaries.md"))).status).toBe(404);
    }
    writeFileSync(path, "");
    expect(restrictions.applyFile(row)).toBeNull();
    expect((await bob.client.get(content("hr/salaries.md"))).status).toBe(200);
    writeFileSync(path, valid);
    expect(restrictions.applyFile(row)).toBeNull();
    expect((await owner.client.get(access())).body).toEqual({ restricted: before, refused: null });
    expect((await bob.client.get(content("hr/salaries.md"))).status).toBe(404);
  });
});

describe("comments, mentions and activity", () => {
  test("a hidden page's comments and threads do not exist for those it is hidden from", async () => {
    const comments = `/api/v1/workspaces/${ws}/comments`;
    const thread = await ana.client.post(comments, { page_path: "hr/salaries.md", body: `Check the bands @${bob.name} @${vic.name}` });
    expect(thread.status).toBe(201);
    // Bob cannot see the page, so he is not mentioned into it; Vic can, and is.
    expect(thread.body.mentions).toEqual([vic.id]);
    const missingThread = same(await bob.client.get(`/api/v1/comments/01M8G8000000000000000000AA`));
    expect(same(await bob.client.get(`/api/v1/comments/${thread.body.id}`))).toEqual(missingThread);
    for (const r of [
      await bob.client.put(`/api/v1/comments/${thread.body.id}`, { body: "edited" }),
      await bob.client.post(`/api/v1/comments/${thread.body.id}/resolve`),
      await bob.client.delete(`/api/v1/comments/${thread.body.id}`),
    ]) expect(same(r).status).toBe(404);
    const missingPage = same(await bob.client.post(comments, { page_path: "hr/nothing-here.md", body: "hi" }));
    expect(same(await bob.client.post(comments, { page_path: "hr/salaries.md", body: "hi" }))).toEqual(missingPage);
    expect(same(await bob.client.post(comments, { parent_id: thread.body.id, body: "hi" })).status).toBe(404);
    const bobs = await bob.client.get(comments);
    expect(JSON.stringify(bobs.body)).not.toContain("hr/");
    const byPage = await bob.client.get(`${comments}?page=hr/salaries.md`);
    expect(byPage.body.items).toEqual([]);
    expect((await ana.client.get(`${comments}?page=hr/salaries.md`)).body.items.map((c: any) => c.id)).toContain(thread.body.id);
    expect(server.services.db.query<any, [string]>("SELECT body FROM comments WHERE id = ?").get(thread.body.id).body).toContain("Check the bands");
  });

  test("the activity feed leaves out what happened in hr/, and access changes are for admins", async () => {
    const feed = async (u: TestUser, query = "") => (await u.client.get(`/api/v1/workspaces/${ws}/activity?${query ? `limit=${query}` : "limit=100"}`)).body.items as any[];
    const bobs = await feed(bob);
    expect(bobs.length).toBeGreaterThan(0);
    expect(JSON.stringify(bobs)).not.toContain("hr/");
    expect(bobs.some((e) => e.action === "access_changed")).toBe(false);
    expect((await feed(ana)).some((e) => e.page_path === "hr/salaries.md")).toBe(true);
    expect((await feed(ana)).some((e) => e.action === "access_changed")).toBe(false);
    expect((await feed(owner)).some((e) => e.action === "access_changed")).toBe(true);
    // A small page size still fills while hidden entries are read past.
    const firstTwo = await feed(bob, "2");
    expect(firstTwo).toHaveLength(2);
    const pageFeed = await bob.client.get(`/api/v1/workspaces/${ws}/page-activity?page=hr/salaries.md`);
    expect(same(pageFeed)).toEqual(same(await bob.client.get(`/api/v1/workspaces/${ws}/page-activity?page=hr/nothing-here.md`)));
  });
});

describe("history and the trash", () => {
  test("a hidden page has no history, and its deletion is not in the trash", async () => {
    const history = (u: TestUser, path: string) => u.client.get(`/api/v1/workspaces/${ws}/history?path=${path}`);
    expect(same(await history(bob, "hr/salaries.md"))).toEqual(same(await history(bob, "hr/nothing-here.md")));
    const version = (u: TestUser, path: string) => u.client.get(`/api/v1/workspaces/${ws}/history/version?path=${path}&commit=0123456789abcdef0123456789abcdef01234567`);
    expect(same(await version(bob, "hr/salaries.md"))).toEqual(same(await version(bob, "hr/nothing-here.md")));
    const made = await owner.client.post(content("hr/old-bands.md"), { title: "Old bands", body: "Gone soon." });
    expect(made.status).toBe(201);
    expect((await owner.client.delete(content("hr/old-bands.md"))).status).toBe(204);
    const trash = async (u: TestUser) => JSON.stringify((await u.client.get(`/api/v1/workspaces/${ws}/trash`)).body);
    expect(await trash(owner)).toContain("hr/old-bands.md");
    expect(await trash(ana)).toContain("hr/old-bands.md");
    expect(await trash(bob)).not.toContain("hr/");
    const restore = await bob.client.post(`/api/v1/workspaces/${ws}/trash/restore`, { trash_id: made.body.page_id });
    const unknown = same(await bob.client.post(`/api/v1/workspaces/${ws}/trash/restore`, { trash_id: "01M8G8000000000000000000AA" }));
    expect(same(restore)).toEqual(unknown);
    // The id of a live page hidden from him, guessed, is as unknown (not "this page is not deleted").
    const live = pageRow("hr/salaries.md");
    expect(same(await bob.client.post(`/api/v1/workspaces/${ws}/trash/restore`, { trash_id: live.id }))).toEqual(unknown);
    expect((await ana.client.post(`/api/v1/workspaces/${ws}/trash/restore`, { trash_id: live.id })).status).toBe(409);
    expect(existsSync(fileOf("hr/old-bands.md"))).toBe(false);
  });

  test("a trash restore needs edit on the folder it lands in: view is not enough, and a hidden folder is as missing", async () => {
    const set = await owner.client.put(access(), { path: "handbook/", entries: [{ who: "group:everyone", level: "view" }, { who: ana.email, level: "edit" }] });
    expect(set.status).toBe(200);
    const made = await owner.client.post(content("handbook/old-rules.md"), { title: "Old rules", body: "Archived." });
    expect(made.status).toBe(201);
    // Committed and read into the page history before it is deleted: the trash restores from git.
    const settled = async () => {
      await server.services.gitSync.idle();
      await server.services.versionIndex.idle(ws);
    };
    await settled();
    expect((await owner.client.delete(content("handbook/old-rules.md"))).status).toBe(204);
    await settled();
    const restore = (u: TestUser, body: Record<string, string>) => u.client.post(`/api/v1/workspaces/${ws}/trash/restore`, body);
    // Bob sees the folder (view) and the deleted page in the trash, but may not write there.
    expect(JSON.stringify((await bob.client.get(`/api/v1/workspaces/${ws}/trash`)).body)).toContain("handbook/old-rules.md");
    const refused = await restore(bob, { trash_id: made.body.page_id });
    expect(refused.status).toBe(403);
    expect(existsSync(fileOf("handbook/old-rules.md"))).toBe(false);
    // Nor may he put it into a folder he cannot see: that answers as a folder that does not exist would.
    const hidden = await restore(bob, { trash_id: made.body.page_id, path: "hr/old-rules.md" });
    expect(hidden.status).toBe(403);
    expect(same(hidden)).toEqual(same(await restore(bob, { trash_id: made.body.page_id, path: "brand-new/old-rules.md" })));
    expect(existsSync(fileOf("hr/old-rules.md"))).toBe(false);
    // Ana, with edit on the folder, brings it back.
    const back = await restore(ana, { trash_id: made.body.page_id });
    expect(back.status).toBe(200);
    expect(back.body).toMatchObject({ page_id: made.body.page_id, path: "handbook/old-rules.md" });
  });
});

describe("the quality scan", () => {
  test("scans as if the hidden pages did not exist: a link to one is as dead as a link to nothing", async () => {
    const made = await owner.client.post(content("links-to-hr.md"), { title: "Links", body: "See [[hr/salaries#pay]] and [[hr/nothing-here]]." });
    expect(made.status).toBe(201);
    const scan = async (u: TestUser) => (await u.client.get(`/api/v1/workspaces/${ws}/quality`)).body;
    const bobs = await scan(bob);
    // The hidden pages are not scanned: no score, no finding, nothing of their text.
    expect(bobs.pages.map((p: any) => p.path).filter((p: string) => p.startsWith("hr/"))).toEqual([]);
    expect(JSON.stringify(bobs)).not.toContain("hr/policies");
    expect(JSON.stringify(bobs)).not.toContain(SECRET);
    const mine = bobs.pages.find((p: any) => p.path === "links-to-hr.md");
    const dead = mine.findings.filter((f: any) => f.kind === "dead_link").map((f: any) => f.message);
    expect(dead).toEqual(["[[hr/salaries#pay]] links to hr/salaries.md, which does not exist", "[[hr/nothing-here]] links to hr/nothing-here.md, which does not exist"]);
    const owners = await scan(owner);
    expect(owners.pages.some((p: any) => p.path === "hr/salaries.md")).toBe(true);
    const one = await bob.client.get(`/api/v1/workspaces/${ws}/quality?path=hr/salaries.md`);
    expect(same(one)).toEqual(same(await bob.client.get(`/api/v1/workspaces/${ws}/quality?path=hr/nothing-here.md`)));
  });
});

describe("uploads", () => {
  test("an upload only hidden pages use is as missing as they are, until a visible page uses it", async () => {
    const form = new FormData();
    form.append("file", new File([new TextEncoder().encode("pay scale\n")], "scale.txt", { type: "text/plain" }));
    const up = await ana.client.request("POST", `/api/v1/content/${slug}/uploads`, { body: form });
    expect(up.status).toBe(201);
    const page = await ana.client.get(content("hr/salaries.md"));
    expect((await ana.client.put(content("hr/salaries.md"), { body: `${page.body.content}\n\n[scale](${up.body.url})\n`, lastKnownHash: page.body.content_hash })).status).toBe(200);
    const file = (u: TestUser, name: string) => u.client.get(`/api/v1/content/${slug}/uploads/${name}`);
    const missing = same(await file(bob, up.body.filename.replace(/-[0-9a-z]{26}\./, "-01m8g8000000000000000000aa.")));
    expect(missing.status).toBe(404);
    expect(same(await file(bob, up.body.filename))).toEqual(missing);
    expect((await file(ana, up.body.filename)).status).toBe(200);
    const open = await owner.client.get(content("public.md"));
    expect((await owner.client.put(content("public.md"), { body: `See [the scale](assets/${up.body.filename}).`, lastKnownHash: open.body.content_hash })).status).toBe(200);
    expect((await file(bob, up.body.filename)).status).toBe(200);
  });
});

describe("who is viewing what", () => {
  test("a person on a hidden page is not listed to those it is hidden from; a report of a hidden page counts as none", async () => {
    const viewing = `/api/v1/workspaces/${ws}/viewing`;
    expect((await ana.client.post(viewing, { path: "hr/salaries.md" })).status).toBeLessThan(300);
    expect((await bob.client.post(viewing, { path: "hr/salaries.md" })).status).toBeLessThan(300);
    const listed = async (u: TestUser) => (await u.client.get(viewing)).body.items.map((v: any) => `${v.user_id} ${v.path}`);
    expect(await listed(ana)).toEqual([`${ana.id} hr/salaries.md`]);
    expect(await listed(bob)).toEqual([]);
    expect(await listed(owner)).toEqual([`${ana.id} hr/salaries.md`]);
  });
});

describe("racing a change of the rules", () => {
  test("each read sees the old rules or the new ones, never a mix", async () => {
    const lift = () => owner.client.put(access(), { path: "hr/", entries: [] });
    const restrict = () => owner.client.put(access(), { path: "hr/", entries: [{ who: ana.email, level: "edit" }, { who: vic.email, level: "view" }] });
    const hrIn = (tree: unknown) => {
      const text = JSON.stringify(tree);
      return [text.includes("hr/salaries.md"), text.includes("hr/policies/leave.md")];
    };
    const reads: Array<Promise<boolean[]>> = [];
    const changes: Array<Promise<unknown>> = [];
    for (let i = 0; i < 20; i++) {
      changes.push(i % 2 === 0 ? lift() : restrict());
      for (let j = 0; j < 5; j++) reads.push(bob.client.get(content("tree")).then((r) => hrIn(r.body.items)));
    }
    await Promise.all(changes);
    const seen = await Promise.all(reads);
    // Both hr pages or neither, in every answer; and both states were seen.
    for (const [a, b] of seen) expect(a).toBe(b!);
    expect(new Set(seen.map(([a]) => a)).size).toBe(2);
    await restrict();
    expect((await bob.client.get(content("hr/salaries.md"))).status).toBe(404);
  });
});

describe("a member named in a list who leaves the workspace", () => {
  test("their entry stays and grants nothing; the list saves again with it; a new entry naming them is refused", async () => {
    const leaver = await memberWithRole(server, owner, ws, "editor");
    expect((await owner.client.post(content("projects/plan.md"), { title: "Plan", body: "x" })).status).toBe(201);
    const list = [{ who: leaver.email.toLowerCase(), level: "edit" }, { who: ana.email.toLowerCase(), level: "edit" }];
    expect((await owner.client.put(access(), { path: "projects/", entries: list })).status).toBe(200);
    expect((await leaver.client.get(content("projects/plan.md"))).status).toBe(200);
    expect((await owner.client.delete(`/api/v1/workspaces/${ws}/admin/members/${leaver.id}`)).status).toBe(204);
    expect((await leaver.client.get(content("projects/plan.md"))).status).not.toBe(200);
    expect((await owner.client.get(access())).body.restricted["projects/"]).toEqual(list);
    // Saved again as it is (the entry was already there): accepted.
    expect((await owner.client.put(access(), { path: "projects/", entries: list })).status).toBe(200);
    // A new entry for someone who is no longer a member: refused, nothing changes.
    const fresh = await owner.client.put(access(), { path: "projects/plan.md", entries: [{ who: leaver.email, level: "view" }] });
    expect(fresh.status).toBe(400);
    expect(fresh.body.message).toContain("not a member");
    expect(Object.keys((await owner.client.get(access())).body.restricted)).not.toContain("projects/plan.md");
    expect((await owner.client.put(access(), { path: "projects/", entries: [] })).status).toBe(200);
    expect((await owner.client.delete(content("projects/plan.md"))).status).toBe(204);
  });
});

describe("starting a new folder", () => {
  // A new folder F is judged by A, the deepest folder above it that the writer sees: refused when A
  // holds a rule hidden from them in a sub-folder, whatever F is called. teams/ is a folder the
  // editors Bea and Cal see with teams/finance/ hidden in it; clients/ one they see with a single
  // page hidden in a sub-folder of it; guides/ holds nothing hidden from them beneath. (Two new
  // editors: each has a bucket of content writes of their own.)
  const status = (r: ApiResponse) => ({ status: r.status, type: r.headers.get("content-type"), text: r.text.replace(String(r.body?.request_id), "<request id>") });
  const settled = async () => {
    await server.services.gitSync.idle();
    await server.services.versionIndex.idle(ws);
  };
  function stored() {
    const root = server.services.ledger.dir(ws).root;
    const files = (dir: string): string[] =>
      readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.name === ".git" ? [] : e.isDirectory() ? files(join(dir, e.name)) : [join(dir, e.name)]));
    return {
      pages: server.services.db.query("SELECT * FROM pages WHERE workspace_id = ? ORDER BY id").all(ws),
      files: files(root).sort().map((f) => [f, readFileSync(f, "utf8")]),
    };
  }
  let trashed: string;
  let bea: TestUser;
  let cal: TestUser;

  beforeAll(async () => {
    bea = await memberWithRole(server, owner, ws, "editor");
    cal = await memberWithRole(server, owner, ws, "editor");
    for (const [path, title] of [["teams/about.md", "About"], ["teams/finance/budget.md", "Budget"], ["clients/overview.md", "Clients"], ["clients/acme/contract.md", "Contract"], ["guides/note.md", "Note"]]) {
      expect((await owner.client.post(content(path!), { title, body: "x" })).status, path).toBe(201);
    }
    expect((await owner.client.put(access(), { path: "teams/finance/", entries: [{ who: ana.email, level: "edit" }] })).status).toBe(200);
    expect((await owner.client.put(access(), { path: "clients/acme/contract.md", entries: [{ who: ana.email, level: "edit" }] })).status).toBe(200);
    // A deleted page Bob sees in the trash, to restore to a path he names.
    await settled();
    expect((await owner.client.delete(content("guides/note.md"))).status).toBe(204);
    await settled();
    trashed = server.services.db.query<{ id: string }, [string]>("SELECT id FROM pages WHERE workspace_id = ? AND path = 'guides/note.md' AND deleted_at IS NOT NULL").get(ws)!.id;
  });

  /** Each way a page lands at a path the writer names, into folder `f`. */
  const LANDINGS: Record<string, (u: TestUser, f: string) => Promise<ApiResponse>> = {
    create: (u, f) => u.client.post(content(`${f}/new.md`), { title: "New", body: "x" }),
    "create two folders deep": (u, f) => u.client.post(content(`${f}/deeper/new.md`), { title: "New", body: "x" }),
    "upsert without a hash": (u, f) => u.client.put(content(`${f}/budget.md`), { body: "x", frontmatter: { title: "T" } }),
    "move in": (u, f) => u.client.patch(content("public.md"), { new_path: `${f}/public.md` }),
    "move by path": (u, f) => u.client.post(content("move"), { path: "public.md", new_path: `${f}/public.md` }),
    "trash restore to a named path": (u, f) => u.client.post(`/api/v1/workspaces/${ws}/trash/restore`, { trash_id: trashed, path: `${f}/note.md` }),
  };

  test("under a folder that holds one hidden from Bea, a hidden name and a fresh one are refused byte for byte alike, and nothing is written", async () => {
    const before = stored();
    const pairs: Array<[string, string]> = [
      ["teams/finance", "teams/fresh"],
      // The folder holding only a hidden page, and a fresh one beside it.
      ["clients/acme", "clients/fresh"],
      // At the root, which holds both.
      ["teams/finance", "brand-new"],
    ];
    const refusal = status(await LANDINGS.create!(bea, "teams/finance"));
    expect(refusal.status).toBe(403);
    expect(refusal.text).toContain("a page goes into a folder you can see");
    for (const [name, attempt] of Object.entries(LANDINGS)) {
      for (const [hidden, fresh] of pairs) {
        expect(status(await attempt(bea, hidden)), `${name}: ${hidden}`).toEqual(refusal);
        expect(status(await attempt(bea, fresh)), `${name}: ${fresh}`).toEqual(refusal);
      }
    }
    // Case and encoded variants of the hidden folder, and of a fresh one.
    for (const [hidden, fresh] of [["TEAMS/Finance", "Teams/fresh"], ["teams%2Ffinance", "teams%2Ffresh"]]) {
      expect(status(await LANDINGS.create!(bea, hidden!)), hidden).toEqual(refusal);
      expect(status(await LANDINGS.create!(bea, fresh!)), fresh).toEqual(refusal);
    }
    // The hidden page's exact name answers as any other name in a folder she does not see.
    const post = (path: string) => bea.client.post(content(path), { title: "Mine", body: "x" });
    for (const path of ["clients/acme/contract.md", "clients/acme/other.md", "clients/fresh/contract.md"]) expect(status(await post(path)), path).toEqual(refusal);
    expect(stored()).toEqual(before);
  });

  test("under a folder that holds nothing hidden from Cal, he starts one, however deep; a page hidden directly in it does not count", async () => {
    expect((await owner.client.post(content("guides/minutes.md"), { title: "Minutes", body: "x" })).status).toBe(201);
    expect((await owner.client.put(access(), { path: "guides/minutes.md", entries: [{ who: ana.email, level: "edit" }] })).status).toBe(200);
    const made: string[] = [];
    const created = async (r: ApiResponse, path: string) => {
      expect(r.status, `${path}: ${r.text}`).toBeLessThan(300);
      made.push(path);
    };
    await created(await LANDINGS.create!(cal, "guides/cals"), "guides/cals/new.md");
    await created(await LANDINGS["create two folders deep"]!(cal, "guides/cals-a/b"), "guides/cals-a/b/deeper/new.md");
    await created(await LANDINGS["upsert without a hash"]!(cal, "guides/cals-up"), "guides/cals-up/budget.md");
    await created(await LANDINGS["trash restore to a named path"]!(cal, "guides/cals-restored"), "guides/cals-restored/note.md");
    // In a folder of his own making, once it holds a page he sees, as in any folder he sees.
    await created(await cal.client.post(content("guides/cals/second.md"), { title: "Second", body: "x" }), "guides/cals/second.md");
    expect((await LANDINGS["move in"]!(cal, "guides/cals-moved")).status).toBe(200);
    expect((await cal.client.patch(content("guides/cals-moved/public.md"), { new_path: "public.md" })).status).toBe(200);
    const tree = JSON.stringify((await cal.client.get(content("tree"))).body);
    for (const path of made) expect(tree).toContain(path);
    expect(tree).not.toContain("minutes");
    for (const path of made) expect((await owner.client.delete(content(path))).status, path).toBe(204);
    expect((await owner.client.put(access(), { path: "guides/minutes.md", entries: [] })).status).toBe(200);
    expect((await owner.client.delete(content("guides/minutes.md"))).status).toBe(204);
  });

  test("who may see the hidden folder starts one beside it; an admin starts one anywhere, the hidden folder included", async () => {
    const made: string[] = [];
    for (const [u, path] of [[ana, "teams/anas/new.md"], [owner, "teams/owners/new.md"], [owner, "teams/finance/q4/new.md"], [owner, "clients/acme/new/new.md"]] as const) {
      const r = await u.client.post(content(path), { title: "New", body: "x" });
      expect(r.status, path).toBe(201);
      made.push(path);
    }
    for (const path of made) expect((await owner.client.delete(content(path))).status, path).toBe(204);
  });
});
