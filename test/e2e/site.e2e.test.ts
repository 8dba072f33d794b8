/**
 * The published site in Debian's Chromium: no console errors and no CSP violation on any page
 * (a violation fails the test), Mermaid draws, the copy button copies, Ctrl+K finds a page, the
 * light/dark switch, a phone-width layout, members reaching a members-only site through the app,
 * the Site screen; a screenshot of every theme in light and dark goes to test-output/.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { mkdirSync } from "node:fs";
import type { Browser, Page } from "playwright-core";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { registerUser, type TestUser } from "../helpers/factories.ts";
import { SHOTS, expectNoConsoleErrors, hasChromium, launch, newTab, signInInUi, type Tab } from "./browser.ts";

const THEMES = ["default", "dark", "forest", "rose", "amber", "minimal", "corporate"];

/** Every CSP violation becomes a console error, which expectNoConsoleErrors refuses. */
async function watchCsp(tab: Tab): Promise<void> {
  await tab.page.addInitScript(() => {
    document.addEventListener("securitypolicyviolation", (e) => console.error(`CSP violation: ${e.violatedDirective} ${e.blockedURI} ${e.sourceFile}:${e.lineNumber}`));
  });
}

describe.skipIf(!hasChromium)("the published site in a real browser", () => {
  let server: TestServer;
  let browser: Browser;
  let owner: TestUser;
  const site = (path = "") => `${server.url}/p/${owner.workspaceSlug}${path}`;

  beforeAll(async () => {
    [server, browser] = await Promise.all([startTestServer(), launch()]);
    owner = await registerUser(server.url);
    const r = await owner.client.put(`/api/v1/workspaces/${owner.workspaceId}/admin/settings`, { published: true, visibility: "public" });
    expect(r.status).toBe(200);
    const body = "# Quasar setup\n\nThe quasar engine needs a config file.\n\n```sh\nquire serve --port 4000\n```\n\n```mermaid\ngraph LR; Draft-->Review; Review-->Publish;\n```\n";
    expect((await owner.client.post(`/api/v1/content/${owner.workspaceSlug}/guides/quasar.md`, { title: "Quasar setup", body, publish: true })).status).toBe(201);
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  test("the components page: no console errors or CSP violations, Mermaid draws, the copy button copies", async () => {
    const tab = await newTab(browser);
    await watchCsp(tab);
    await tab.context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: server.url });
    const { page } = tab;
    await page.goto(site("/guides/quasar"));
    await page.locator(".mermaid.mermaid-rendered svg").first().waitFor({ timeout: 30_000 });
    expect(await page.locator(".mermaid svg").first().textContent()).toContain("Review");
    const copy = page.locator("button.copy-code").first();
    await copy.click();
    await expect(page.evaluate(() => navigator.clipboard.readText())).resolves.toContain("quire serve --port 4000");
    await page.goto(site("/components"));
    // Mermaid is fetched only once a diagram comes near the screen.
    await page.waitForTimeout(300);
    expect(await page.evaluate(() => "mermaid" in window)).toBe(false);
    await page.locator(".mermaid").first().scrollIntoViewIfNeeded();
    await page.locator(".mermaid.mermaid-rendered svg").first().waitFor({ timeout: 30_000 });
    await page.locator(".katex").first().waitFor();
    expectNoConsoleErrors(tab);
    await tab.context.close();
  }, 60_000);

  test("Ctrl+K opens search; typing finds a page; Enter opens it", async () => {
    const tab = await newTab(browser);
    await watchCsp(tab);
    const { page } = tab;
    await page.goto(site("/"));
    await page.keyboard.press("Control+k");
    const dialog = page.getByRole("dialog", { name: "Search the site" });
    await dialog.getByRole("searchbox").fill("quasar");
    const hit = dialog.getByRole("link", { name: /Quasar setup/ });
    await hit.waitFor();
    expect(await dialog.locator("mark").first().textContent()).toMatch(/quasar/i);
    await page.keyboard.press("Enter");
    await page.waitForURL(/\/guides\/quasar$/);
    expect(await page.locator("h1").first().textContent()).toContain("Quasar setup");
    expectNoConsoleErrors(tab);
    await tab.context.close();
  }, 30_000);

  test("the light/dark switch changes the colours and is remembered", async () => {
    const tab = await newTab(browser);
    await watchCsp(tab);
    const { page } = tab;
    await page.emulateMedia({ colorScheme: "light" });
    await page.goto(site("/guides/quasar"));
    const bg = () => page.evaluate(() => getComputedStyle(document.body).backgroundColor);
    const light = await bg();
    await page.locator("button.mode-toggle").click();
    expect(await page.evaluate(() => document.documentElement.dataset.mode)).toBe("dark");
    const dark = await bg();
    expect(dark).not.toBe(light);
    await page.reload();
    expect(await bg()).toBe(dark);
    expectNoConsoleErrors(tab);
    await tab.context.close();
  }, 30_000);

  test("\"Use with your AI assistant\": the copy button is reached by keyboard, named by its label, copies the endpoint, in light and dark", async () => {
    const tab = await newTab(browser);
    await watchCsp(tab);
    await tab.context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: server.url });
    const { page } = tab;
    await page.emulateMedia({ colorScheme: "light" });
    await page.goto(site("/guides/quasar"));
    const endpoint = `${server.config.baseUrl}/p/${owner.workspaceSlug}/mcp`;
    const snippet = page.getByRole("region", { name: "Use with your AI assistant" });
    expect(await snippet.locator("code").textContent()).toBe(endpoint);
    // Its accessible name is its visible label (WCAG 2.5.3).
    const button = snippet.getByRole("button", { name: "Copy URL", exact: true });
    expect(await button.isVisible()).toBe(true);
    // Keyboard only: focus moves to the button by Tab, Enter copies.
    await page.locator("a.site-name").focus();
    for (let i = 0; i < 200 && !(await button.evaluate((b) => b === document.activeElement)); i++) await page.keyboard.press("Tab");
    expect(await button.evaluate((b) => b === document.activeElement)).toBe(true);
    await page.keyboard.press("Enter");
    await expect(page.evaluate(() => navigator.clipboard.readText())).resolves.toBe(endpoint);
    expect(await snippet.getByRole("status").textContent()).toContain("Copied");
    // Light and dark: the snippet follows the theme's colours, its text legible on its box.
    const colours = () => snippet.evaluate((el) => ({ box: getComputedStyle(el).backgroundColor, text: getComputedStyle(el).color }));
    const light = await colours();
    await page.locator("button.mode-toggle").click();
    const dark = await colours();
    expect(dark.box).not.toBe(light.box);
    expect(dark.text).not.toBe(dark.box);
    await snippet.screenshot({ path: join(SHOTS, "site-assistant-snippet-dark.png") });
    expectNoConsoleErrors(tab);
    await tab.context.close();
  }, 30_000);

  test("at phone width the navigation folds behind the menu button and nothing overflows", async () => {
    const tab = await newTab(browser, { width: 390, height: 844 });
    await watchCsp(tab);
    const { page } = tab;
    await page.goto(site("/components"));
    const sidebar = page.locator("#sidebar");
    expect(await sidebar.isVisible()).toBe(true);
    const box = async () => (await sidebar.boundingBox())!;
    expect((await box()).x + (await box()).width).toBeLessThanOrEqual(1);
    await page.getByRole("button", { name: "Menu" }).click();
    await page.waitForFunction(() => document.getElementById("sidebar")!.getBoundingClientRect().x >= 0);
    expect(await page.getByRole("button", { name: "Menu" }).getAttribute("aria-expanded")).toBe("true");
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    mkdirSync(SHOTS, { recursive: true });
    await page.screenshot({ path: join(SHOTS, "site-phone-menu.png") });
    expectNoConsoleErrors(tab);
    await tab.context.close();
  }, 30_000);

  test("printed, a page is its content: no header, navigation, table of contents or pager", async () => {
    const tab = await newTab(browser);
    const { page } = tab;
    await page.goto(site("/guides/quasar"), { waitUntil: "domcontentloaded" });
    await page.emulateMedia({ media: "print" });
    for (const selector of [".site-header", "#sidebar", ".page-toc", ".pager", "button.copy-code"]) {
      const shown = await page.locator(selector).first().evaluate((el) => getComputedStyle(el).display !== "none").catch(() => false);
      expect(`${selector}: ${shown}`).toBe(`${selector}: false`);
    }
    expect(await page.locator("article.page h1").first().isVisible()).toBe(true);
    expectNoConsoleErrors(tab);
    await tab.context.close();
  }, 30_000);

  test("every theme, light and dark, without console errors (screenshots in test-output/)", async () => {
    mkdirSync(SHOTS, { recursive: true });
    const tab = await newTab(browser, { width: 1280, height: 900 });
    await watchCsp(tab);
    const { page } = tab;
    for (const theme of THEMES) {
      expect((await owner.client.put(`/api/v1/workspaces/${owner.workspaceId}/admin/settings`, { theme })).status).toBe(200);
      for (const scheme of ["light", "dark"] as const) {
        await page.emulateMedia({ colorScheme: scheme });
        // A new address each time: the browser may keep a page for five minutes (Cache-Control).
        // The deferred site script runs after the stylesheets: DOMContentLoaded means styled. (The
        // page's video embed points at a host this machine cannot reach; "load" would wait for it.)
        await page.goto(site(`/components?theme=${theme}&scheme=${scheme}`), { waitUntil: "domcontentloaded" });
        await page.evaluate(() => document.fonts.ready);
        expect(await page.evaluate(() => document.documentElement.dataset.theme)).toBe(theme);
        await page.screenshot({ path: join(SHOTS, `site-theme-${theme}-${scheme}.png`) });
      }
    }
    expectNoConsoleErrors(tab);
    await tab.context.close();
    await owner.client.put(`/api/v1/workspaces/${owner.workspaceId}/admin/settings`, { theme: "default" });
  }, 120_000);

  test("a members-only site: anonymous readers sign in and come back; a signed-in member reads it and may edit", async () => {
    await owner.client.put(`/api/v1/workspaces/${owner.workspaceId}/admin/settings`, { visibility: "authenticated" });
    const tab = await newTab(browser);
    await watchCsp(tab);
    const { page } = tab;
    await page.goto(site("/guides/quasar"));
    await page.waitForURL(/\/login\?next=/);
    await signInInUi(page, owner);
    await page.waitForURL(/\/p\/[^/]+\/guides\/quasar$/);
    expect(await page.locator("h1").first().textContent()).toContain("Quasar setup");
    const edit = page.getByRole("link", { name: "Edit this page" });
    expect(await edit.getAttribute("href")).toBe(`${server.config.baseUrl}/w/${owner.workspaceSlug}/p/guides/quasar.md`);
    expectNoConsoleErrors(tab);
    await tab.context.close();
    await owner.client.put(`/api/v1/workspaces/${owner.workspaceId}/admin/settings`, { visibility: "public" });
  }, 30_000);

  test("the Site screen: theme preview and choice, the live link; the page says it is live", async () => {
    const tab = await newTab(browser);
    const { page } = tab;
    await page.goto(`${server.url}/w/${owner.workspaceSlug}/settings/site`);
    await signInInUi(page, owner);
    await page.getByRole("heading", { name: "Theme" }).waitFor();
    expect(await page.getByLabel("Publish this workspace as a site").isChecked()).toBe(true);
    await page.getByRole("radio", { name: /Forest/ }).click();
    expect(await page.getByLabel("Preview of Forest").isVisible()).toBe(true);
    await page.getByRole("button", { name: "Use this theme" }).click();
    await page.getByText("Theme set to Forest.").waitFor();
    expect((await owner.client.get(`/api/v1/workspaces/${owner.workspaceId}/site`)).body.theme).toBe("forest");
    expect(await page.getByRole("link", { name: /Open the live site/ }).getAttribute("href")).toBe(`${server.config.baseUrl}/p/${owner.workspaceSlug}/`);
    mkdirSync(SHOTS, { recursive: true });
    await page.screenshot({ path: join(SHOTS, "site-settings.png"), fullPage: true });
    await page.goto(`${server.url}/w/${owner.workspaceSlug}/p/guides/quasar.md`);
    const view = page.getByRole("link", { name: "View on site" });
    await view.waitFor();
    expect(await view.getAttribute("href")).toBe(`${server.config.baseUrl}/p/${owner.workspaceSlug}/guides/quasar`);
    expectNoConsoleErrors(tab);
    await tab.context.close();
  }, 30_000);
});

export type { Page };
