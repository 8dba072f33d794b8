import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Browser } from "playwright-core";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { registerUser, type TestUser } from "../helpers/factories.ts";
import { SHOTS, expectNoConsoleErrors, hasChromium, launch, newTab, screenshot, signInInUi } from "./browser.ts";

describe.skipIf(!hasChromium)("main screens in dark mode and at phone width", () => {
  let server: TestServer;
  let browser: Browser;
  let user: TestUser;
  beforeAll(async () => {
    [server, browser] = await Promise.all([startTestServer(), launch()]);
    user = await registerUser(server.url, { name: "Dana Dark" });
    expect((await user.client.post(`/api/v1/content/${user.workspaceSlug}/night.md`, { title: "Night notes", body: "# Night\n\nSome **text**.\n" })).status).toBe(201);
    expect((await user.client.post(`/api/v1/workspaces/${user.workspaceId}/comments`, { page_path: "night.md", body: "Looks good in the dark." })).status).toBe(201);
  }, 30_000);
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  test("dark theme on a desktop, then a phone: editor with comments, settings, search — all reachable, no console errors", async () => {
    const tab = await newTab(browser);
    const { page } = tab;
    await page.emulateMedia({ colorScheme: "dark" });
    await page.goto(`${server.url}/w/${user.workspaceSlug}/p/night.md`);
    await signInInUi(page, user);
    await page.getByRole("heading", { name: "Night notes" }).waitFor();
    expect(await page.evaluate(() => getComputedStyle(document.body).backgroundColor)).toBe("rgb(21, 24, 28)");
    await page.getByRole("button", { name: "Comments" }).click();
    await page.getByText("Looks good in the dark.").waitFor();
    await screenshot(page, "25-dark-editor-comments");
    await page.goto(`${server.url}/w/${user.workspaceSlug}/settings/members`);
    await page.getByRole("heading", { name: "Members" }).waitFor();
    await page.getByRole("cell", { name: "Dana Dark" }).first().waitFor();
    await screenshot(page, "26-dark-settings");

    // Phone width: the tree is a drawer; the search opens from its button; the comments sit below the text.
    await page.setViewportSize({ width: 390, height: 800 });
    await page.goto(`${server.url}/w/${user.workspaceSlug}/p/night.md`);
    await page.getByRole("heading", { name: "Night notes" }).waitFor();
    await page.getByRole("button", { name: "Comments" }).click();
    await page.getByText("Looks good in the dark.").waitFor();
    const docWidth = await page.evaluate(() => document.documentElement.scrollWidth);
    expect(docWidth).toBeLessThanOrEqual(390);
    await screenshot(page, "27-phone-editor");
    await page.getByRole("button", { name: "Search pages" }).click();
    await page.getByRole("dialog", { name: "Search pages" }).getByRole("combobox").fill("night");
    await page.getByRole("dialog", { name: "Search pages" }).getByRole("option").first().waitFor();
    await screenshot(page, "28-phone-search");
    await page.keyboard.press("Escape");
    // The tree's "Move to…" dialog fits the phone too.
    await page.getByRole("button", { name: "Show pages" }).click();
    await page.getByRole("button", { name: "Actions for Night notes", exact: true }).click();
    await page.getByRole("menuitem", { name: "Move to…" }).click();
    const move = page.getByRole("dialog", { name: "Move Night notes" });
    await move.getByRole("radio").first().waitFor();
    const dialogBox = await move.boundingBox();
    expect(dialogBox!.x).toBeGreaterThanOrEqual(0);
    expect(dialogBox!.x + dialogBox!.width).toBeLessThanOrEqual(390);
    await page.screenshot({ path: `${SHOTS}/30-phone-move-dialog.png` });
    await move.getByRole("button", { name: "Cancel" }).click();
    await move.waitFor({ state: "hidden" });
    await page.getByRole("navigation", { name: "Workspace pages" }).getByRole("link", { name: "Settings" }).click();
    await page.getByRole("heading", { name: "General" }).waitFor();
    await screenshot(page, "29-phone-settings");

    // Keyboard: on a fresh load the skip link is the first stop.
    await page.reload();
    await page.getByRole("heading", { name: "General" }).waitFor();
    await page.keyboard.press("Tab");
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe("Skip to content");
    expectNoConsoleErrors(tab);
    await tab.context.close();
  }, 60_000);
});
