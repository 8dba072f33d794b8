import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Browser } from "playwright-core";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { registerUser, type TestUser } from "../helpers/factories.ts";
import { expectNoConsoleErrors, hasChromium, launch, newTab, screenshot, signInInUi } from "./browser.ts";

describe.skipIf(!hasChromium)("the Quality screen in a real browser", () => {
  let server: TestServer;
  let browser: Browser;
  let user: TestUser;
  beforeAll(async () => {
    [server, browser] = await Promise.all([startTestServer(), launch()]);
    user = await registerUser(server.url, { name: "Quinn Quality" });
    const body = "Intro paragraph.\n\nSecond paragraph.\n\nThis links to [[nowhere-at-all]] by mistake.\n";
    expect((await user.client.post(`/api/v1/content/${user.workspaceSlug}/broken.md`, { title: "Broken", body })).status).toBe(201);
  }, 30_000);
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  test("score, findings grouped by page, and a finding's line opens the source at that line", async () => {
    const tab = await newTab(browser);
    const { page } = tab;
    await page.goto(`${server.url}/w/${user.workspaceSlug}`);
    await signInInUi(page, user);
    await page.getByRole("navigation", { name: "Workspace pages" }).getByRole("link", { name: "Quality" }).click();
    await page.getByRole("heading", { name: /^Quality/ }).waitFor();
    const score = page.getByLabel(/^Score \d+ of 100$/);
    await score.waitFor();
    const group = page.getByRole("list", { name: "Pages with findings" }).getByRole("listitem").filter({ has: page.getByRole("link", { name: "broken.md" }) });
    await group.getByText("Dead link").waitFor();
    await screenshot(page, "quality-screen");
    await group.getByRole("link", { name: "line 5" }).click();
    await page.waitForURL(/\/w\/[^/]+\/p\/broken\.md\?line=5$/);
    await page.locator(".cm-content").waitFor();
    await page.waitForFunction(() => window.getSelection()?.toString().includes("[[nowhere-at-all]]") || document.querySelector(".cm-selectionBackground") !== null);
    expect(await page.locator(".cm-activeLine").textContent()).toContain("[[nowhere-at-all]]");
    expectNoConsoleErrors(tab);
    await tab.context.close();
  }, 30_000);
});
