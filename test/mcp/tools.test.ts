/**
 * Every MCP tool through a real client over Streamable HTTP at `POST /mcp` on the main port (the
 * SDK's 2.x client, 2026-07-28; the 2025 era is covered in http.test.ts), as an API key's owner:
 * results, budgets, the error texts that say what to do next, and bad input of every kind.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, test, setDefaultTimeout } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { registerUser, type TestUser } from "../helpers/factories.ts";
import { git, tryGit } from "../helpers/git-remote.ts";
import { createKey, httpClient, ok, refused, textOf, type McpClient } from "./fixture.ts";

// Real processes and servers on a shared machine: allow for slow moments.
setDefaultTimeout(30_000);

let server: TestServer;
let owner: TestUser;
let mcp: McpClient;
let url: string;
let slug: string;
let wsDir: string;

beforeAll(async () => {
  server = await startTestServer();
  owner = await registerUser(server.url);
  slug = owner.workspaceSlug;
  wsDir = join(server.dataDir, "workspaces", owner.workspaceId);
  url = `${server.url}/mcp`;
  mcp = await httpClient(url, (await createKey(owner, ["read", "write", "delete"])).key);
});
afterAll(async () => {
  await mcp.close();
  await server.close();
});

async function lastCommit(): Promise<string> {
  return (await tryGit(["log", "-1", "--format=%s"], { cwd: wsDir })).stdout.trim();
}
async function waitForCommit(subject: string): Promise<void> {
  for (let i = 0; i < 100; i++) {
    if ((await lastCommit()) === subject) return;
    await Bun.sleep(50);
  }
  expect(await lastCommit()).toBe(subject);
}

describe("pages", () => {
  test("write creates (title from the file name unless given), read returns it, a write commits via MCP", async () => {
    const created = await ok(mcp, "quire_write_page", { path: "/notes/first-steps", body: "Hello from an agent.\n" });
    expect(created).toMatchObject({ path: "notes/first-steps.md", title: "First steps", content: "Hello from an agent.\n", created: true });
    await waitForCommit("Create notes/first-steps.md via MCP");
    const author = (await git(["log", "-1", "--format=%an"], { cwd: wsDir })).trim();
    expect(author).toBe(owner.name);

    const read = await ok(mcp, "quire_read_page", { path: "notes/first-steps.md" });
    expect(read).toMatchObject({ content: "Hello from an agent.\n", truncated: false, next_offset: null, offset: 0, total_chars: 21 });
    expect(read.content_hash).toBe(created.content_hash);

    const replaced = await ok(mcp, "quire_write_page", { path: "notes/first-steps", title: "First steps", body: "Replaced.\n", tags: ["intro"] });
    expect(replaced).toMatchObject({ created: false, content: "Replaced.\n", tags: ["intro"], page_id: created.page_id });
  });

  test("a long page is read in slices: max_chars, truncated, next_offset; never more than 20,000 characters", async () => {
    const body = "x".repeat(45_000) + "😀" + "tail";
    await ok(mcp, "quire_write_page", { path: "long", title: "Long", body });
    const first = await ok(mcp, "quire_read_page", { path: "long" });
    expect(first.content.length).toBe(20_000);
    expect(first).toMatchObject({ truncated: true, next_offset: 20_000, total_chars: body.length });
    const second = await ok(mcp, "quire_read_page", { path: "long", offset: first.next_offset });
    const third = await ok(mcp, "quire_read_page", { path: "long", offset: second.next_offset });
    expect(first.content + second.content + third.content).toBe(body);
    expect(third).toMatchObject({ truncated: false, next_offset: null });
    // A cut never splits the two halves of an emoji.
    const cut = await ok(mcp, "quire_read_page", { path: "long", offset: 44_990, max_chars: 11 });
    expect(cut.content).toBe("x".repeat(10));
    expect(cut.next_offset).toBe(45_000);
    expect((await refused(mcp, "quire_read_page", { path: "long", max_chars: 20_001 }))).toContain("max_chars");
  });

  test("update with edits changes exactly the found text; a find matching twice or nowhere is refused naming the edit", async () => {
    const page = await ok(mcp, "quire_write_page", { path: "edits", title: "Edits", body: "alpha beta\ngamma beta\n" });
    const twice = await refused(mcp, "quire_update_page", { path: "edits", last_known_hash: page.content_hash, edits: [{ find: "gamma", replace: "G" }, { find: "beta", replace: "B" }] });
    expect(twice).toContain("edits[1].find: matches 2 times");
    const none = await refused(mcp, "quire_update_page", { path: "edits", last_known_hash: page.content_hash, edits: [{ find: "delta", replace: "D" }] });
    expect(none).toContain("edits[0].find: matches nothing");
    // Nothing was applied by the refused calls.
    expect((await ok(mcp, "quire_read_page", { path: "edits" })).content).toBe("alpha beta\ngamma beta\n");

    const done = await ok(mcp, "quire_update_page", {
      path: "/edits.md",
      last_known_hash: page.content_hash,
      edits: [{ find: "alpha beta", replace: "alpha BETA" }, { find: "gamma", replace: "GAMMA" }],
      frontmatter: { description: "Edited by an agent" },
    });
    expect(done).toMatchObject({ content: "alpha BETA\nGAMMA beta\n", description: "Edited by an agent" });
    await waitForCommit("Update edits.md via MCP");
    expect(await refused(mcp, "quire_update_page", { path: "edits", last_known_hash: done.content_hash, body: "x", edits: [{ find: "a", replace: "b" }] })).toContain("either body or edits");
  });

  test("a stale hash is refused naming the current one; read → write back unchanged is byte-identical and makes no commit", async () => {
    const page = await ok(mcp, "quire_read_page", { path: "guides/getting-started" });
    const file = join(wsDir, "guides/getting-started.md");
    const before = readFileSync(file);
    const stale = await refused(mcp, "quire_update_page", { path: "guides/getting-started", last_known_hash: `sha256:${"0".repeat(64)}`, body: "lost?" });
    expect(stale).toContain(`its current hash is ${page.content_hash}`);
    expect(stale).toContain("quire_read_page");
    expect(JSON.parse(stale.slice(stale.indexOf("{")))).toMatchObject({ error: "CONFLICT", current_hash: page.content_hash });

    const commits = (await git(["rev-list", "--count", "HEAD"], { cwd: wsDir })).trim();
    const same = await ok(mcp, "quire_update_page", {
      path: "guides/getting-started",
      last_known_hash: page.content_hash,
      body: page.content,
      frontmatter: { title: page.title, tags: page.tags },
    });
    expect(same.content_hash).toBe(page.content_hash);
    const rewritten = await ok(mcp, "quire_write_page", { path: "guides/getting-started", title: page.title, body: page.content, tags: page.tags, description: page.description });
    expect(rewritten.content_hash).toBe(page.content_hash);
    expect(readFileSync(file).equals(before)).toBe(true);
    await Bun.sleep(300);
    expect((await git(["rev-list", "--count", "HEAD"], { cwd: wsDir })).trim()).toBe(commits);
  });

  test("a write racing a web edit: exactly one wins, the other gets the current hash", async () => {
    const page = await ok(mcp, "quire_write_page", { path: "race", title: "Race", body: "start\n" });
    const [web, agent] = await Promise.all([
      owner.client.put(`/api/v1/content/${slug}/race.md`, { body: "web\n", lastKnownHash: page.content_hash }),
      mcp.callTool({ name: "quire_update_page", arguments: { path: "race", last_known_hash: page.content_hash, edits: [{ find: "start", replace: "agent" }] } }),
    ]);
    const winners = [web.status === 200, !agent.isError].filter(Boolean).length;
    expect(winners).toBe(1);
    const current = await ok(mcp, "quire_read_page", { path: "race" });
    if (web.status === 200) expect(textOf(agent)).toContain(`its current hash is ${current.content_hash}`);
    else expect(web.body.current_hash).toBe(current.content_hash);
  });

  test("list pages paginates by path, optionally under a folder", async () => {
    const first = await ok(mcp, "quire_list_pages", { limit: 2 });
    expect(first.items).toHaveLength(2);
    expect(first.next_cursor).toBeString();
    const second = await ok(mcp, "quire_list_pages", { limit: 2, cursor: first.next_cursor });
    expect(second.items[0].path > first.items[1].path).toBe(true);
    const guides = await ok(mcp, "quire_list_pages", { folder: "/guides/" });
    expect(guides.items.map((p: { path: string }) => p.path).every((p: string) => p.startsWith("guides/"))).toBe(true);
    expect(await refused(mcp, "quire_list_pages", { cursor: "not-a-cursor" })).toContain("cursor");
  });

  test("move keeps the id and rewrites links; delete is soft and says until when it can be recovered", async () => {
    const target = await ok(mcp, "quire_write_page", { path: "moving/target", title: "Target", body: "t" });
    await ok(mcp, "quire_write_page", { path: "moving/linker", title: "Linker", body: "See [[moving/target]].\n" });
    const moved = await ok(mcp, "quire_move_page", { path: "moving/target", new_path: "/moved/target" });
    expect(moved).toMatchObject({ path: "moved/target.md", page_id: target.page_id });
    expect((await ok(mcp, "quire_read_page", { path: "moving/linker" })).content).toBe("See [[moved/target]].\n");
    const deleted = await ok(mcp, "quire_delete_page", { path: "moved/target" });
    expect(deleted.deleted).toBe(true);
    expect(Date.parse(deleted.recoverable_until) - Date.now()).toBeGreaterThan(23 * 3600_000);
    const missing = await refused(mcp, "quire_read_page", { path: "moved/target" });
    expect(missing).toContain("Page not found: moved/target");
    expect(missing).toContain("quire_search");
  });
});

describe("discovery", () => {
  test("search, context, tree, manifest, workspace, workspaces", async () => {
    await ok(mcp, "quire_write_page", { path: "ctx/index", title: "Context home", body: "Home." });
    await ok(mcp, "quire_write_page", { path: "ctx/a", title: "Page A", body: "Links to [[ctx/b]] and [missing](missing.md). Zebrafish.\n" });
    await ok(mcp, "quire_write_page", { path: "ctx/b", title: "Page B", body: "Back to [A](a.md).\n" });
    const found = await ok(mcp, "quire_search", { query: "zebrafish" });
    expect(found.items[0]).toMatchObject({ path: "ctx/a.md", title: "Page A" });
    expect(found.items[0].snippet).toContain("ebrafish");

    const ctx = await ok(mcp, "quire_get_context", { path: "ctx/a" });
    expect(ctx.page).toMatchObject({ path: "ctx/a.md", title: "Page A" });
    expect(ctx.page.content).toBeUndefined();
    expect(ctx.parent.path).toBe("ctx/index.md");
    expect(ctx.siblings.map((s: { path: string }) => s.path)).toEqual(["ctx/b.md"]);
    expect(ctx.links_out).toEqual([expect.objectContaining({ path: "ctx/b.md", exists: true }), expect.objectContaining({ path: "ctx/missing.md", exists: false })]);
    expect(ctx.links_in.map((s: { path: string }) => s.path)).toEqual(["ctx/b.md"]);

    const tree = await ok(mcp, "quire_get_tree", {});
    expect(tree.truncated).toBe(false);
    expect(tree.items.some((n: { path: string }) => n.path === "ctx")).toBe(true);
    const sub = await ok(mcp, "quire_get_tree", { folder: "ctx" });
    expect(sub.items.map((n: { path: string }) => n.path).sort()).toEqual(["ctx/a.md", "ctx/b.md"]);

    const manifest = await ok(mcp, "quire_get_manifest", { limit: 3 });
    expect(manifest.workspace.slug).toBe(slug);
    expect(manifest.pages).toHaveLength(3);
    expect(manifest.pages[0]).toEqual({ path: expect.any(String), title: expect.any(String), description: expect.any(String), tags: expect.any(Array) });
    expect(manifest.next_cursor).toBeString();

    const ws = await ok(mcp, "quire_get_workspace", {});
    expect(ws).toMatchObject({ slug, role: "super_admin" });
    const all = await ok(mcp, "quire_list_workspaces", {});
    expect(all.items).toEqual([expect.objectContaining({ slug, role: "super_admin" })]);
  });

});

describe("collaboration", () => {
  test("comments, activity, sync conflicts, writing assist without a model", async () => {
    const comment = await ok(mcp, "quire_add_comment", { workspace: slug, path: "/ctx/a", body: "Is this still true?" });
    expect(comment).toMatchObject({ page_path: "ctx/a.md", body: "Is this still true?", parent_id: null });
    const reply = await ok(mcp, "quire_add_comment", { workspace: slug, path: "ctx/a", body: "Yes.", parent_id: comment.id });
    expect(reply.parent_id).toBe(comment.id);
    const listed = await ok(mcp, "quire_list_comments", { workspace: slug, path: "ctx/a.md" });
    expect(listed.items.map((c: { id: string }) => c.id)).toEqual([comment.id, reply.id]);

    const activity = await ok(mcp, "quire_get_activity", { workspace: slug, limit: 5, action: "page_created" });
    expect(activity.items.length).toBeGreaterThan(0);
    expect(activity.items.every((a: { action: string }) => a.action === "page_created")).toBe(true);

    const conflict = await refused(mcp, "quire_resolve_sync_conflict", { workspace: slug, conflict_id: "01HZZZZZZZZZZZZZZZZZZZZZZZ", resolution: "kept_local" });
    expect(conflict).toContain("not found");

    // No model configured: the editor hides its Assist menu and the tool hands the work to the agent.
    expect((await owner.client.get("/api/auth/config")).body.ai_assist).toBe(false);
    const assist = await ok(mcp, "quire_writing_assist", { text: "Teh docs is good.", mode: "fix_grammar" });
    expect(assist.text).toBe("Teh docs is good.");
    expect(assist.instructions).toContain("Fix spelling, grammar and punctuation");
    expect((await refused(mcp, "quire_writing_assist", { text: "x", mode: "rhyme" }))).toContain("mode");
  });

  test("the site: theme, publishing, versions, quality, dead links and an export download", async () => {
    expect(await ok(mcp, "quire_get_theme", {})).toEqual({ theme: "default" });
    expect(await ok(mcp, "quire_update_theme", { theme: "forest" })).toEqual({ theme: "forest" });
    expect(await refused(mcp, "quire_update_theme", { theme: "neon" })).toContain("theme");
    const published = await ok(mcp, "quire_publish_workspace", { visibility: "public" });
    expect(published).toMatchObject({ published: true, visibility: "public" });
    expect(published.url).toContain(`/p/${slug}`);
    const version = await ok(mcp, "quire_create_version", { slug: "v1", name: "Version 1" });
    expect(version).toMatchObject({ slug: "v1", name: "Version 1", base_path: "versions/v1" });
    expect((await ok(mcp, "quire_list_versions", {})).items.map((v: { slug: string }) => v.slug)).toEqual(["v1"]);
    const manifest = await ok(mcp, "quire_get_manifest", {});
    expect(manifest).toMatchObject({ theme: "forest", versions: [expect.objectContaining({ slug: "v1" })] });

    await ok(mcp, "quire_write_page", { path: "dead", title: "Dead", body: "A [[nowhere]] link.\n" });
    const dead = await ok(mcp, "quire_validate_links", { path: "/dead" });
    expect(dead.dead_links).toEqual([expect.objectContaining({ path: "dead.md", line: expect.any(Number), target: expect.stringContaining("nowhere") })]);
    const quality = await ok(mcp, "quire_quality_scan", {});
    expect(quality.score).toBeGreaterThanOrEqual(0);
    expect(quality.findings.some((f: { kind: string; path: string }) => f.kind === "dead_link" && f.path === "dead.md")).toBe(true);

    const exported = await ok(mcp, "quire_export", {});
    expect(exported.pages).toBeGreaterThan(0);
    expect(Date.parse(exported.expires_at) - Date.now()).toBeGreaterThan(14 * 60_000);
    const zip = await fetch(exported.url.replace(server.config.baseUrl, server.url));
    expect(zip.status).toBe(200);
    expect((await zip.arrayBuffer()).byteLength).toBe(exported.bytes);
    expect(await refused(mcp, "quire_export", { output: "/tmp/x.zip" })).toContain("output");
  }, 30_000);
});

describe("bad input", () => {
  let tools: Awaited<ReturnType<McpClient["listTools"]>>["tools"];
  beforeAll(async () => {
    tools = (await mcp.listTools()).tools;
  });
  // Hundreds of refused calls in a few seconds: each still counts against the API's per-minute limits.
  beforeEach(() => server.services.rateLimiter.reset());

  /** A valid value for each required argument, so that only the one wrong thing is wrong. */
  const SAMPLE: Record<string, unknown> = {
    path: "edits",
    body: "x",
    query: "x",
    text: "x",
    mode: "improve",
    last_known_hash: `sha256:${"0".repeat(64)}`,
    new_path: "elsewhere",
    name: "N",
    slug: "s-1",
    theme: "dark",
    conflict_id: "c",
    resolution: "kept_local",
  };

  test("every tool refuses an unknown argument, a wrongly typed one and a missing required one", async () => {
    for (const tool of tools) {
      const schema = tool.inputSchema as { properties: Record<string, { type?: string }>; required?: string[] };
      const valid = Object.fromEntries((schema.required ?? []).map((name) => [name, SAMPLE[name]]));
      const extra = await refused(mcp, tool.name, { ...valid, surprise: true });
      expect(extra, tool.name).toMatch(/surprise|Unrecognized key|not a known field/);
      for (const [name, prop] of Object.entries(schema.properties)) {
        const wrong = prop.type === "string" ? 42 : prop.type === "boolean" || prop.type === "integer" || prop.type === "number" ? "nope" : prop.type === "array" ? "nope" : prop.type === "object" ? [] : undefined;
        if (wrong === undefined) continue;
        expect(await refused(mcp, tool.name, { ...valid, [name]: wrong }), `${tool.name}.${name}`).toContain(name);
      }
      for (const name of schema.required ?? []) {
        expect(await refused(mcp, tool.name, {}), `${tool.name} without ${name}`).toContain(name);
      }
    }
  }, 30_000);

  test("oversized arguments are refused before anything runs", async () => {
    const big = "p".repeat(600);
    expect(await refused(mcp, "quire_read_page", { path: big })).toContain("path");
    expect(await refused(mcp, "quire_search", { query: "q".repeat(501) })).toContain("query");
    expect(await refused(mcp, "quire_write_page", { path: "big", body: "b".repeat(2_000_001) })).toContain("body");
    expect(await refused(mcp, "quire_list_pages", { limit: 101 })).toContain("limit");
    expect(await refused(mcp, "quire_update_page", { path: "edits", last_known_hash: `sha256:${"0".repeat(64)}`, edits: Array.from({ length: 101 }, () => ({ find: "a", replace: "b" })) })).toContain("edits");
    expect(await refused(mcp, "quire_writing_assist", { text: "w".repeat(50_001), mode: "improve" })).toContain("text");
    expect(existsSync(join(wsDir, "big.md"))).toBe(false);
  });

  const TRICKS = ["../outside", "..%2f..%2fetc%2fpasswd", "%2e%2e/x", "a/../../b", "a\\..\\b", ".git/config", ".quire/workspace.yaml", "assets/logo", "a\u0000b", "C:/windows", "//etc/passwd", "a//b", "./a", "x/%252e%252e/y", "\u202eevil", "con:"];
  test("path traversal and encoding tricks are refused in every path argument, and nothing is written", async () => {
    const calls: Array<[string, (p: string) => Record<string, unknown>]> = [
      ["quire_read_page", (p) => ({ path: p })],
      ["quire_write_page", (p) => ({ path: p, title: "T", body: "pwned" })],
      ["quire_update_page", (p) => ({ path: p, last_known_hash: `sha256:${"0".repeat(64)}`, body: "pwned" })],
      ["quire_delete_page", (p) => ({ path: p })],
      ["quire_move_page", (p) => ({ path: p, new_path: "safe" })],
      ["quire_move_page", (p) => ({ path: "edits", new_path: p })],
      ["quire_get_context", (p) => ({ path: p })],
      ["quire_add_comment", (p) => ({ path: p, body: "hi" })],
      ["quire_list_comments", (p) => ({ path: p })],
      ["quire_list_pages", (p) => ({ folder: p })],
      ["quire_get_tree", (p) => ({ folder: p })],
    ];
    for (const trick of TRICKS) {
      server.services.rateLimiter.reset();
      for (const [name, args] of calls) {
        const r = await mcp.callTool({ name, arguments: args(trick) });
        if (name === "quire_list_comments" || name === "quire_list_pages" || name === "quire_get_tree") {
          // Listing under a folder that cannot be a page folder is refused; one that merely does not exist lists nothing.
          if (!r.isError) expect(JSON.stringify(r.structuredContent)).not.toContain("pwned");
          continue;
        }
        expect(r.isError, `${name} ${JSON.stringify(trick)}`).toBe(true);
        expect(textOf(r)).toMatch(/Invalid (path|input)|not found|Not allowed/);
      }
    }
    expect(existsSync(join(server.dataDir, "outside.md"))).toBe(false);
    expect(existsSync(join(server.dataDir, "workspaces", "outside.md"))).toBe(false);
    expect(readFileSync(join(wsDir, ".git/config"), "utf8")).not.toContain("pwned");
    expect((await ok(mcp, "quire_read_page", { path: "edits" })).content).not.toContain("pwned");
  }, 30_000);
});

// Last: from here on the key reaches two workspaces.
describe("workspaces", () => {
  test("create a workspace (the owner is the organization's Super Admin); then workspace must be named", async () => {
    const created = await ok(mcp, "quire_create_workspace", { name: "Agent handbook", slug: "agent-handbook" });
    expect(created).toMatchObject({ slug: "agent-handbook", name: "Agent handbook" });
    const which = await refused(mcp, "quire_list_pages", {});
    expect(which).toContain("workspace: is required");
    expect(which).toContain("quire_list_workspaces");
    const listed = await ok(mcp, "quire_list_pages", { workspace: "agent-handbook" });
    expect(listed.items).toEqual([]);
    expect((await refused(mcp, "quire_create_workspace", { name: "Again", slug: "agent-handbook" }))).toContain("Conflict");
  });
});
