import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestServer, type TestServer } from "../../helpers/server.ts";
import { registerUser, type TestUser } from "../../helpers/factories.ts";
import { Client, type ApiResponse } from "../../helpers/client.ts";
import { memberWithRole } from "../support.ts";
import { ulid } from "../../../src/core/ids.ts";

/**
 * Commenting through a page share link (docs/decisions/restricted-folders.md, "Share links"): a
 * link at `comment` lets the signed-in person holding it read and add to its one page's thread,
 * and nothing else. `hr/` is Ana's (editor, edit) and allows `link:anyone` at comment; Bob and
 * Carl (editors) have no access there; Olga is signed in but no member of the workspace.
 */
let server: TestServer;
let owner: TestUser;
let ana: TestUser;
let bob: TestUser;
let carl: TestUser;
let olga: TestUser;
let anonymous: Client;
let ws: string;
let slug: string;
let commentToken: string;
let commentLinkId: string;
let viewToken: string;
let missing: { status: number; body: unknown };

const content = (path: string) => `/api/v1/content/${slug}/${path}`;
const access = () => `/api/v1/workspaces/${ws}/access`;
const links = () => `/api/v1/workspaces/${ws}/share-links`;
const thread = (token: string) => `/api/v1/share-links/${token}/comments`;
/** The body without the request id, which differs per request by design. */
const same = (r: ApiResponse) => ({ status: r.status, body: { ...r.body, request_id: undefined } });
const setHr = (link: "view" | "comment" | null) =>
  owner.client.put(access(), { path: "hr/", entries: [{ who: ana.email, level: "edit" }, ...(link ? [{ who: "link:anyone", level: link }] : [])] });
/** Everything a refused write could have touched. */
const snapshot = () => ({
  comments: server.services.db.query("SELECT * FROM comments WHERE workspace_id = ? ORDER BY id").all(ws),
  activity: server.services.db.query("SELECT COUNT(*) AS n FROM activity WHERE workspace_id = ?").get(ws),
});

async function link(path: string, role: string): Promise<{ token: string; id: string }> {
  const r = await owner.client.post(links(), { role, path });
  expect(r.status).toBe(201);
  return { token: r.body.token, id: r.body.id };
}

beforeAll(async () => {
  server = await startTestServer();
  owner = await registerUser(server.url);
  ws = owner.workspaceId;
  slug = owner.workspaceSlug;
  ana = await memberWithRole(server, owner, ws, "editor");
  bob = await memberWithRole(server, owner, ws, "editor");
  carl = await memberWithRole(server, owner, ws, "editor");
  olga = await registerUser(server.url);
  anonymous = new Client(server.url);
  for (const path of ["hr/salaries.md", "hr/reviews.md", "gone.md"]) {
    expect((await owner.client.post(content(path), { title: "T", body: "Pay bands." })).status).toBe(201);
  }
  expect((await setHr("comment")).status).toBe(200);
  ({ token: commentToken, id: commentLinkId } = await link("hr/salaries.md", "commenter"));
  ({ token: viewToken } = await link("hr/salaries.md", "viewer"));
  const gone = await link("gone.md", "commenter");
  expect((await owner.client.delete(content("gone.md"))).status).toBe(204);
  missing = same(await bob.client.get(thread(gone.token)));
  expect(missing).toEqual({ status: 404, body: { error: "NOT_FOUND", message: "Page not found", request_id: undefined } });
});
afterAll(() => server.close());

