import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import type { Browser } from "playwright-core";
import { startTestServer, tempDir, type TestServer } from "../helpers/server.ts";
import { SiteExporter } from "../../src/publish/export/exporter.ts";
import { siteSourceOf } from "../../src/publish/export/site-source.ts";
import { startPreview, type RunningPreview } from "../../src/publish/preview/preview-server.ts";
import { exportFixture, unzip, type ExportFixture } from "../publish/export/support.ts";
import { expectNoConsoleErrors, hasChromium, launch, newTab, screenshot } from "./browser.ts";

/**
 * The exported site opened from file:// in Chromium (pages render, navigation and search work, no
 * console errors), and `quire preview` reloading an open tab when a file changes on disk.
 */
describe.skipIf(!hasChromium)("export from file:// and preview in a real browser", () => {
  let server: TestServer;
  let browser: Browser;
  let fx: ExportFixture;
  let site: string;

  beforeAll(async () => {
    [server, browser] = await Promise.all([startTestServer({ QUIRE_WATCH_FILES: "false" }), launch()]);
    fx = await exportFixture(server);
    const exporter = new SiteExporter({ ledger: server.services.ledger, site: siteSourceOf(server.services.site, server.services.workspaces) });
    const chunks: Uint8Array[] = [];
    const it = exporter.zip(fx.wsId);
    for (let next = await it.next(); !next.done; next = await it.next()) chunks.push(next.value);
    site = tempDir("quire-export-site-");
    for (const [name, bytes] of unzip(new Uint8Array(await new Blob(chunks as BlobPart[]).arrayBuffer()))) {
      mkdirSync(dirname(join(site, name)), { recursive: true });
      writeFileSync(join(site, name), bytes);
    }
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
    if (site) rmSync(site, { recursive: true, force: true });
  });

  test("from file://: pages render, navigation and search work, no console errors", async () => {
    const tab = await newTab(browser);
    const { page } = tab;
    await page.goto(pathToFileURL(join(site, "index.html")).href);
    await page.getByRole("heading", { level: 1, name: "Documentation home" }).waitFor();
    expect(await page.locator("link[rel=stylesheet]").first().evaluate((l) => (l as HTMLLinkElement).sheet !== null)).toBe(true);

    await page.getByRole("main").getByRole("link", { name: "media page" }).click();
    await page.waitForURL(/\/media\.html$/);
    await page.getByRole("heading", { level: 1, name: "Media and math" }).waitFor();
    expect(await page.getByRole("img", { name: "The logo" }).evaluate((img) => (img as HTMLImageElement).naturalWidth)).toBe(1);
    await page.getByRole("navigation", { name: "Site navigation" }).getByRole("link", { name: "Components" }).click();
    await page.waitForURL(/\/components\.html$/);
    await page.goto(pathToFileURL(join(site, "reference/deep/nested.html")).href);
    await page.getByRole("heading", { level: 1, name: "Nested page" }).waitFor();
    await page.getByRole("link", { name: "the API" }).click();
    await page.waitForURL(/reference\/api\.html$/);

    // Search from a page two folders down: the index is found relative to search.js itself.
    await page.goto(pathToFileURL(join(site, "reference/deep/nested.html")).href);
    await page.keyboard.press("Control+k");
    await page.getByRole("searchbox", { name: "Search the docs" }).fill("endpoints");
    const result = page.locator(".search-results a").filter({ hasText: "API reference" });
    await result.waitFor();
    await screenshot(page, "export-file-search");
    await result.click();
    await page.waitForURL(/reference\/api\.html$/);
    expect(await page.evaluate(() => window.quireSearch!("media math", 5).then((r) => r.map((x) => x.title)))).toContain("Media and math");
    expect(await page.evaluate(() => (window as { __pwned?: unknown }).__pwned ?? null)).toBeNull();
    await page.goto(pathToFileURL(join(site, "hostile.html")).href);
    await page.getByRole("heading", { level: 1, name: "Hostile page" }).waitFor();
    await page.locator("text=text").first().click();
    expect(await page.evaluate(() => (window as { __pwned?: unknown }).__pwned ?? null)).toBeNull();
    expectNoConsoleErrors(tab);
    await tab.context.close();
  }, 30_000);

  test("preview: a file saved on disk reloads the open tab; drafts are shown marked", async () => {
    const db = new Database(join(server.dataDir, "quire.db"), { readonly: true });
    let preview: RunningPreview | null = null;
    try {
      preview = await startPreview({ db, dataDir: server.dataDir, workspaceId: fx.wsId, port: 0, drafts: true });
      const tab = await newTab(browser);
      const { page } = tab;
      await page.goto(`${preview.url}reference/api`);
      await page.getByRole("heading", { level: 1, name: "API reference" }).waitFor();
      const csp = (await page.request.get(`${preview.url}reference/api`)).headers()["content-security-policy"];
      expect(csp).toContain("script-src 'nonce-");

      const started = Date.now();
      writeFileSync(join(fx.dir, "reference/api.md"), "---\ntitle: API reference\npublish: true\n---\n\n## Endpoints, revised\n\nSaved from an editor.\n");
      await page.getByText("Saved from an editor.").waitFor({ timeout: 3000 });
      expect(Date.now() - started).toBeLessThan(2000);

      await page.goto(`${preview.url}secret/plan`);
      await page.getByRole("note").filter({ hasText: "Draft" }).waitFor();
      expectNoConsoleErrors(tab);
      await tab.context.close();
    } finally {
      await preview?.stop();
      db.close();
    }
  }, 30_000);
});

declare global {
  interface Window {
    quireSearch?: (q: string, limit: number) => Promise<Array<{ url: string; title: string; snippet: string }>>;
  }
}
