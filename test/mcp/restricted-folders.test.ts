import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { registerUser, type TestUser } from "../helpers/factories.ts";
import { memberWithRole } from "../access/support.ts";
import { createKey, httpClient, ok, refused, type McpClient } from "./fixture.ts";

/**
 * Restricted folders through a real MCP client (docs/decisions/restricted-folders.md): the admin
 * restricts `hr/` with quire_set_access; an editor without access gets nothing of it from any tool,
 * and the admins' tools are listed only to keys holding the admin scope.
 */
let server: TestServer;
let owner: TestUser;
let admin: McpClient;
let bob: McpClient;
let ana: McpClient;
const SECRET = "quokkaledger";

beforeAll(async () => {
  server = await startTestServer();
  const url = `${server.url}/mcp`;
  owner = await registerUser(server.url);
  const ws = owner.workspaceId;
  const anaUser = await memberWithRole(server, owner, ws, "editor");
  const bobUser = await memberWithRole(server, owner, ws, "editor");
  for (const [path, title, body] of [
    ["hr/salaries.md", "Salaries", `Bands. ${SECRET}.`],
    ["guides/start.md", "Start", "See [[hr/salaries]] and the rest."],
    ["teams/about.md", "About", "The teams."],
    ["teams/finance/budget.md", "Budget", "Numbers."],
  ]) {
    expect((await owner.client.post(`/api/v1/content/${owner.workspaceSlug}/${path}`, { title, body })).status).toBe(201);
  }
  admin = await httpClient(url, (await createKey(owner, ["read", "write", "delete", "admin"])).key);
  // Keys limited to the workspace belong to its organization, so members' keys reach it.
  bob = await httpClient(url, (await createKey(bobUser, ["read", "write"], { workspace_id: ws })).key);
  ana = await httpClient(url, (await createKey(anaUser, ["read", "write"], { workspace_id: ws })).key);
  const set = await ok(admin, "quire_set_access", { workspace: owner.workspaceSlug, path: "hr/", entries: [{ who: anaUser.email, level: "edit" }] });
  expect(set).toMatchObject({ path: "hr/", restricted: true, from: "hr/" });
  await ok(admin, "quire_set_access", { workspace: owner.workspaceSlug, path: "teams/finance/", entries: [{ who: anaUser.email, level: "edit" }] });
});
afterAll(async () => {
  for (const c of [admin, bob, ana]) await c?.close();
  await server.close();
});

describe("the admins' tools", () => {
  test("are listed to an admin-scoped key only, and read back what was set", async () => {
    const names = async (c: McpClient) => (await c.listTools()).tools.map((t: { name: string }) => t.name);
    expect(await names(admin)).toContain("quire_set_access");
    // The admin's list, access tools included, keeps the budget every list keeps (docs/architecture.md §12).
    expect(JSON.stringify((await admin.listTools()).tools).length / 4).toBeLessThan(8_500);
    expect(await names(bob)).not.toContain("quire_get_access");
    expect(await names(bob)).not.toContain("quire_set_access");
    const rules = await ok(admin, "quire_get_access", { workspace: owner.workspaceSlug });
    expect(Object.keys(rules.restricted)).toEqual(["hr/", "teams/finance/"]);
    expect(await refused(bob, "quire_set_access", { path: "hr/", entries: [] })).toContain("admin scope");
  });
});

