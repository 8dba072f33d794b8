import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { startTestServer, type TestServer } from "../../helpers/server.ts";
import { registerUser, type TestUser } from "../../helpers/factories.ts";
import { Client, type ApiResponse } from "../../helpers/client.ts";
import { memberWithRole } from "../support.ts";

/**
 * The role-and-restriction matrix (docs/decisions/restricted-folders.md): every page endpoint ×
 * {admin, editor and viewer with and without access, API keys, a member who joined by share link,
 * anonymous}, and a page share link opened by each of them. For everyone without access a hidden page answers exactly as a missing one (status
 * and body); nothing a refused request asked changes the database or the files.
 */
let server: TestServer;
let owner: TestUser;
let ws: string;
let slug: string;
const clients: Record<string, Client> = {};

async function keyClient(user: TestUser): Promise<Client> {
  const r = await user.client.post("/api/v1/api-keys", { name: "matrix", scopes: ["read", "write", "delete"], workspace_id: ws });
  if (r.status !== 201) throw new Error(`key: ${r.status} ${r.text}`);
  return new Client(server.url).withToken(r.body.key);
}

beforeAll(async () => {
  server = await startTestServer();
  owner = await registerUser(server.url);
  ws = owner.workspaceId;
  slug = owner.workspaceSlug;
  const admin = await memberWithRole(server, owner, ws, "admin");
  const editorIn = await memberWithRole(server, owner, ws, "editor");
  const editorOut = await memberWithRole(server, owner, ws, "editor");
  const viewerIn = await memberWithRole(server, owner, ws, "viewer");
  const viewerOut = await memberWithRole(server, owner, ws, "viewer");
  const joiner = await registerUser(server.url);
  const link = await owner.client.post(`/api/v1/workspaces/${ws}/share-links`, { role: "editor" });
  expect((await joiner.client.post(`/api/v1/share-links/${link.body.token}/use`)).status).toBeLessThan(300);
  // Editors may delete here, so a delete is refused by the restriction, not by the role.
  expect((await owner.client.put(`/api/v1/workspaces/${ws}/admin/settings`, { editor_can_delete_pages: true })).status).toBe(200);
  expect((await owner.client.post(`/api/v1/content/${slug}/hr/salaries.md`, { title: "Salaries", body: "Bands." })).status).toBe(201);
  expect((await owner.client.post(`/api/v1/content/${slug}/open.md`, { title: "Open", body: "Open." })).status).toBe(201);
  // team/ is seen by everyone and holds team/board/, restricted like hr/; guides/ holds nothing restricted.
  for (const path of ["team/notes.md", "team/board/minutes.md", "guides/intro.md"]) {
    expect((await owner.client.post(`/api/v1/content/${slug}/${path}`, { title: "T", body: "x" })).status).toBe(201);
  }
  for (const path of ["hr/", "team/board/"]) {
    const set = await owner.client.put(`/api/v1/workspaces/${ws}/access`, {
      path,
      entries: [{ who: editorIn.email, level: "edit" }, { who: viewerIn.email, level: "view" }],
    });
    expect(set.status).toBe(200);
  }
  // The history read, so that a page it has not reached yet does not answer "indexing, no versions so far".
  await server.services.gitSync.idle();
  await server.services.versionIndex.idle(ws);
  Object.assign(clients, {
    owner: owner.client,
    admin: admin.client,
    "editor with access": editorIn.client,
    "viewer with access": viewerIn.client,
    "API key with access": await keyClient(editorIn),
    "editor without access": editorOut.client,
    "viewer without access": viewerOut.client,
    "API key without access": await keyClient(editorOut),
    "share-link editor": joiner.client,
    anonymous: new Client(server.url),
  });
});
afterAll(() => server.close());

const WITHOUT = ["editor without access", "viewer without access", "API key without access", "share-link editor"];
const WITH = ["owner", "admin", "editor with access", "viewer with access", "API key with access"];

/** Each endpoint, asked about `path` (a page of hr/). */
const ENDPOINTS: Record<string, (c: Client, path: string) => Promise<ApiResponse>> = {
  "read a page": (c, p) => c.get(`/api/v1/content/${slug}/${p}`),
  "update a page": (c, p) => c.put(`/api/v1/content/${slug}/${p}`, { body: "changed", lastKnownHash: "sha256:" + "0".repeat(64) }),
  "upsert a page": (c, p) => c.put(`/api/v1/content/${slug}/${p}`, { body: "changed", frontmatter: { title: "Mine" } }),
  "create a page": (c, p) => c.post(`/api/v1/content/${slug}/${p.replace(".md", "-new.md")}`, { title: "New", body: "x" }),
  "move a page": (c, p) => c.patch(`/api/v1/content/${slug}/${p}`, { new_path: "taken.md" }),
  "move a page in": (c, p) => c.patch(`/api/v1/content/${slug}/open.md`, { new_path: p.replace(".md", "-in.md") }),
  "delete a page": (c, p) => c.delete(`/api/v1/content/${slug}/${p}`),
  "comment": (c, p) => c.post(`/api/v1/workspaces/${ws}/comments`, { page_path: p, body: "hello" }),
  "list comments": (c, p) => c.get(`/api/v1/workspaces/${ws}/comments?page=${p}`),
  "page activity": (c, p) => c.get(`/api/v1/workspaces/${ws}/page-activity?page=${p}`),
  "page history": (c, p) => c.get(`/api/v1/workspaces/${ws}/history?path=${p}`),
  "quality of a page": (c, p) => c.get(`/api/v1/workspaces/${ws}/quality?path=${p}`),
  "effective access": (c, p) => c.get(`/api/v1/workspaces/${ws}/access/effective?path=${p}`),
};

