import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Browser } from "playwright-core";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { Client } from "../helpers/client.ts";
import { registerUser, type TestUser } from "../helpers/factories.ts";
import { hasChromium, launch, newTab, screenshot, signInInUi, expectNoConsoleErrors } from "./browser.ts";

describe.skipIf(!hasChromium)("activity, workspace creation and profile in a real browser", () => {
  let server: TestServer;
  let browser: Browser;
  let user: TestUser;
  beforeAll(async () => {
    [server, browser] = await Promise.all([startTestServer(), launch()]);
    user = await registerUser(server.url, { name: "Ada Owner" });
    const created = await user.client.post(`/api/v1/content/${user.workspaceSlug}/story.md`, { title: "Story", body: "Once.\n" });
    expect(created.status).toBe(201);
    expect((await user.client.put(`/api/v1/content/${user.workspaceSlug}/story.md`, { body: "Twice.\n", lastKnownHash: created.body.content_hash })).status).toBe(200);
    expect((await user.client.post(`/api/v1/workspaces/${user.workspaceId}/comments`, { page_path: "story.md", body: "Nice" })).status).toBe(201);
  }, 30_000);
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  test("the workspace feed (filtered), a page's history, a new workspace, a password change", async () => {
    const tab = await newTab(browser);
    const { page } = tab;
    await page.goto(`${server.url}/w/${user.workspaceSlug}`);
    await signInInUi(page, user);
    await page.getByRole("navigation", { name: "Workspace pages" }).getByRole("link", { name: "Activity" }).click();
    const feed = page.getByRole("list", { name: "Activity" });
    await feed.getByText("commented on").waitFor();
    expect(await feed.getByRole("listitem").filter({ hasText: "story.md" }).count()).toBeGreaterThanOrEqual(3);
    await screenshot(page, "19-activity");
    await page.getByLabel("Kind of activity").selectOption("page_created");
    // The filtered list replaces the full one: wait until it holds the page's entries and none is an edit.
    await page.waitForFunction(() => {
      const items = [...document.querySelectorAll(".activity-list li")].map((li) => li.textContent ?? "");
      return items.some((t) => t.includes("story.md")) && !items.some((t) => t.includes("edited"));
    });
    expect(await feed.getByRole("listitem").filter({ hasText: "story.md" }).allTextContents()).toEqual([expect.stringContaining("created")]);

    // A page's history, from the editor.
    await page.getByRole("tree", { name: "Pages" }).getByRole("link", { name: "Story" }).click();
    await page.getByRole("main").getByRole("link", { name: "Activity" }).click();
    await page.getByRole("heading", { name: "History of story.md" }).waitFor();
    const history = page.getByRole("list", { name: "Page history" });
    await history.getByText("edited").waitFor();
    await history.getByText("created").waitFor();

    // The Super Admin creates a workspace and lands in it.
    await page.getByRole("button", { name: "New workspace" }).click();
    const dialog = page.getByRole("dialog", { name: "New workspace" });
    await dialog.getByLabel("Workspace name").fill("Team Wiki");
    expect(await dialog.getByLabel("Address").inputValue()).toBe("team-wiki");
    await dialog.getByRole("button", { name: "Create workspace" }).click();
    await page.waitForURL(/\/w\/team-wiki$/);
    await page.getByRole("heading", { name: "Team Wiki" }).waitFor();
    expect((await user.client.get("/api/v1/workspaces")).body.items.map((w: { slug: string }) => w.slug)).toContain("team-wiki");
    // A taken address shows the API's message.
    await page.getByRole("button", { name: "New workspace" }).click();
    await dialog.getByLabel("Workspace name").fill("Team Wiki");
    await dialog.getByRole("button", { name: "Create workspace" }).click();
    await dialog.getByRole("alert").waitFor();
    await dialog.getByRole("button", { name: "Cancel" }).click();

    // Profile: the password changes, this browser stays signed in, the old password stops working.
    await page.locator(".account-menu summary").click();
    await page.getByRole("menuitem", { name: "Profile and sessions" }).click();
    await page.getByLabel("Current password").fill("wrong password here");
    await page.getByLabel("New password").fill("another fine password");
    await page.getByRole("button", { name: "Change password" }).click();
    await page.getByText("This is not your current password.").waitFor();
    await page.getByLabel("Current password").fill(user.password);
    await page.getByRole("button", { name: "Change password" }).click();
    await page.getByText("Password changed.").waitFor();
    await screenshot(page, "20-profile");
    const anon = new Client(server.url);
    expect((await anon.post("/api/auth/login", { email: user.email, password: user.password })).status).toBe(401);
    await page.reload();
    await page.getByRole("heading", { name: "Profile" }).waitFor();
    expectNoConsoleErrors(tab, [400, 409]);
    await tab.context.close();
  }, 60_000);
});