describe("a comment-level link, signed in", () => {
  test("a member without access to the folder comments on its page, attributed to them", async () => {
    const r = await bob.client.post(thread(commentToken), { body: "Are these bands current?" });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ page_path: "hr/salaries.md", parent_id: null, author: { id: bob.id, name: bob.name }, body: "Are these bands current?" });
    // The page's people see it where they read comments; the activity names its author.
    const listed = await ana.client.get(`/api/v1/workspaces/${ws}/comments?page=hr/salaries.md`);
    expect(listed.body.items.map((c: any) => c.id)).toContain(r.body.id);
    const activity = server.services.db.query<{ actor_id: string }, [string]>("SELECT actor_id FROM activity WHERE action = 'comment_added' AND details LIKE ?").get(`%${r.body.id}%`);
    expect(activity?.actor_id).toBe(bob.id);
    // Through the link Bob reads the thread; the page stays hidden from him everywhere else.
    expect((await bob.client.get(thread(commentToken))).body.items.map((c: any) => c.id)).toContain(r.body.id);
    expect((await bob.client.get(`/api/v1/comments/${r.body.id}`)).status).toBe(404);
  });

  test("someone signed in who is no member of the workspace comments too, and replies land in the page's thread", async () => {
    const root = await ana.client.post(`/api/v1/workspaces/${ws}/comments`, { page_path: "hr/salaries.md", body: "Reviewed in March." });
    expect(root.status).toBe(201);
    const reply = await olga.client.post(thread(commentToken), { body: "Thanks, noted.", parent_id: root.body.id });
    expect(reply.status).toBe(201);
    expect(reply.body).toMatchObject({ parent_id: root.body.id, page_path: "hr/salaries.md", author: { id: olga.id, name: olga.name } });
    // A reply to a reply is attached to the thread's root, as elsewhere.
    const nested = await olga.client.post(thread(commentToken), { body: "One more.", parent_id: reply.body.id });
    expect(nested.body.parent_id).toBe(root.body.id);
    const items = (await olga.client.get(thread(commentToken))).body.items;
    expect(items.every((c: any) => c.page_path === "hr/salaries.md")).toBe(true);
    expect(items.map((c: any) => c.id)).toEqual(expect.arrayContaining([root.body.id, reply.body.id, nested.body.id]));
    // Olga is still no member: the workspace's comments stay closed to her.
    expect((await olga.client.get(`/api/v1/workspaces/${ws}/comments`)).status).toBe(404);
  });

  test("a member who sees the page goes by their own access", async () => {
    const r = await ana.client.post(thread(commentToken), { body: "Mine, as always." });
    expect(r.status).toBe(201);
    expect(r.body.author.id).toBe(ana.id);
  });

  test("bad input is refused in the API's error shape and writes nothing", async () => {
    const before = snapshot();
    for (const body of [{ body: "" }, { body: "x", page_path: "guides/other.md" }, { nope: 1 }]) {
      const r = await bob.client.post(thread(commentToken), body);
      expect(r.status).toBe(400);
      expect(r.body.error).toBe("VALIDATION_ERROR");
    }
    expect(snapshot()).toEqual(before);
  });
});