const shape = (r: ApiResponse) => ({ status: r.status, body: r.body && typeof r.body === "object" ? { ...r.body, request_id: undefined } : r.text });

function snapshot() {
  const db = server.services.db;
  const root = server.services.ledger.dir(ws).root;
  const files = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.name === ".git" ? [] : e.isDirectory() ? files(join(dir, e.name)) : [join(dir, e.name)]));
  return {
    pages: db.query("SELECT id, path, content_hash, deleted_at FROM pages WHERE workspace_id = ? ORDER BY id").all(ws),
    comments: db.query("SELECT id FROM comments WHERE workspace_id = ?").all(ws),
    rules: db.query("SELECT * FROM access_rules WHERE workspace_id = ?").all(ws),
    links: db.query("SELECT * FROM share_links WHERE workspace_id = ? ORDER BY id").all(ws),
    files: files(root).sort().map((f) => [f, readFileSync(f, "utf8")]),
  };
}

describe("without access, a hidden page is a missing page", () => {
  for (const who of WITHOUT) {
    test(who, async () => {
      const before = snapshot();
      const c = clients[who]!;
      for (const [name, call] of Object.entries(ENDPOINTS)) {
        const hidden = shape(await call(c, "hr/salaries.md"));
        const missing = shape(await call(c, "hr/missing.md"));
        const rename = (v: unknown) => JSON.stringify(v).replaceAll("hr/missing", "hr/salaries");
        expect(rename(hidden), `${who}: ${name}`).toBe(rename(missing));
        if (!["list comments", "page activity"].includes(name)) expect(hidden.status, `${who}: ${name}`).toBeGreaterThanOrEqual(400);
      }
      expect(snapshot()).toEqual(before);
    });
  }

  // Writing into the hidden folder must not tell it from a folder that does not exist.
  const LANDINGS: Record<string, (c: Client, folder: string) => Promise<ApiResponse>> = {
    "create a page": (c, f) => c.post(`/api/v1/content/${slug}/${f}/new.md`, { title: "New", body: "x" }),
    "upsert a page": (c, f) => c.put(`/api/v1/content/${slug}/${f}/salaries.md`, { body: "x", frontmatter: { title: "Mine" } }),
    "move a page in": (c, f) => c.patch(`/api/v1/content/${slug}/open.md`, { new_path: `${f}/open.md` }),
  };
  for (const who of WITHOUT) {
    test(`${who}: a write into hr/ answers as one into a folder that does not exist`, async () => {
      const before = snapshot();
      for (const [name, call] of Object.entries(LANDINGS)) {
        expect(shape(await call(clients[who]!, "hr")), `${who}: ${name}`).toEqual(shape(await call(clients[who]!, "no-such-folder")));
      }
      expect(snapshot()).toEqual(before);
    });
  }

  // A new folder under team/ is judged by team/, which holds team/board/: its name tells nothing.
  const bytes = (r: ApiResponse) => ({ status: r.status, type: r.headers.get("content-type"), text: r.text.replace(String(r.body?.request_id), "<request id>") });
  for (const who of WITHOUT) {
    test(`${who}: a write into team/board/ answers byte for byte as one into a new folder beside it`, async () => {
      const before = snapshot();
      for (const [name, call] of Object.entries(LANDINGS)) {
        const hidden = bytes(await call(clients[who]!, "team/board"));
        expect(hidden.status, `${who}: ${name}`).toBe(403);
        expect(hidden, `${who}: ${name}`).toEqual(bytes(await call(clients[who]!, "team/fresh")));
        expect(hidden, `${who}: ${name}`).toEqual(bytes(await call(clients[who]!, "team/fresh/deeper")));
      }
      expect(snapshot()).toEqual(before);
    });
  }

  test("anonymous: 401 for every endpoint, hidden or missing", async () => {
    for (const [name, call] of Object.entries(ENDPOINTS)) {
      expect((await call(clients.anonymous!, "hr/salaries.md")).status, name).toBe(401);
      expect((await call(clients.anonymous!, "hr/missing.md")).status, name).toBe(401);
    }
  });
});