describe("an editor without access", () => {
  test("reads, lists, searches and navigates as if hr/ did not exist", async () => {
    // The answer names the path asked for; apart from it, hidden and missing read the same.
    const answer = async (tool: string, path: string) => (await refused(bob, tool, { path })).replaceAll(path.replace(/^\//, ""), "<path>");
    const missing = await answer("quire_read_page", "hr/nothing-here");
    expect(missing).toContain("Page not found: <path>.");
    expect(await answer("quire_read_page", "hr/salaries")).toBe(missing);
    expect(await answer("quire_read_page", "HR/salaries.md")).toBe(missing.replace("<path>.", "<path>."));
    expect(await answer("quire_get_context", "hr/salaries")).toBe(await answer("quire_get_context", "hr/nothing-here"));
    const everything = JSON.stringify([
      await ok(bob, "quire_list_pages", {}),
      await ok(bob, "quire_get_tree", {}),
      await ok(bob, "quire_get_manifest", {}),
      await ok(bob, "quire_search", { query: SECRET }),
      await ok(bob, "quire_get_context", { path: "guides/start" }),
    ]);
    expect(everything).not.toContain("Salaries");
    expect(everything).not.toContain(SECRET);
    // The one mention is the visible page's own link, shown without a title, as a link to nothing.
    expect(everything.split("hr/salaries").length - 1).toBe(1);
    expect(everything).toContain('{"path":"hr/salaries.md","title":null,"exists":false}');
    expect((await ok(bob, "quire_search", { query: SECRET })).items).toEqual([]);
  });

  test("cannot write, move or delete there", async () => {
    // A write into the hidden folder answers as one into a folder that does not exist.
    const hiddenWrite = await refused(bob, "quire_write_page", { path: "hr/salaries", body: "pwned" });
    expect(hiddenWrite).toBe(await refused(bob, "quire_write_page", { path: "no-such-folder/salaries", body: "pwned" }));
    expect(hiddenWrite).toContain("a page goes into a folder you can see");
    expect(await refused(bob, "quire_move_page", { path: "hr/salaries", new_path: "mine" })).toMatch(/not found/i);
    const moveIn = await refused(bob, "quire_move_page", { path: "guides/start", new_path: "hr/start" });
    expect(moveIn).toBe(await refused(bob, "quire_move_page", { path: "guides/start", new_path: "no-such-folder/start" }));
    // The editing tools name the page: a hidden one is as missing.
    const edit = (path: string) => refused(bob, "quire_edit_page", { path, body: "x", last_known_hash: "sha256:" + "0".repeat(64) });
    expect(await edit("hr/salaries")).toMatch(/not found/i);
    expect((await edit("hr/salaries")).replaceAll("hr/salaries", "<p>")).toBe((await edit("hr/nothing-here")).replaceAll("hr/nothing-here", "<p>"));
    const page = await ok(admin, "quire_read_page", { path: "hr/salaries", workspace: owner.workspaceSlug });
    expect(page.content).toContain(SECRET);
    // Its id, guessed, restores nothing and answers as an unknown id.
    expect(page.page_id).toMatch(/^[0-9A-Z]{26}$/);
    const restore = (id: string) => refused(bob, "quire_restore_page", { trash_id: id });
    expect(await restore(page.page_id)).toBe(await restore("01M8G8000000000000000000AA"));
  });

  test("starts no folder under teams/, which holds teams/finance/: the hidden name and a fresh one answer byte for byte alike, and nothing is written", async () => {
    const ws = owner.workspaceId;
    const stored = () => {
      const files = (dir: string): string[] =>
        readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.name === ".git" ? [] : e.isDirectory() ? files(join(dir, e.name)) : [join(dir, e.name)]));
      return {
        pages: server.services.db.query("SELECT * FROM pages WHERE workspace_id = ? ORDER BY id").all(ws),
        files: files(server.services.ledger.dir(ws).root).sort().map((f) => [f, readFileSync(f, "utf8")]),
      };
    };
    const before = stored();
    const result = async (name: string, args: Record<string, unknown>) => JSON.stringify(await bob.callTool({ name, arguments: args }));
    const write = (folder: string) => result("quire_write_page", { path: `${folder}/budget`, body: "mine" });
    const move = (folder: string) => result("quire_move_page", { path: "guides/start", new_path: `${folder}/start` });
    const refusal = await write("teams/finance");
    expect(refusal).toContain('"isError":true');
    expect(refusal).toContain("a page goes into a folder you can see");
    for (const folder of ["teams/fresh", "TEAMS/Finance", "teams/fresh/deeper"]) expect(await write(folder), folder).toBe(refusal);
    const moveRefusal = await move("teams/finance");
    expect(moveRefusal).toContain('"isError":true');
    expect(await move("teams/fresh")).toBe(moveRefusal);
    expect(stored()).toEqual(before);
  });

  test("starts a folder under guides/, which holds nothing hidden from him; an admin writes into the hidden folder", async () => {
    const mine = await ok(bob, "quire_write_page", { path: "guides/bobs-notes/first", body: "Mine." });
    expect(mine.path).toBe("guides/bobs-notes/first.md");
    expect((await ok(bob, "quire_move_page", { path: "guides/bobs-notes/first", new_path: "guides/bobs-moved/first" })).path).toBe("guides/bobs-moved/first.md");
    await ok(admin, "quire_delete_page", { path: "guides/bobs-moved/first", workspace: owner.workspaceSlug });
    await ok(admin, "quire_write_page", { path: "teams/finance/q4", body: "Plan.", workspace: owner.workspaceSlug });
    await ok(admin, "quire_delete_page", { path: "teams/finance/q4", workspace: owner.workspaceSlug });
  });

  test("the member with access reads and finds it", async () => {
    expect((await ok(ana, "quire_read_page", { path: "hr/salaries" })).content).toContain(SECRET);
    expect((await ok(ana, "quire_search", { query: SECRET })).items.map((h: { path: string }) => h.path)).toEqual(["hr/salaries.md"]);
  });
});
