import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { Browser } from "playwright-core";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { Client } from "../helpers/client.ts";
import { hasChromium, launch, newTab, registerInUi, screenshot, expectNoConsoleErrors } from "./browser.ts";

const TRICKY = readFileSync(join(import.meta.dir, "../web/fixtures/tricky.md"), "utf8");

describe.skipIf(!hasChromium)("web app in a real browser", () => {
  let server: TestServer;
  let browser: Browser;
  beforeAll(async () => {
    [server, browser] = await Promise.all([startTestServer(), launch()]);
  }, 30_000);
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  test("register → land in the app → create a page → edit rich → switch to raw → autosave → reload shows it", async () => {
    const tab = await newTab(browser);
    const { page } = tab;
    const started = performance.now();
    await page.goto(server.url + "/");
    await page.getByRole("heading", { name: "Sign in" }).waitFor();
    const firstLoadMs = performance.now() - started;
    await screenshot(page, "01-login");
    await page.getByRole("link", { name: "Create an account" }).click();
    await screenshot(page, "02-register");
    const user = { name: "Ada Writer", email: `ada.${Date.now()}@example.test`, password: "correct horse battery" };
    await registerInUi(page, server.url, user);
    expect(page.url()).toMatch(/\/w\/[^/]+$/);
    await screenshot(page, "03-workspace");

    await page.getByRole("button", { name: "+ New page" }).click();
    await page.getByLabel("Title").fill("My first page");
    expect(await page.getByLabel("File path").inputValue()).toBe("my-first-page.md");
    await page.getByRole("button", { name: "Create page" }).click();
    await page.getByRole("heading", { name: "My first page" }).waitFor();
    expect(page.url()).toEndWith("/p/my-first-page.md");
    // The new page is in the sidebar tree.
    await page.getByRole("tree", { name: "Pages" }).getByRole("link", { name: "My first page" }).waitFor();

    const editor = page.getByRole("textbox", { name: "Page content" });
    await editor.click();
    await page.keyboard.type("Hello from the rich editor.");
    await page.keyboard.press("Enter");
    await page.keyboard.type("## A heading");
    await page.keyboard.press("Enter");
    await page.keyboard.type("- first item");
    await page.getByRole("status").filter({ hasText: "Unsaved changes" }).waitFor();
    await page.locator('[data-status="saved"]').waitFor({ timeout: 10_000 });
    await screenshot(page, "04-rich-editor");

    await page.getByRole("button", { name: "Switch to Markdown source" }).click();
    const source = page.getByRole("textbox", { name: "Markdown source" });
    await source.waitFor();
    const lines = async () => (await page.locator(".cm-line").allTextContents()).join("\n");
    expect(await lines()).toBe("Hello from the rich editor.\n\n## A heading\n\n- first item\n");
    await source.click();
    await page.keyboard.press("Control+End");
    await page.keyboard.type("\nTyped in **raw** mode.\n");
    await page.locator('[data-status="unsaved"]').waitFor();
    await page.locator('[data-status="saved"]').waitFor({ timeout: 10_000 });
    await screenshot(page, "05-raw-editor");

    // What is on the server is exactly what was typed.
    const api = new Client(server.url);
    const login = await api.post("/api/auth/login", { email: user.email, password: user.password });
    api.token = login.body.access_token;
    const ws = (await api.get("/api/v1/workspaces")).body.items[0];
    const saved = await api.get(`/api/v1/content/${ws.slug}/my-first-page.md`);
    expect(saved.body.content).toBe("Hello from the rich editor.\n\n## A heading\n\n- first item\n\nTyped in **raw** mode.\n");

    await page.reload();
    await page.getByRole("heading", { name: "My first page" }).waitFor();
    await page.getByRole("textbox", { name: "Page content" }).getByText("Typed in raw mode.").waitFor();
    const bold = page.getByRole("textbox", { name: "Page content" }).locator("strong", { hasText: "raw" });
    expect(await bold.count()).toBe(1);
    expectNoConsoleErrors(tab);
    console.log(`[e2e] first load to sign-in screen: ${firstLoadMs.toFixed(0)} ms`);
  }, 60_000);
});
