import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Browser, Page } from "playwright-core";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { registerUser, type TestUser } from "../helpers/factories.ts";
import { Client } from "../helpers/client.ts";
import { hasChromium, launch, newTab, screenshot, signInInUi, expectNoConsoleErrors, type Tab } from "./browser.ts";

describe.skipIf(!hasChromium)("what each role sees in a real browser", () => {
  let server: TestServer;
  let browser: Browser;
  let owner: TestUser;
  beforeAll(async () => {
    [server, browser] = await Promise.all([startTestServer(), launch()]);
    owner = await registerUser(server.url, { name: "Sam Super" });
  }, 30_000);
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  const password = "a long enough password";

  /** Someone new, brought in with `role` the way people join: an invitation accepted with a name and password. */
  async function invite(name: string, role: string): Promise<{ email: string; password: string }> {
    const email = `${name.toLowerCase().replace(/\W+/g, ".")}.${Date.now()}@example.test`;
    const created = await owner.client.post(`/api/v1/workspaces/${owner.workspaceId}/invitations`, { email, role });
    expect(created.status).toBe(201);
    const token = new URL(created.body.url).pathname.split("/").pop();
    expect((await new Client(server.url).post("/api/auth/invitations/accept", { token, name, password })).status).toBe(201);
    return { email, password };
  }

  const content = async (path: string) => (await owner.client.get(`/api/v1/content/${owner.workspaceSlug}/${path}`)).body.content as string;
  const settings = (flags: Record<string, boolean>) => owner.client.put(`/api/v1/workspaces/${owner.workspaceId}/admin/settings`, flags);

  async function openPage(tab: Tab, person: { email: string; password: string }): Promise<Page> {
    const { page } = tab;
    await page.goto(`${server.url}/w/${owner.workspaceSlug}/p/open.md`);
    await signInInUi(page, person);
    await page.getByRole("textbox", { name: "Page content" }).getByText("Read only text.").waitFor();
    return page;
  }

  test("a viewer reads only; editors see New page and Delete as the workspace allows; only the Super Admin creates workspaces", async () => {
    expect((await owner.client.post(`/api/v1/content/${owner.workspaceSlug}/open.md`, { title: "Open page", body: "Read only text.\n" })).status).toBe(201);
    expect((await settings({ editor_can_create_pages: false, editor_can_delete_pages: false })).status).toBe(200);
    const viewer = await invite("Vera Viewer", "viewer");
    const editor = await invite("Ed Editor", "editor");

    // The viewer: the page reads, but there is no toolbar, no Save, and typing changes nothing.
    const v = await newTab(browser);
    const vp = await openPage(v, viewer);
    const text = vp.getByRole("textbox", { name: "Page content" });
    expect(await text.getAttribute("contenteditable")).toBe("false");
    expect(await vp.getByRole("toolbar", { name: "Formatting" }).count()).toBe(0);
    expect(await vp.getByRole("button", { name: "Save", exact: true }).count()).toBe(0);
    await text.getByText("Read only text.").click();
    await vp.keyboard.type("VIEWER TYPED");
    await vp.keyboard.press("Enter");
    await vp.keyboard.press("Control+s");
    await vp.waitForTimeout(300);
    expect(await text.textContent()).toBe("Read only text.");
    expect(await vp.locator(".save-status").getAttribute("data-status")).toBe("saved");
    expect(await content("open.md")).toBe("Read only text.\n");
    // Nothing in the sidebar changes pages, and no workspace can be created.
    expect(await vp.getByRole("button", { name: "+ New page" }).count()).toBe(0);
    expect(await vp.getByRole("button", { name: "Actions for Open page" }).count()).toBe(0);
    expect(await vp.getByRole("button", { name: "New workspace" }).count()).toBe(0);
    await screenshot(vp, "26-viewer");
    // A page that is only read keeps real links, for a reader to follow (while editing, a link is
    // drawn without its href: link-view.ts).
    expect((await owner.client.post(`/api/v1/content/${owner.workspaceSlug}/linked.md`, { title: "Linked page", body: "See [the docs](https://example.com/docs).\n" })).status).toBe(201);
    await vp.goto(`${server.url}/w/${owner.workspaceSlug}/p/linked.md`);
    await text.getByRole("link", { name: "the docs" }).waitFor();
    expect(await text.locator("a[href]").evaluateAll((els) => els.map((e) => [e.textContent, e.getAttribute("href"), e.getAttribute("data-href")]))).toEqual([["the docs", "https://example.com/docs", null]]);
    expectNoConsoleErrors(v);
    await v.context.close();

    // The editor, with creating and deleting pages turned off for editors: edits, but neither
    // creates nor deletes.
    const e = await newTab(browser);
    const ep = await openPage(e, editor);
    await ep.getByRole("toolbar", { name: "Formatting" }).waitFor();
    expect(await ep.getByRole("button", { name: "Save", exact: true }).count()).toBe(1);
    expect(await ep.getByRole("button", { name: "+ New page" }).count()).toBe(0);
    await ep.getByRole("button", { name: "Actions for Open page" }).click();
    const menu = ep.getByRole("menu", { name: "Actions for Open page" });
    // Reordering is editing; a move puts a page at a new path, so it follows the create flag.
    await menu.getByRole("menuitem", { name: "Move up" }).waitFor();
    expect(await menu.getByRole("menuitem", { name: "Rename or move…" }).count()).toBe(0);
    expect(await menu.getByRole("menuitem", { name: "Delete…" }).count()).toBe(0);
    expect(await ep.getByRole("button", { name: "New workspace" }).count()).toBe(0);

    // Both turned on: after a reload the editor gets New page, Rename or move and Delete.
    expect((await settings({ editor_can_create_pages: true, editor_can_delete_pages: true })).status).toBe(200);
    await ep.reload();
    await ep.getByRole("button", { name: "+ New page" }).waitFor();
    await ep.getByRole("button", { name: "Actions for Open page" }).click();
    await ep.getByRole("menu", { name: "Actions for Open page" }).getByRole("menuitem", { name: "Delete…" }).waitFor();
    await ep.getByRole("menu", { name: "Actions for Open page" }).getByRole("menuitem", { name: "Rename or move…" }).waitFor();
    expect(await ep.getByRole("button", { name: "New workspace" }).count()).toBe(0);
    expectNoConsoleErrors(e);
    await e.context.close();

    // The Super Admin has New workspace; without the private-network allowance a loopback
    // remote is refused with the API's message.
    const s = await newTab(browser);
    const sp = await openPage(s, owner);
    await sp.getByRole("button", { name: "New workspace" }).click();
    const dialog = sp.getByRole("dialog", { name: "New workspace" });
    await dialog.getByLabel("Workspace name").fill("Internal");
    await dialog.getByLabel("Git remote URL").fill("http://127.0.0.1:9/private.git");
    await dialog.getByRole("button", { name: "Create workspace" }).click();
    const refusal = dialog.getByRole("alert");
    await refusal.waitFor({ timeout: 15_000 });
    expect(await refusal.textContent()).toContain("remotes on private, loopback or link-local addresses are refused");
    expect((await owner.client.get("/api/v1/workspaces")).body.items.map((w: { slug: string }) => w.slug)).not.toContain("internal");
    expectNoConsoleErrors(s, [400]);
    await s.context.close();
  }, 60_000);
});