describe("with access, the page is there", () => {
  for (const who of WITH) {
    test(who, async () => {
      const c = clients[who]!;
      expect((await c.get(`/api/v1/content/${slug}/hr/salaries.md`)).status).toBe(200);
      expect((await c.get(`/api/v1/workspaces/${ws}/access/effective?path=hr/salaries.md`)).status).toBe(200);
      expect(JSON.stringify((await c.get(`/api/v1/content/${slug}/tree`)).body)).toContain("hr/salaries.md");
    });
  }
});

describe("starting a new folder", () => {
  const create = (c: Client, path: string) => c.post(`/api/v1/content/${slug}/${path}`, { title: "New", body: "x" });
  const removed = async (path: string) => expect((await owner.client.delete(`/api/v1/content/${slug}/${path}`)).status, path).toBe(204);

  // Under guides/, which holds nothing hidden from anyone, every editor starts a folder.
  for (const who of ["editor without access", "API key without access", "share-link editor", "editor with access", "API key with access"]) {
    test(`${who}: under a folder that holds nothing hidden from them`, async () => {
      const path = `guides/${who.replaceAll(" ", "-")}/new.md`;
      expect((await create(clients[who]!, path)).status).toBe(201);
      await removed(path);
    });
  }

  // Who sees team/board/ starts a folder beside it; admins start one anywhere, in it too.
  for (const who of ["owner", "admin", "editor with access", "API key with access"]) {
    test(`${who}: under team/, and admins inside team/board/`, async () => {
      const paths = [`team/${who.replaceAll(" ", "-")}/new.md`, ...(["owner", "admin"].includes(who) ? [`team/board/${who}/new.md`, `hr/${who}/new.md`] : [])];
      for (const path of paths) expect((await create(clients[who]!, path)).status, path).toBe(201);
      for (const path of paths) await removed(path);
    });
  }
});

describe("a page share link", () => {
  const open = (c: Client, token: string) => c.get(`/api/v1/share-links/${token}/page`);
  const bytes = (r: ApiResponse) => ({ status: r.status, type: r.headers.get("content-type"), text: r.text.replace(String(r.body?.request_id), "<request id>") });
  const tokens = { hidden: "", missing: "", board: "" };

  beforeAll(async () => {
    const make = async (path: string) => (await owner.client.post(`/api/v1/workspaces/${ws}/share-links`, { role: "commenter", path })).body.token as string;
    tokens.hidden = await make("hr/salaries.md");
    tokens.board = await make("team/board/minutes.md");
    // A link to a page that is not there any more: what "missing" answers.
    expect((await owner.client.post(`/api/v1/content/${slug}/hr/gone.md`, { title: "Gone", body: "x" })).status).toBe(201);
    tokens.missing = await make("hr/gone.md");
    expect((await owner.client.delete(`/api/v1/content/${slug}/hr/gone.md`)).status).toBe(204);
  });

  for (const who of [...WITHOUT, "anonymous"]) {
    test(`${who}: a link to a hidden page answers byte for byte as a link to a missing one; nothing changes`, async () => {
      const before = snapshot();
      const c = clients[who]!;
      const missing = bytes(await open(c, tokens.missing));
      expect(missing.status).toBe(404);
      expect(bytes(await open(c, tokens.hidden))).toEqual(missing);
      expect(bytes(await open(c, tokens.board))).toEqual(missing);
      expect(bytes(await open(c, "not-a-token"))).toEqual(missing);
      expect(snapshot()).toEqual(before);
    });
  }

  for (const who of WITH) {
    test(`${who}: opens it with their own access`, async () => {
      const r = await open(clients[who]!, tokens.hidden);
      expect(r.status).toBe(200);
      expect(r.body).toMatchObject({ page: { path: "hr/salaries.md" }, via: "access" });
    });
  }

  test("with link:anyone allowed on hr/, everyone without access opens it at the allowance's level; off again, none does", async () => {
    const hrEntries = (await owner.client.get(`/api/v1/workspaces/${ws}/access`)).body.restricted["hr/"] as object[];
    const rule = (extra: object[]) => owner.client.put(`/api/v1/workspaces/${ws}/access`, { path: "hr/", entries: [...hrEntries, ...extra] });
    expect((await rule([{ who: "link:anyone", level: "view" }])).status).toBe(200);
    try {
      for (const who of [...WITHOUT, "anonymous"]) {
        const before = snapshot();
        const r = await open(clients[who]!, tokens.hidden);
        expect(r.status, who).toBe(200);
        expect(r.body, who).toMatchObject({ page: { path: "hr/salaries.md" }, level: "view", via: "link" });
        // team/board/ has its own rule without the allowance: still missing.
        expect(bytes(await open(clients[who]!, tokens.board)), who).toEqual(bytes(await open(clients[who]!, tokens.missing)));
        expect(snapshot()).toEqual(before);
      }
    } finally {
      expect((await rule([])).status).toBe(200);
    }
    for (const who of [...WITHOUT, "anonymous"]) expect((await open(clients[who]!, tokens.hidden)).status, who).toBe(404);
  });
});
