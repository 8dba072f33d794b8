import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { startTestServer, type TestServer } from "../../helpers/server.ts";
import { registerUser, type TestUser } from "../../helpers/factories.ts";
import { publish, writePage } from "./support.ts";

let server: TestServer;
let owner: TestUser;
let closed: TestUser;
beforeAll(async () => {
  server = await startTestServer();
  owner = await registerUser(server.url);
  closed = await registerUser(server.url);
  await writePage(owner, "guides/intro.md", { title: "Intro", body: "The zebrafish guide explains everything." });
  await writePage(owner, "drafts/secret.md", { title: "Secret", body: "The zebrafish plan nobody may read.", publish: false });
  await publish(owner);
  await writePage(closed, "inside.md", { title: "Inside", body: "Members only zebrafish." });
  await publish(closed, { visibility: "authenticated" });
});
afterAll(() => server.close());

async function siteClient(slug: string): Promise<Client> {
  const client = new Client({ name: "site-reader", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/p/${slug}/mcp`)));
  return client;
}
const call = async (c: Client, name: string, args: Record<string, unknown> = {}) => {
  const r = (await c.callTool({ name, arguments: args })) as { isError?: boolean; content: Array<{ text: string }> };
  return { isError: r.isError === true, text: r.content.map((x) => x.text).join("\n") };
};

describe("POST /p/{slug}/mcp, with the SDK's client and no sign-in", () => {
  test("tools/list holds only the read-only site_ tools", async () => {
    const c = await siteClient(owner.workspaceSlug);
    const { tools } = await c.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(["site_get_llms_txt", "site_get_tree", "site_list_pages", "site_read_page", "site_search"]);
    for (const t of tools) expect(t.annotations?.readOnlyHint).toBe(true);
    await c.close();
  });

  test("each tool answers published pages only: the unpublished page is never revealed", async () => {
    const c = await siteClient(owner.workspaceSlug);
    const list = await call(c, "site_list_pages");
    expect(list.text).toContain("guides/intro.md");
    expect(list.text).not.toContain("secret");
    const search = await call(c, "site_search", { query: "zebrafish" });
    expect(search.text).toContain("Intro");
    expect(search.text).not.toContain("Secret");
    const read = await call(c, "site_read_page", { path: "guides/intro.md" });
    expect(read.text).toContain("zebrafish guide");
    const hidden = await call(c, "site_read_page", { path: "drafts/secret.md" });
    expect(hidden.isError).toBe(true);
    expect(hidden.text).not.toContain("nobody may read");
    expect(hidden.text).toContain("NOT_FOUND");
    const tree = await call(c, "site_get_tree");
    expect(tree.text).toContain("Intro");
    expect(tree.text).not.toContain("Secret");
    const llms = await call(c, "site_get_llms_txt");
    expect(llms.text).toContain("guides/intro.md");
    expect(llms.text).not.toContain("secret");
    await c.close();
  });

  test("bad input is refused: traversal, unknown arguments, an over-long query", async () => {
    const c = await siteClient(owner.workspaceSlug);
    const traversal = await call(c, "site_read_page", { path: "../drafts/secret.md" });
    expect(traversal.isError).toBe(true);
    expect(traversal.text).not.toContain("nobody may read");
    expect((await call(c, "site_read_page", { path: "guides/intro.md", extra: 1 })).isError).toBe(true);
    expect((await call(c, "site_search", { query: "x".repeat(201) })).isError).toBe(true);
    expect((await call(c, "site_read_page", {})).isError).toBe(true);
    await c.close();
  });

  test("an unknown site and a members-only site asked anonymously are 404, saying nothing more", async () => {
    for (const slug of ["no-such-site", closed.workspaceSlug, "..%2f"]) {
      const r = await fetch(`${server.url}/p/${slug}/mcp`, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} }),
      });
      expect(r.status).toBe(404);
      expect(await r.text()).not.toContain("zebrafish");
    }
  });
});
