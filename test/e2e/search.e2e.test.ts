import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Browser } from "playwright-core";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { registerUser, type TestUser } from "../helpers/factories.ts";
import { hasChromium, launch, newTab, screenshot, signInInUi, expectNoConsoleErrors } from "./browser.ts";

describe.skipIf(!hasChromium)("Ctrl+K search in a real browser", () => {
  let server: TestServer;
  let browser: Browser;
  let user: TestUser;
  beforeAll(async () => {
    [server, browser] = await Promise.all([startTestServer(), launch()]);
    user = await registerUser(server.url);
    const pages: Array<[string, string, string]> = [
      ["zephyr-one.md", "Zephyr basics", "The zephyr wind blows gently from the west.\n"],
      ["zephyr-two.md", "Zephyr advanced", "Advanced zephyr handling <img src=x onerror=alert(1)> & friends.\n"],
      ["other.md", "Other", "Nothing to see here.\n"],
    ];
    for (const [path, title, body] of pages) {
      expect((await user.client.post(`/api/v1/content/${user.workspaceSlug}/${path}`, { title, body })).status).toBe(201);
    }
  }, 30_000);
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  test("results as you type with highlighted snippets; arrows and Enter open a page; Esc closes", async () => {
    const tab = await newTab(browser);
    const { page } = tab;
    await page.goto(`${server.url}/w/${user.workspaceSlug}`);
    await signInInUi(page, user);
    await page.getByRole("tree", { name: "Pages" }).waitFor();

    await page.keyboard.press("Control+k");
    const dialog = page.getByRole("dialog", { name: "Search pages" });
    const input = dialog.getByRole("combobox");
    await input.waitFor();
    await page.keyboard.type("zephyr");
    const options = dialog.getByRole("option");
    await options.nth(1).waitFor();
    expect(await options.count()).toBe(2);
    // Matches are marked; markup in the page text stays text (no element is created from it).
    expect(await dialog.locator("mark").count()).toBeGreaterThan(0);
    expect((await dialog.locator("mark").first().textContent())?.toLowerCase()).toBe("zephyr");
    expect(await dialog.locator(".search-results img").count()).toBe(0);
    const advanced = options.filter({ hasText: "Zephyr advanced" });
    expect(await advanced.locator(".search-snippet").textContent()).toContain("<img src=x onerror=alert(1)> & friends");
    await screenshot(page, "12-search");

    // Arrow down selects the second result, Enter opens it.
    expect(await options.nth(0).getAttribute("aria-selected")).toBe("true");
    const second = (await options.nth(1).locator(".search-title").textContent())!;
    await page.keyboard.press("ArrowDown");
    expect(await options.nth(1).getAttribute("aria-selected")).toBe("true");
    await page.keyboard.press("Enter");
    await page.getByRole("heading", { name: second }).waitFor();
    expect(await dialog.count()).toBe(0);

    // Esc closes the dialog and leaves the page as it was.
    await page.keyboard.press("Control+k");
    await input.waitFor();
    await page.keyboard.type("nothing");
    await options.first().waitFor();
    await page.keyboard.press("Escape");
    await dialog.waitFor({ state: "detached" });
    await page.getByRole("heading", { name: second }).waitFor();
    expectNoConsoleErrors(tab);
    await tab.context.close();
  }, 60_000);
});
