import { afterAll, afterEach, beforeAll, describe, expect, setSystemTime, test } from "bun:test";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { registerUser, type TestUser } from "../helpers/factories.ts";
import { Client } from "../helpers/client.ts";
import { expectNoConsoleErrors, hasChromium, launch, newTab, signInInUi, type Tab } from "./browser.ts";
import { REFRESH_GRACE_MS } from "../../src/identity/sessions.ts";

/**
 * A browser that restores four tabs of Quire at once: every tab boots, finds no access token in
 * memory and trades the one refresh cookie of the browser. Before the grace window and the shared
 * refresh, the second use counted as a replay and signed the person out everywhere.
 */
describe.skipIf(!hasChromium)("four tabs restored at once", () => {
  let server: TestServer;
  let browser: Browser;
  beforeAll(async () => {
    [server, browser] = await Promise.all([startTestServer(), launch()]);
  }, 30_000);
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });
  afterEach(() => setSystemTime());

  const sessionCount = (userId: string) =>
    server.services.db.query<{ n: number }, [string]>("SELECT COUNT(*) AS n FROM sessions WHERE user_id = ?").get(userId)!.n;

  /** Signs in through the form in a fresh context, then closes the page: the cookie stays, the token in memory goes. */
  async function signedInContext(user: TestUser, init?: () => void): Promise<Tab> {
    const tab = await newTab(browser);
    if (init) await tab.context.addInitScript(init);
    await tab.page.goto(server.url + "/login");
    await signInInUi(tab.page, user);
    await tab.page.getByRole("tree", { name: "Pages" }).waitFor();
    await tab.page.close();
    return tab;
  }

  /**
   * Opens four pages of one context together, as a browser restoring its tabs does. Page loads on
   * a busy machine drift apart by tens of milliseconds, enough for one refresh to finish (and its
   * cookie to land) before the next starts; a restoring browser has no such luck. So the refresh
   * requests are held at the network layer until all four are in flight (or 1.5 s passed: a tab
   * that waits for another's refresh sends none) and released together, all carrying one cookie.
   */
  async function restoreFour(context: BrowserContext, user: TestUser): Promise<{ pages: Page[]; refreshes: number; ms: number }> {
    const held: Array<() => Promise<void>> = [];
    let timer: ReturnType<typeof setTimeout> | undefined;
    const releaseAll = () => {
      clearTimeout(timer);
      timer = undefined;
      for (const go of held.splice(0)) void go();
    };
    let refreshes = 0;
    await context.route("**/api/auth/refresh", async (route) => {
      refreshes++;
      held.push(() => route.continue());
      if (held.length === 4) releaseAll();
      else timer ??= setTimeout(releaseAll, 1500);
    });
    const pages = await Promise.all([1, 2, 3, 4].map(() => context.newPage()));
    const started = performance.now();
    const urls = ["/", `/w/${user.workspaceSlug}`, `/w/${user.workspaceSlug}/getting-started.md`, "/account"];
    await Promise.all(pages.map((p, i) => p.goto(server.url + urls[i])));
    // Each tab ends either in the app (the account menu) or on the sign-in form.
    await Promise.all(pages.map((p) => p.locator('summary[aria-label^="Account"], form button:text-is("Sign in")').first().waitFor()));
    await context.unroute("**/api/auth/refresh");
    releaseAll();
    return { pages, refreshes, ms: performance.now() - started };
  }

  async function expectSignedIn(pages: Page[]) {
    for (const p of pages) {
      expect(new URL(p.url()).pathname).not.toBe("/login");
      expect(await p.locator('summary[aria-label^="Account"]').count()).toBe(1);
    }
  }

  test("the app as shipped: all four tabs stay signed in, sharing one refresh through the Web Lock", async () => {
    const user = await registerUser(server.url, { name: "Tara Tabs" });
    const tab = await signedInContext(user);
    const before = sessionCount(user.id);
    const { pages, refreshes, ms } = await restoreFour(tab.context, user);
    console.log(`[tabs] shipped app: ${refreshes} refresh request(s) for four tabs, ${Math.round(ms)} ms`);
    await expectSignedIn(pages);
    expect(sessionCount(user.id)).toBe(before);
    // One tab refreshes; the others take its token (or, when the hand-over is late, refresh after it, in turn).
    expect(refreshes).toBeGreaterThanOrEqual(1);
    expect(refreshes).toBeLessThanOrEqual(4);
    expectNoConsoleErrors(tab);
    await tab.context.close();
  }, 60_000);

  test("a browser without Web Locks or BroadcastChannel: the server's grace window keeps all four signed in; a replay after it still revokes", async () => {
    const user = await registerUser(server.url, { name: "Ola Oldbrowser" });
    const tab = await signedInContext(user, () => {
      // An older browser: no cross-tab coordination, so the four tabs present the same cookie at once.
      Object.defineProperty(Navigator.prototype, "locks", { get: () => undefined, configurable: true });
      Object.defineProperty(window, "BroadcastChannel", { value: undefined, configurable: true });
    });
    const cookieBefore = (await tab.context.cookies()).find((c) => c.name === "quire_refresh")!.value;
    const before = sessionCount(user.id);
    const { pages, refreshes } = await restoreFour(tab.context, user);
    expect(refreshes).toBe(4);
    await expectSignedIn(pages);
    expect(sessionCount(user.id)).toBe(before);
    const cookieAfter = (await tab.context.cookies()).find((c) => c.name === "quire_refresh")!.value;
    expect(cookieAfter).not.toBe(cookieBefore);

    // The cookie the tabs traded, presented again after the window: a real replay. Every session ends.
    setSystemTime(new Date(Date.now() + REFRESH_GRACE_MS + 1000));
    const replay = await new Client(server.url).post("/api/auth/refresh", { refresh_token: cookieBefore });
    expect(replay.status).toBe(401);
    expect(sessionCount(user.id)).toBe(0);
    await pages[0]!.reload();
    await pages[0]!.getByRole("button", { name: "Sign in" }).waitFor();
    expectNoConsoleErrors(tab, [401]);
    await tab.context.close();
  }, 60_000);
});
