import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Browser } from "playwright-core";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { registerUser, type TestUser } from "../helpers/factories.ts";
import type { Page } from "playwright-core";
import { hasChromium, launch, newTab, screenshot, signInInUi, expectNoConsoleErrors } from "./browser.ts";

describe.skipIf(!hasChromium)("settings in a real browser", () => {
  let server: TestServer;
  let browser: Browser;
  let admin: TestUser;
  beforeAll(async () => {
    [server, browser] = await Promise.all([startTestServer(), launch()]);
    admin = await registerUser(server.url, { name: "Ada Admin" });
    expect((await admin.client.post(`/api/v1/content/${admin.workspaceSlug}/keyed.md`, { title: "Keyed", body: "Read by a key.\n" })).status).toBe(201);
  }, 30_000);
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  const settingsUrl = (tab: string, slug = admin.workspaceSlug) => `${server.url}/w/${slug}/settings/${tab}`;

  /** A new person brought into a workspace with `role` the way people join: an invitation link, accepted. */
  async function joinAs(name: string, role: string, workspaceId: string): Promise<TestUser> {
    const user = await registerUser(server.url, { name });
    const invite = await admin.client.post(`/api/v1/workspaces/${workspaceId}/invitations`, { email: user.email, role });
    expect(invite.status).toBe(201);
    const token = new URL(invite.body.url).pathname.split("/").pop();
    expect((await user.client.post("/api/auth/invitations/accept", { token, password: user.password })).status).toBe(200);
    return user;
  }

  const memberRole = (workspaceId: string, userId: string) =>
    server.services.db
      .query<{ role: string }, [string, string]>("SELECT role FROM workspace_members WHERE workspace_id = ? AND user_id = ?")
      .get(workspaceId, userId)?.role ?? null;

  /** A member's row in the members table, found by email (unique; names also label the row's controls). */
  const memberRow = (page: Page, user: TestUser) => page.getByRole("row").filter({ hasText: user.email });

  /** Clicks a member's Remove button; the browser's confirm is answered `accept` and its question returned. */
  async function removeMember(page: Page, name: string, accept: boolean): Promise<string> {
    const asked = new Promise<string>((resolve) =>
      page.once("dialog", (d) => {
        resolve(d.message());
        void (accept ? d.accept() : d.dismiss());
      }),
    );
    await page.getByRole("button", { name: `Remove ${name}`, exact: true }).click();
    return asked;
  }

  test("an API key is created with scopes and expiry, shown once with an MCP config, used with fetch, rotated and deleted", async () => {
    const tab = await newTab(browser);
    const { page } = tab;
    page.on("dialog", (d) => void d.accept());
    await page.goto(settingsUrl("api-keys"));
    await signInInUi(page, admin);
    await page.getByRole("heading", { name: "API keys" }).waitFor();
    await page.getByLabel("Key name").fill("Docs bot");
    await page.getByLabel("write — Create and edit pages").check();
    await page.getByLabel("Expires").selectOption("30");
    await page.getByRole("button", { name: "Create key" }).click();
    const secretField = page.getByLabel("Secret of “Docs bot”");
    await secretField.waitFor();
    const secret = await secretField.inputValue();
    expect(secret.length).toBeGreaterThan(20);
    const config = JSON.parse(await page.getByLabel("MCP client configuration (stdio: Claude Desktop, Cursor)").inputValue());
    expect(config.mcpServers.quire.env.QUIRE_API_KEY).toBe(secret);
    // The running executable by its absolute path (here the test runner's bun, with the entry script first).
    expect(config.mcpServers.quire.command).toBe(process.execPath);
    expect(config.mcpServers.quire.args.slice(-3)).toEqual(["mcp", "--workspace", admin.workspaceSlug]);
    const http = JSON.parse(await page.getByLabel("MCP client configuration (Streamable HTTP)").inputValue());
    expect(http.mcpServers.quire).toMatchObject({ type: "http", headers: { Authorization: `Bearer ${secret}` } });
    expect(http.mcpServers.quire.url).toEndWith("/mcp");
    await screenshot(page, "15-api-key");

    // Used like curl would: a Bearer header from outside the browser.
    const read = await fetch(`${server.url}/api/v1/content/${admin.workspaceSlug}/keyed.md`, { headers: { authorization: `Bearer ${secret}` } });
    expect(read.status).toBe(200);
    expect(((await read.json()) as { content: string }).content).toBe("Read by a key.\n");
    const keys = (await admin.client.get("/api/v1/api-keys")).body.items;
    expect(keys).toHaveLength(1);
    expect(keys[0].scopes.sort()).toEqual(["read", "write"]);
    expect(keys[0].workspace_id).toBe(admin.workspaceId);
    expect(keys[0].expires_at - Date.now() / 1000).toBeGreaterThan(29 * 86_400);
    // The list never shows the secret again.
    await page.reload();
    await page.getByRole("cell", { name: "Docs bot", exact: true }).waitFor();
    expect(await page.content()).not.toContain(secret);

    // Rotate: a new secret, the old one stops at once.
    await page.getByRole("button", { name: "Rotate Docs bot" }).click();
    const rotated = await page.getByLabel("Secret of “Docs bot”").inputValue();
    expect(rotated).not.toBe(secret);
    const old = await fetch(`${server.url}/api/v1/content/${admin.workspaceSlug}/keyed.md`, { headers: { authorization: `Bearer ${secret}` } });
    expect(old.status).toBe(401);
    const fresh = await fetch(`${server.url}/api/v1/content/${admin.workspaceSlug}/keyed.md`, { headers: { authorization: `Bearer ${rotated}` } });
    expect(fresh.status).toBe(200);

    await page.getByRole("button", { name: "Delete Docs bot" }).click();
    await page.getByText("No API keys yet.").waitFor();
    expect((await admin.client.get("/api/v1/api-keys")).body.items).toEqual([]);
    expectNoConsoleErrors(tab);
    await tab.context.close();
  }, 60_000);

  test("an invitation link (no email configured) is accepted in a second browser; roles and workspace settings change", async () => {
    const tab = await newTab(browser);
    const { page } = tab;
    await page.goto(settingsUrl("invitations"));
    await signInInUi(page, admin);
    await page.getByLabel("Email address").fill("newcomer@example.test");
    await page.locator("#inv-role").selectOption("editor");
    await page.getByRole("button", { name: "Invite" }).click();
    const link = await page.getByLabel("Invitation link for newcomer@example.test").inputValue();
    expect(link).toMatch(/\/invite\/[^/]+$/);
    await page.getByRole("cell", { name: "newcomer@example.test", exact: true }).waitFor();
    await screenshot(page, "16-invitations");

    // A second browser, signed out, opens the link and joins with a name and a password.
    const guest = await newTab(browser);
    await guest.page.goto(server.url + new URL(link).pathname);
    await guest.page.getByRole("heading", { name: "Accept the invitation" }).waitFor();
    await screenshot(guest.page, "17-invite-accept");
    await guest.page.getByLabel("Your name").fill("Nina Newcomer");
    await guest.page.getByLabel("Password").fill("a long enough password");
    await guest.page.getByRole("button", { name: "Accept and join" }).click();
    await guest.page.waitForURL(new RegExp(`/w/${admin.workspaceSlug}$`));
    await guest.page.getByRole("tree", { name: "Pages" }).getByRole("link", { name: "Keyed" }).waitFor();
    expectNoConsoleErrors(guest);

    // The admin sees the new member and makes her a commenter.
    await page.getByRole("link", { name: "Members" }).click();
    const role = page.getByLabel("Role of Nina Newcomer");
    expect(await role.inputValue()).toBe("editor");
    await role.selectOption("commenter");
    await page.waitForFunction(() => (document.querySelector('select[aria-label="Role of Nina Newcomer"]') as HTMLSelectElement | null)?.disabled === false);
    const members = (await admin.client.get(`/api/v1/workspaces/${admin.workspaceId}/admin/members`)).body.items;
    expect(members.find((m: { name: string }) => m.name === "Nina Newcomer").role).toBe("commenter");
    await screenshot(page, "18-members");

    // General: renaming the workspace shows in the switcher.
    await page.getByRole("link", { name: "General" }).click();
    const general = page.getByRole("region", { name: "General" });
    await general.getByLabel("Name").fill("Ada's handbook");
    await general.getByLabel("Delete pages").check();
    await page.getByRole("button", { name: "Save settings" }).click();
    await page.getByText("Settings saved.").waitFor();
    await page.getByRole("option", { name: "Ada's handbook" }).waitFor({ state: "attached" });
    const ws = (await admin.client.get(`/api/v1/workspaces/${admin.workspaceId}`)).body;
    expect(ws.name).toBe("Ada's handbook");
    expect(ws.editor_can_delete_pages).toBe(true);
    expectNoConsoleErrors(tab);
    await tab.context.close();
    await guest.context.close();
  }, 60_000);

  test("a share link joins a signed-in person; API errors are shown from the error shape", async () => {
    const tab = await newTab(browser);
    const { page } = tab;
    await page.goto(settingsUrl("share-links"));
    await signInInUi(page, admin);
    await page.locator("#sl-role").selectOption("viewer");
    await page.getByLabel("Maximum uses").fill("1");
    await page.getByRole("button", { name: "Create link" }).click();
    const link = await page.getByRole("textbox", { name: "Share link" }).inputValue();
    expect(link).toMatch(/\/join\/[^/]+$/);

    const other = await registerUser(server.url, { name: "Sam Shared" });
    const visitor = await newTab(browser);
    await visitor.page.goto(server.url + new URL(link).pathname);
    await signInInUi(visitor.page, other);
    await visitor.page.waitForURL(new RegExp(`/w/${admin.workspaceSlug}$`));
    await visitor.page.getByRole("tree", { name: "Pages" }).getByRole("link", { name: "Keyed" }).waitFor();
    // A viewer gets only the API keys tab of the settings.
    await visitor.page.getByRole("link", { name: "Settings" }).click();
    await visitor.page.getByRole("heading", { name: "API keys" }).waitFor();
    expect(await visitor.page.getByRole("navigation", { name: "Settings sections" }).getByRole("link").allTextContents()).toEqual(["API keys"]);
    expectNoConsoleErrors(visitor);

    // Someone without an account follows another link, registers from the login screen and lands in the workspace.
    await page.getByRole("button", { name: "Create link" }).click();
    const second = await page.getByRole("textbox", { name: "Share link" }).inputValue();
    const stranger = await newTab(browser);
    await stranger.page.goto(server.url + new URL(second).pathname);
    await stranger.page.getByRole("link", { name: "Create an account" }).click();
    await stranger.page.getByLabel("Name").fill("Rita Registered");
    await stranger.page.getByLabel("Email").fill(`rita.${Date.now()}@example.test`);
    await stranger.page.getByLabel("Password").fill("correct horse battery");
    await stranger.page.getByLabel("I accept the terms of use").check();
    await stranger.page.getByRole("button", { name: "Create account" }).click();
    await stranger.page.waitForURL(new RegExp(`/w/${admin.workspaceSlug}$`));
    await stranger.page.getByRole("tree", { name: "Pages" }).getByRole("link", { name: "Keyed" }).waitFor();
    expectNoConsoleErrors(stranger);
    await stranger.context.close();

    // The first link is used up: the table says so; an invalid invitation shows the API's message.
    await page.reload();
    await page.getByRole("cell", { name: "Used up or expired" }).first().waitFor();
    await page.getByRole("link", { name: "Invitations" }).click();
    await page.getByLabel("Email address").fill("not-an-email");
    // The browser's own check would stop an email field's bad address before the API sees it: the
    // field is made plain text and the form submitted in one step, so no render in between can
    // bring the email type back (the submission would then stop at the browser's bubble, no alert).
    await page.getByLabel("Email address").evaluate((el: HTMLInputElement) => {
      el.type = "text";
      el.form!.requestSubmit(el.form!.querySelector<HTMLButtonElement>("button[type=submit]"));
    });
    await page.getByRole("alert").filter({ hasText: /email/i }).waitFor();
    expectNoConsoleErrors(tab, [400]);
    await tab.context.close();
    await visitor.context.close();
  }, 60_000);

  test("an admin removes a member after confirming; the removed person's next request no longer shows the workspace", async () => {
    const mo = await joinAs("Mo Member", "editor", admin.workspaceId);
    const workspaceName = (await admin.client.get(`/api/v1/workspaces/${admin.workspaceId}`)).body.name as string;

    // Mo has the workspace open in his own browser.
    const member = await newTab(browser);
    await member.page.goto(`${server.url}/w/${admin.workspaceSlug}`);
    await signInInUi(member.page, mo);
    const memberTree = member.page.getByRole("tree", { name: "Pages" });
    await memberTree.getByRole("link", { name: "Keyed" }).waitFor();

    const tab = await newTab(browser);
    const { page } = tab;
    await page.goto(settingsUrl("members"));
    await signInInUi(page, admin);
    const row = memberRow(page, mo);
    await row.waitFor();
    expect(await page.getByLabel("Role of Mo Member").inputValue()).toBe("editor");

    // Cancelling the question keeps him.
    expect(await removeMember(page, "Mo Member", false)).toBe(`Remove Mo Member from ${workspaceName}?`);
    expect(await row.count()).toBe(1);
    expect(memberRole(admin.workspaceId, mo.id)).toBe("editor");

    // Confirming removes him from the list and from the workspace.
    await removeMember(page, "Mo Member", true);
    await row.waitFor({ state: "detached" });
    expect(memberRole(admin.workspaceId, mo.id)).toBeNull();
    expect(await memberRow(page, admin).count()).toBe(1);
    const listed = (await admin.client.get(`/api/v1/workspaces/${admin.workspaceId}/admin/members?limit=100`)).body.items as Array<{ user_id: string }>;
    expect(listed.map((m) => m.user_id)).not.toContain(mo.id);
    await screenshot(page, "19-member-removed");
    expectNoConsoleErrors(tab);

    // Mo's next request: the page he opens is out of reach, and a reload takes him to his own workspace
    // with Ada's no longer offered in the switcher.
    await memberTree.getByRole("link", { name: "Keyed" }).click();
    await member.page.getByText("This page does not exist (or you cannot read it).").waitFor();
    await member.page.reload();
    await member.page.waitForURL(new RegExp(`/w/${mo.workspaceSlug}$`));
    await memberTree.waitFor();
    const switcher = member.page.getByRole("combobox", { name: "Workspace" });
    expect(await switcher.inputValue()).toBe(mo.workspaceSlug);
    expect(await switcher.locator("option").allTextContents()).not.toContain(workspaceName);
    expect(await memberTree.getByRole("link", { name: "Keyed" }).count()).toBe(0);
    expect((await mo.client.get(`/api/v1/workspaces/${admin.workspaceId}`)).status).toBe(404);
    expectNoConsoleErrors(member, [403, 404]);
    await tab.context.close();
    await member.context.close();
  }, 60_000);

  test("the Super Admin cannot be removed, by an admin or by themselves, nor the last admin; the API's message is shown", async () => {
    const made = await admin.client.post("/api/v1/workspaces", { name: "Second shelf", slug: "second-shelf" });
    expect(made.status).toBe(201);
    const shelf = made.body as { id: string; slug: string };
    const bea = await joinAs("Bea Admin", "admin", shelf.id);
    const superAdminMessage = "This member is the organization's Super Admin, whose access to every workspace cannot be changed";

    // Ada (the organization's Super Admin) tries to remove herself.
    const tab = await newTab(browser);
    const { page } = tab;
    await page.goto(settingsUrl("members", shelf.slug));
    await signInInUi(page, admin);
    await memberRow(page, bea).waitFor();
    await removeMember(page, "Ada Admin", true);
    await page.getByRole("alert").filter({ hasText: superAdminMessage }).waitFor();
    expect(await memberRow(page, admin).count()).toBe(1);
    expect(memberRole(shelf.id, admin.id)).toBe("admin");
    expectNoConsoleErrors(tab, [403]);

    // Bea, an admin of this workspace, cannot remove the owner either.
    const other = await newTab(browser);
    await other.page.goto(settingsUrl("members", shelf.slug));
    await signInInUi(other.page, bea);
    await memberRow(other.page, admin).waitFor();
    await removeMember(other.page, "Ada Admin", true);
    await other.page.getByRole("alert").filter({ hasText: superAdminMessage }).waitFor();
    expect(memberRole(shelf.id, admin.id)).toBe("admin");
    await screenshot(other.page, "20-member-not-removed");

    // The Super Admin's membership row is the other admin the API counts; without it (Ada keeps her
    // access through the organization) Bea is the last admin and may neither leave nor step down.
    server.services.db.query("DELETE FROM workspace_members WHERE workspace_id = ? AND user_id = ?").run(shelf.id, admin.id);
    await other.page.reload();
    await memberRow(other.page, bea).waitFor();
    expect(await memberRow(other.page, admin).count()).toBe(0);
    await removeMember(other.page, "Bea Admin", true);
    await other.page.getByRole("alert").filter({ hasText: "The workspace's last admin cannot be removed; make another member admin first" }).waitFor();
    expect(memberRole(shelf.id, bea.id)).toBe("admin");
    const role = other.page.getByLabel("Role of Bea Admin");
    await role.selectOption("editor");
    await other.page.getByRole("alert").filter({ hasText: "The workspace's last admin cannot be demoted; make another member admin first" }).waitFor();
    // The list is read again: the select shows the role she still has.
    await other.page.waitForFunction(() => (document.querySelector('select[aria-label="Role of Bea Admin"]') as HTMLSelectElement | null)?.value === "admin");
    expect(memberRole(shelf.id, bea.id)).toBe("admin");
    expectNoConsoleErrors(other, [403, 409]);
    await tab.context.close();
    await other.context.close();
  }, 60_000);
});
