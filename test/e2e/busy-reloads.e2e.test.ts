import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Browser } from "playwright-core";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { registerUser } from "../helpers/factories.ts";
import { expectNoConsoleErrors, hasChromium, launch, newTab, signInInUi } from "./browser.ts";

/**
 * A busy person reloads the app (or opens pages in new tabs) many times a minute. Each load renews
 * the session and asks for the WebSocket cookie; those are uses of the session, counted apart from
 * the 20 credential attempts a minute (docs/decisions/rate-limits.md), so the 11th load no longer
 * lands on the sign-in screen.
 */
describe.skipIf(!hasChromium)("40 loads of the app in a minute", () => {
  let server: TestServer;
  let browser: Browser;
  beforeAll(async () => {
    [server, browser] = await Promise.all([startTestServer(), launch()]);
  }, 30_000);
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  test("stay signed in: every load renews the session and opens the tree, none meets a 429", async () => {
    const user = await registerUser(server.url);
    const tab = await newTab(browser);
    const { page } = tab;
    const statuses: Record<string, number[]> = { refresh: [], ws: [] };
    page.on("response", (r) => {
      const path = new URL(r.url()).pathname;
      if (path === "/api/auth/refresh") statuses.refresh!.push(r.status());
      if (path === "/api/auth/ws-token") statuses.ws!.push(r.status());
    });
    await page.goto(server.url + "/login");
    await signInInUi(page, user);
    await page.getByRole("tree", { name: "Pages" }).waitFor();

    const started = performance.now();
    for (let i = 0; i < 40; i++) {
      // Each load asks for its WebSocket cookie once the tree is in; the next reload waits for that
      // answer, so no load's request is cut short by the next one.
      const wsToken = page.waitForResponse((r) => new URL(r.url()).pathname === "/api/auth/ws-token", { timeout: 10_000 });
      await page.reload();
      await page.getByRole("tree", { name: "Pages" }).waitFor();
      await wsToken;
      expect(new URL(page.url()).pathname).not.toBe("/login");
    }
    const ms = performance.now() - started;
    // All forty inside one window of the limiter, or the test proves nothing.
    expect(ms).toBeLessThan(60_000);
    expect(statuses.refresh!.length).toBeGreaterThanOrEqual(40);
    expect(statuses.refresh!.every((s) => s === 200)).toBe(true);
    expect(statuses.ws!.length).toBeGreaterThanOrEqual(40);
    expect(statuses.ws!.every((s) => s === 204)).toBe(true);
    console.log(`40 reloads in ${Math.round(ms)} ms: ${statuses.refresh!.length} refreshes, ${statuses.ws!.length} ws-tokens, no 429`);
    expectNoConsoleErrors(tab);
  }, 90_000);
});
