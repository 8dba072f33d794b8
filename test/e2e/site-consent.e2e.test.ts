/**
 * The published site's analytics consent prompt in Debian's Chromium, under the site's nonce-only
 * CSP (a violation fails the test): "Allow" sets the consent cookie and the next page view counts
 * a visitor in the analytics report; "No, thanks" is remembered too and counts none; a browser
 * sending Global Privacy Control is never asked. The prompt fits a phone's width.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Browser } from "playwright-core";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { registerUser, type TestUser } from "../helpers/factories.ts";
import { expectNoConsoleErrors, hasChromium, launch, newTab, screenshot, type Tab } from "./browser.ts";

/** A reader's browser: headless Chromium's own user agent is (rightly) not counted as a reader. */
const READER_UA = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0.0.0 Safari/537.36";

async function watchCsp(tab: Tab): Promise<void> {
  await tab.page.addInitScript(() => {
    document.addEventListener("securitypolicyviolation", (e) => console.error(`CSP violation: ${e.violatedDirective} ${e.blockedURI} ${e.sourceFile}:${e.lineNumber}`));
  });
}

describe.skipIf(!hasChromium)("the site's consent prompt in a real browser", () => {
  let server: TestServer;
  let browser: Browser;

  async function publishedSite(): Promise<TestUser> {
    const user = await registerUser(server.url);
    expect((await user.client.put(`/api/v1/workspaces/${user.workspaceId}/admin/settings`, { published: true, visibility: "public" })).status).toBe(200);
    for (const name of ["first", "second"]) {
      expect((await user.client.post(`/api/v1/content/${user.workspaceSlug}/${name}.md`, { title: `The ${name} page`, body: `${name} page text\n`, publish: true })).status).toBe(201);
    }
    return user;
  }

  async function overview(user: TestUser): Promise<{ page_views: number; visitors: number; consents: { granted: number; denied: number } }> {
    const r = await user.client.get(`/api/v1/workspaces/${user.workspaceId}/analytics/overview?days=7`);
    expect(r.status).toBe(200);
    return r.body;
  }

  beforeAll(async () => {
    [server, browser] = await Promise.all([startTestServer(), launch()]);
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  test("Allow: the cookie is set, the prompt is gone for good, and the next page view counts a visitor", async () => {
    const owner = await publishedSite();
    const tab = await newTab(browser, { userAgent: READER_UA });
    await watchCsp(tab);
    const { page } = tab;
    await page.goto(`${server.url}/p/${owner.workspaceSlug}/first`);
    const prompt = page.getByRole("region", { name: "Count your visit?" });
    await prompt.waitFor();
    await screenshot(page, "site-consent-desktop");
    expect((await overview(owner)).visitors).toBe(0);

    await prompt.getByRole("button", { name: "Allow" }).click();
    await prompt.waitFor({ state: "hidden" });
    const cookie = (await tab.context.cookies()).find((c) => c.name === "quire_analytics_consent");
    expect(cookie).toMatchObject({ value: "granted", path: `/p/${owner.workspaceSlug}`, sameSite: "Lax" });

    await page.goto(`${server.url}/p/${owner.workspaceSlug}/second`);
    await page.getByRole("heading", { name: "The second page" }).waitFor();
    expect(await page.locator(".consent-prompt").isVisible()).toBe(false);
    const report = await overview(owner);
    expect(report.visitors).toBe(1);
    expect(report.consents).toEqual({ granted: 1, denied: 0 });
    expect(report.page_views).toBe(2);
    expectNoConsoleErrors(tab);
    await tab.context.close();
  }, 60_000);

  test("No, thanks on a phone: the prompt fits the screen, the answer is remembered, and no visitor is counted", async () => {
    const owner = await publishedSite();
    const tab = await newTab(browser, { width: 390, height: 760, userAgent: READER_UA });
    await watchCsp(tab);
    const { page } = tab;
    await page.goto(`${server.url}/p/${owner.workspaceSlug}/first`);
    const prompt = page.getByRole("region", { name: "Count your visit?" });
    await prompt.waitFor();
    const box = (await prompt.boundingBox())!;
    expect(box.x).toBeGreaterThanOrEqual(0);
    expect(box.x + box.width).toBeLessThanOrEqual(390);
    expect(box.y + box.height).toBeLessThanOrEqual(760);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await screenshot(page, "site-consent-phone");

    await prompt.getByRole("button", { name: "No, thanks" }).click();
    await prompt.waitFor({ state: "hidden" });
    expect((await tab.context.cookies()).find((c) => c.name === "quire_analytics_consent")?.value).toBe("denied");
    await page.goto(`${server.url}/p/${owner.workspaceSlug}/second`);
    await page.getByRole("heading", { name: "The second page" }).waitFor();
    expect(await page.locator(".consent-prompt").isVisible()).toBe(false);
    const report = await overview(owner);
    expect(report.visitors).toBe(0);
    expect(report.consents).toEqual({ granted: 0, denied: 1 });
    expect(report.page_views).toBe(2);
    expectNoConsoleErrors(tab);
    await tab.context.close();
  }, 60_000);

  test("a browser sending Global Privacy Control is never asked", async () => {
    const owner = await publishedSite();
    const tab = await newTab(browser, { userAgent: READER_UA });
    await watchCsp(tab);
    // What Chromium exposes when the reader turned the signal on (it then also sends Sec-GPC: 1).
    await tab.page.addInitScript(() => Object.defineProperty(Navigator.prototype, "globalPrivacyControl", { get: () => true }));
    await tab.context.setExtraHTTPHeaders({ "x-forwarded-for": tab.ip, "sec-gpc": "1" });
    const { page } = tab;
    await page.goto(`${server.url}/p/${owner.workspaceSlug}/first`);
    await page.getByRole("heading", { name: "The first page" }).waitFor();
    await page.waitForLoadState("load");
    expect(await page.locator(".consent-prompt").isVisible()).toBe(false);
    expect(await page.locator(".consent-prompt").count()).toBe(1); // present, and left hidden by the script
    expect((await overview(owner)).page_views).toBe(1);
    expectNoConsoleErrors(tab);
    await tab.context.close();
  }, 60_000);
});