describe("what the link does not open", () => {
  test("a view-level link reads the page but is refused the thread", async () => {
    const before = snapshot();
    for (const c of [bob.client, olga.client]) {
      const add = await c.post(thread(viewToken), { body: "Hello" });
      expect(add.status).toBe(403);
      expect(add.body).toMatchObject({ error: "FORBIDDEN", message: "This link lets you read the page, not comment on it" });
      expect((await c.get(thread(viewToken))).status).toBe(403);
    }
    expect((await bob.client.get(`/api/v1/share-links/${viewToken}/page`)).status).toBe(200);
    expect(snapshot()).toEqual(before);
  });

  test("signed out, the link asks to sign in: no anonymous comments", async () => {
    const before = snapshot();
    const add = await anonymous.post(thread(commentToken), { body: "Anonymous hello" });
    expect(add.status).toBe(401);
    expect(add.body).toMatchObject({ error: "UNAUTHORIZED", message: "Sign in to read and add comments through this link" });
    expect((await anonymous.get(thread(commentToken))).status).toBe(401);
    // A link is opened by a person: an API key (even an admin's) is refused the same way.
    const key = (await olga.client.post("/api/v1/api-keys", { name: "k", scopes: ["admin"] })).body.key;
    expect(key).toBeString();
    const viaKey = await olga.client.post(thread(commentToken), { body: "From a script" }, { token: key });
    expect(viaKey.status).toBe(401);
    expect((await olga.client.get(thread(commentToken), { token: key })).status).toBe(401);
    // The page itself still opens signed out, at the link's level.
    expect((await anonymous.get(`/api/v1/share-links/${commentToken}/page`)).body.level).toBe("comment");
    expect(snapshot()).toEqual(before);
  });

  test("another page's thread cannot be reached by its id: it answers like an id that does not exist", async () => {
    const other = await ana.client.post(`/api/v1/workspaces/${ws}/comments`, { page_path: "hr/reviews.md", body: "Reviews are due." });
    expect(other.status).toBe(201);
    const before = snapshot();
    const reply = await bob.client.post(thread(commentToken), { body: "Peeking", parent_id: other.body.id });
    const unknown = await bob.client.post(thread(commentToken), { body: "Peeking", parent_id: ulid() });
    expect(same(reply)).toEqual(same(unknown));
    expect(same(reply)).toEqual({ status: 404, body: { error: "NOT_FOUND", message: "Parent comment not found", request_id: undefined } });
    expect((await bob.client.get(thread(commentToken))).body.items.map((c: any) => c.id)).not.toContain(other.body.id);
    expect(snapshot()).toEqual(before);
  });

  test("nobody is mentioned into the page who cannot see it", async () => {
    const r = await bob.client.post(thread(commentToken), { body: `Ask @${ana.email} and @${carl.email}, or @${bob.email}` });
    expect(r.status).toBe(201);
    // Ana sees the page; Carl does not, and Bob only holds the link: neither is mentioned into it.
    expect(r.body.mentions).toEqual([ana.id]);
  });

  test("no edit, resolve or delete of the thread through the link's holder", async () => {
    const mine = await bob.client.post(thread(commentToken), { body: "Mine" });
    const anas = await ana.client.post(`/api/v1/workspaces/${ws}/comments`, { page_path: "hr/salaries.md", body: "Ana's" });
    const before = snapshot();
    for (const c of [bob.client, olga.client]) {
      for (const id of [mine.body.id, anas.body.id]) {
        expect((await c.put(`/api/v1/comments/${id}`, { body: "changed" })).status).toBe(404);
        expect((await c.post(`/api/v1/comments/${id}/resolve`)).status).toBe(404);
        expect((await c.delete(`/api/v1/comments/${id}`)).status).toBe(404);
      }
    }
    // The link's routes take no other verbs.
    expect((await bob.client.put(thread(commentToken), { body: "x" })).status).toBe(404);
    expect(snapshot()).toEqual(before);
  });
});

describe("a link that opens nothing", () => {
  test("the allowance turned off or lowered to view: as a missing link, the comments kept; turned on again, the thread is back", async () => {
    const count = snapshot().comments.length;
    for (const level of [null, "view"] as const) {
      expect((await setHr(level)).status).toBe(200);
      const before = snapshot();
      const add = await bob.client.post(thread(commentToken), { body: "Still here?" });
      if (level === null) {
        expect(same(add)).toEqual(missing);
        expect(same(await bob.client.get(thread(commentToken)))).toEqual(missing);
        expect(same(await olga.client.get(thread(commentToken)))).toEqual(missing);
      } else expect(add.status).toBe(403);
      expect(snapshot()).toEqual(before);
    }
    expect(snapshot().comments.length).toBe(count);
    expect((await setHr("comment")).status).toBe(200);
    expect((await bob.client.get(thread(commentToken))).body.items.length).toBeGreaterThan(0);
  });

  test("a revoked link answers as missing; its page's comments stay with the page", async () => {
    const count = snapshot().comments.length;
    expect((await owner.client.delete(`${links()}/${commentLinkId}`)).status).toBe(204);
    const before = snapshot();
    expect(same(await bob.client.post(thread(commentToken), { body: "Hello?" }))).toEqual(missing);
    expect(same(await olga.client.get(thread(commentToken)))).toEqual(missing);
    expect(same(await bob.client.get(thread("x".repeat(43))))).toEqual(missing);
    expect(snapshot()).toEqual(before);
    expect(before.comments.length).toBe(count);
    expect((await ana.client.get(`/api/v1/workspaces/${ws}/comments?page=hr/salaries.md`)).body.items.length).toBeGreaterThan(0);
  });
});
