import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Browser } from "playwright-core";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { registerUser, type TestUser } from "../helpers/factories.ts";
import { hasChromium, launch, newTab, screenshot, signInInUi, expectNoConsoleErrors } from "./browser.ts";

describe.skipIf(!hasChromium)("the analytics screen in a real browser", () => {
  let server: TestServer;
  let browser: Browser;
  let user: TestUser;
  beforeAll(async () => {
    [server, browser] = await Promise.all([startTestServer(), launch()]);
    user = await registerUser(server.url, { name: "Ada Writer" });
    await server.services.search.whenIndexed(user.workspaceId);
    for (const q of ["welcome", "welcome", "rate limits", "rate limits", "rate limits", "sso setup"]) {
      expect((await user.client.get(`/api/v1/workspaces/${user.workspaceId}/search?q=${encodeURIComponent(q)}`)).status).toBe(200);
    }
    for (let i = 0; i < 4; i++) server.services.analytics.recordPageView({ workspaceId: user.workspaceId, path: "/welcome", referrer: "https://forum.example.net/t/1" });
    server.services.analytics.recordPageView({ workspaceId: user.workspaceId, path: "/guide/getting-started" });
  }, 30_000);
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  test("top pages, top searches and the searches that found nothing, over 7, 30 and 90 days", async () => {
    const tab = await newTab(browser);
    const { page } = tab;
    await page.goto(`${server.url}/w/${user.workspaceSlug}`);
    await signInInUi(page, user);
    await page.getByRole("navigation", { name: "Workspace pages" }).getByRole("link", { name: "Analytics" }).click();
    await page.getByRole("heading", { name: /^Analytics/ }).waitFor();

    const gaps = page.getByRole("list", { name: "Searches with no results" });
    await gaps.waitFor();
    expect(await gaps.getByRole("listitem").allTextContents()).toEqual([expect.stringContaining("rate limits"), expect.stringContaining("sso setup")]);
    const queries = page.getByRole("list", { name: "Top searches" });
    expect(await queries.getByRole("listitem").first().textContent()).toContain("rate limits");
    const pages = page.getByRole("list", { name: "Top pages" });
    expect(await pages.getByRole("listitem").first().textContent()).toContain("/welcome");
    expect(await page.getByRole("list", { name: "Referring sites" }).textContent()).toContain("forum.example.net");
    expect(await page.getByRole("button", { name: "30 days" }).getAttribute("aria-pressed")).toBe("true");
    await screenshot(page, "analytics");

    await page.getByRole("button", { name: "7 days" }).click();
    await page.waitForURL(/\?days=7$/);
    expect(await page.getByRole("button", { name: "7 days" }).getAttribute("aria-pressed")).toBe("true");
    await gaps.getByText("sso setup").waitFor();

    // A top page opens in the editor (a page of the starter workspace: the editor has read it before
    // the console is checked, so a failed read could not slip past).
    await pages.getByRole("link", { name: "/welcome" }).click();
    await page.waitForURL(/\/p\/welcome\.md$/);
    await page.getByRole("textbox", { name: "Page content" }).waitFor();
    expectNoConsoleErrors(tab);
  }, 60_000);
});
