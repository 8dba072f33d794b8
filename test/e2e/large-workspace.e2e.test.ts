/**
 * A large workspace stays fast to open: 5,000 pages (a folder of 3,000 and forty of 50), a page
 * deep in the long folder opened by its address. The tree loads by folder (only the levels on
 * the way to the open page), renders only expanded folders, and a long folder renders only the
 * rows in view. Target: a page opens in under 500 ms (the median of five) and the document holds under 3,000 nodes.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Browser } from "playwright-core";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { registerUser, type TestUser } from "../helpers/factories.ts";
import { hasChromium, launch, newTab, screenshot, signInInUi, expectNoConsoleErrors } from "./browser.ts";

const BIG = 3_000;
const SECTIONS = 40;
const PER_SECTION = 50;

describe.skipIf(!hasChromium)("a 5,000-page workspace in a real browser", () => {
  let server: TestServer;
  let browser: Browser;
  let user: TestUser;
  beforeAll(async () => {
    [server, browser] = await Promise.all([startTestServer(), launch()]);
    user = await registerUser(server.url);
    // The fastest way in: the files written into the workspace folder, then one reconcile.
    const dir = join(server.dataDir, "workspaces", user.workspaceId);
    const page = (path: string, title: string) => writeFileSync(join(dir, path), `---\ntitle: ${title}\n---\n\n# ${title}\n\nText of ${title}.\n`);
    mkdirSync(join(dir, "big"), { recursive: true });
    for (let i = 0; i < BIG; i++) page(`big/page-${String(i).padStart(4, "0")}.md`, `Big ${i}`);
    for (let s = 0; s < SECTIONS; s++) {
      mkdirSync(join(dir, `section-${s}`), { recursive: true });
      for (let i = 0; i < PER_SECTION; i++) page(`section-${s}/page-${i}.md`, `Section ${s} page ${i}`);
    }
    await server.services.reconciler.reconcile(user.workspaceId);
    expect(server.services.ledger.pageCount(user.workspaceId)).toBeGreaterThanOrEqual(BIG + SECTIONS * PER_SECTION);
    // What follows an import of 5,000 files (their commit, the git index staging them a second
    // later, the search index, the version index) is done before the measure: the budget is for
    // opening a page of a large workspace, not one still being imported. (The index's staging, in
    // chunks of 200 files, held the server up for 30–130 ms at a time during the opens.)
    await server.services.gitSync.settled();
    await server.services.search.whenIndexed(user.workspaceId);
    await server.services.versionIndex.idle(user.workspaceId);
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  test("a page deep in a folder of 3,000 opens in < 500 ms with < 3,000 DOM nodes", async () => {
    const tab = await newTab(browser);
    const { page } = tab;
    const url = (path: string) => `${server.url}/w/${user.workspaceSlug}/p/${path}`;
    await page.goto(url("big/page-0001.md"));
    await signInInUi(page, user);
    await page.getByRole("textbox", { name: "Page content" }).getByText("Text of Big 1.").waitFor();

    // Measured on a second open (the app's script cached, as for anyone who used it before).
    const open = async (path: string, text: string) => {
      const started = Date.now();
      await page.goto(url(path));
      await page.getByRole("textbox", { name: "Page content" }).getByText(text).waitFor();
      // The tree shows where the page is: its row, marked.
      await page.locator(`.tree-row[data-path="${path}"] a[aria-current=page]`).waitFor();
      return Date.now() - started;
    };
    const t0 = Date.now();
    if (process.env.TRACE_REQUESTS) page.on("requestfinished", (r) => console.log(Date.now() - t0, r.method(), r.url().slice(0, 100), JSON.stringify(r.timing())));
    // Five pages deep in the long folder, each opened by its address; the median is the figure
    // (one open on a shared 2-core machine varies by a hundred milliseconds either way).
    const times: number[] = [];
    for (const n of [2500, 1700, 2900, 2100, 2700]) times.push(await open(`big/page-${n}.md`, `Text of Big ${n}.`));
    const ms = [...times].sort((a, b) => a - b)[2]!;
    const nodes = await page.evaluate(() => document.getElementsByTagName("*").length);
    console.log(`[large-workspace] open: ${times.join(", ")} ms (median ${ms} ms), DOM nodes: ${nodes}`);
    await screenshot(page, "60-large-workspace");

    // The tree still reaches every page: the long folder scrolls to its end, another folder expands.
    const tree = page.getByRole("tree", { name: "Pages" });
    await page.locator(".tree-long").evaluate((el) => (el.scrollTop = el.scrollHeight));
    await tree.getByRole("link", { name: "Big 999", exact: true }).waitFor();
    await tree.getByRole("button", { name: "Expand Section 7" }).click();
    await tree.getByRole("link", { name: "Section 7 page 49", exact: true }).click();
    await page.getByRole("textbox", { name: "Page content" }).getByText("Text of Section 7 page 49.").waitFor();

    expect(ms).toBeLessThan(500);
    expect(nodes).toBeLessThan(3_000);
    expectNoConsoleErrors(tab);
    await tab.context.close();
  }, 120_000);
});
