import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Browser } from "playwright-core";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { registerUser, type TestUser } from "../helpers/factories.ts";
import { clickIntoText, hasChromium, launch, newTab, screenshot, signInInUi, expectNoConsoleErrors } from "./browser.ts";

const TRICKY = readFileSync(join(import.meta.dir, "../web/fixtures/tricky.md"), "utf8");

describe.skipIf(!hasChromium)("the editor in a real browser", () => {
  let server: TestServer;
  let browser: Browser;
  let user: TestUser;
  beforeAll(async () => {
    [server, browser] = await Promise.all([startTestServer(), launch()]);
    user = await registerUser(server.url);
  }, 30_000);
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  const pageUrl = (path: string) => `${server.url}/w/${user.workspaceSlug}/p/${path}`;
  const fileOnDisk = (path: string) => readFileSync(join(server.dataDir, "workspaces", user.workspaceId, path), "utf8");

  test("a page full of tricky Markdown: editing one paragraph in rich mode changes only that paragraph's line", async () => {
    const created = await user.client.post(`/api/v1/content/${user.workspaceSlug}/tricky.md`, { title: "Tricky", body: TRICKY });
    expect(created.status).toBe(201);
    const before = fileOnDisk("tricky.md");
    expect(before.endsWith(TRICKY)).toBe(true);

    const tab = await newTab(browser);
    const { page } = tab;
    await page.goto(pageUrl("tricky.md"));
    await signInInUi(page, user);
    const editor = page.getByRole("textbox", { name: "Page content" });
    await editor.waitFor();
    // HTML is shown as an editable source block; the callout and the tabs are blocks, the table a grid.
    expect(await page.locator("[data-raw-kind=directive]").count()).toBe(0);
    expect(await page.locator("[data-raw-kind=html]").count()).toBeGreaterThan(0);
    expect(await editor.locator(".callout-block").count()).toBe(1);
    expect(await editor.locator(".tabs-block").count()).toBe(1);
    expect(await page.locator("[data-raw-kind=table]").count()).toBe(0);
    expect(await editor.locator("table").count()).toBe(1);
    // Opening a page changes nothing: no false "Unsaved changes".
    await page.waitForTimeout(400);
    expect(await page.locator(".save-status").getAttribute("data-status")).toBe("saved");
    await screenshot(page, "06-tricky-rich");

    await clickIntoText(editor.getByText("Last paragraph without trailing newline"));
    await page.keyboard.press("End");
    await page.keyboard.type(" (edited in the browser)");
    await page.locator('[data-status="unsaved"]').waitFor();
    await page.keyboard.press("Control+s");
    await page.locator('[data-status="saved"]').waitFor({ timeout: 10_000 });

    const after = fileOnDisk("tricky.md");
    const expected = before.replace("Last paragraph without trailing newline", "Last paragraph without trailing newline (edited in the browser)");
    expect(after).toBe(expected);
    const beforeLines = before.split("\n");
    const changed = after.split("\n").filter((l, i) => l !== beforeLines[i]);
    expect(changed).toEqual(["Last paragraph without trailing newline (edited in the browser)"]);

    // Toggling to the source and back neither loses nor changes anything.
    await page.getByRole("button", { name: "Switch to Markdown source" }).click();
    await page.locator(".cm-line").first().waitFor();
    await page.getByRole("button", { name: "Switch to rich editor" }).click();
    await editor.waitFor();
    await page.keyboard.press("Control+s");
    await page.locator('[data-status="saved"]').waitFor();
    expect(fileOnDisk("tricky.md")).toBe(expected);
    expectNoConsoleErrors(tab);
    await tab.context.close();
  }, 60_000);

  test("a conflicting save shows the banner with the server's change; keep mine wins without losing text", async () => {
    const created = await user.client.post(`/api/v1/content/${user.workspaceSlug}/shared.md`, { title: "Shared", body: "Line one.\n" });
    expect(created.status).toBe(201);
    const a = await newTab(browser);
    await a.page.goto(pageUrl("shared.md"));
    await signInInUi(a.page, user);
    const editorA = a.page.getByRole("textbox", { name: "Page content" });
    await editorA.waitFor();

    // The person types; someone else saves before the autosave. (A page with nothing unsaved
    // would simply follow the other save over the live stream: see live.e2e.test.ts.)
    await clickIntoText(editorA.getByText("Line one."));
    await a.page.keyboard.press("End");
    await a.page.keyboard.type(" Mine too.");
    const hash = created.body.content_hash;
    const theirs = await user.client.put(`/api/v1/content/${user.workspaceSlug}/shared.md`, { body: "Line one.\n\nTheir line.\n", lastKnownHash: hash });
    expect(theirs.status).toBe(200);
    await a.page.keyboard.press("Control+s");
    const banner = a.page.getByRole("alert", { name: "Edit conflict" });
    await banner.waitFor({ timeout: 10_000 });
    // The diff is the other person's change alone (from the text both started from to the
    // server's): the person's own edit is not listed as a removal.
    expect((await banner.locator(".diff-add").allTextContents()).map((l) => l.trim()).filter((l) => l !== "+")).toEqual(["+ Their line."]);
    expect(await banner.locator(".diff-del").count()).toBe(0);
    expect(await banner.locator(".diff").textContent()).not.toContain("Mine too.");
    await screenshot(a.page, "07-conflict");
    await banner.getByRole("button", { name: "Keep mine" }).click();
    await a.page.locator('[data-status="saved"]').waitFor({ timeout: 10_000 });
    const now = await user.client.get(`/api/v1/content/${user.workspaceSlug}/shared.md`);
    expect(now.body.content).toBe("Line one. Mine too.\n");
    // The only console errors are the browser reporting the 409 itself.
    expectNoConsoleErrors(a, [409]);
    await a.context.close();
  }, 60_000);

  test("take theirs loads the server's text and keeps the person's own text on screen, typed after the banner too", async () => {
    const created = await user.client.post(`/api/v1/content/${user.workspaceSlug}/theirs.md`, { title: "Theirs", body: "Base text.\n" });
    const tab = await newTab(browser);
    await tab.page.goto(pageUrl("theirs.md"));
    await signInInUi(tab.page, user);
    const editor = tab.page.getByRole("textbox", { name: "Page content" });
    await editor.waitFor();
    await clickIntoText(editor.getByText("Base text."));
    await tab.page.keyboard.press("End");
    await tab.page.keyboard.type(" My addition.");
    await user.client.put(`/api/v1/content/${user.workspaceSlug}/theirs.md`, { body: "Server text.\n", lastKnownHash: created.body.content_hash });
    await tab.page.keyboard.press("Control+s");
    const banner = tab.page.getByRole("alert", { name: "Edit conflict" });
    await banner.waitFor({ timeout: 10_000 });
    // The server's change replaced the line: one removal, one addition, none of the person's text.
    expect((await banner.locator(".diff-del").allTextContents()).map((l) => l.trim())).toEqual(["- Base text."]);
    expect((await banner.locator(".diff-add").allTextContents()).map((l) => l.trim())).toEqual(["+ Server text."]);
    // The editor stays editable under the banner; what is typed now belongs to the person's version.
    await tab.page.keyboard.type(" AFTER409.");
    await editor.getByText("Base text. My addition. AFTER409.").waitFor();
    await banner.getByRole("button", { name: "Take theirs" }).click();
    await editor.getByText("Server text.").waitFor();
    expect(await tab.page.getByLabel("Your version of the page, not saved").inputValue()).toBe("Base text. My addition. AFTER409.\n");
    expect((await user.client.get(`/api/v1/content/${user.workspaceSlug}/theirs.md`)).body.content).toBe("Server text.\n");
    expectNoConsoleErrors(tab, [409]);
    await tab.context.close();
  }, 60_000);

  test("a page whose frontmatter is broken on disk still opens, says what is wrong, and keeps its text", async () => {
    const writer = await registerUser(server.url, { name: "Broken Yaml" });
    const dir = join(server.dataDir, "workspaces", writer.workspaceId);
    writeFileSync(join(dir, "broken.md"), "---\ntitle: [never closed\n---\n\nThe words stay.\n");
    await server.services.reconciler.reconcile(writer.workspaceId);
    const tab = await newTab(browser);
    await tab.page.goto(`${server.url}/w/${writer.workspaceSlug}/p/broken.md`);
    await signInInUi(tab.page, writer);
    await tab.page.getByRole("textbox", { name: "Page content" }).getByText("The words stay.").waitFor();
    const problem = tab.page.getByRole("status").filter({ hasText: "This page's file has a problem" });
    await problem.waitFor();
    expect(await problem.textContent()).toContain("invalid frontmatter");
    await screenshot(tab.page, "36-broken-frontmatter");
    expectNoConsoleErrors(tab);
    await tab.context.close();
  }, 60_000);

  test("two browsers edit one page: the later save meets the banner and merges by hand in the source editor", async () => {
    // Its own account, so its two sign-ins do not count against the other tests' login limit.
    const writer = await registerUser(server.url, { name: "Two Hands" });
    expect((await writer.client.post(`/api/v1/content/${writer.workspaceSlug}/both.md`, { title: "Both", body: "Alpha line.\n" })).status).toBe(201);
    const [a, b] = [await newTab(browser), await newTab(browser)];
    for (const t of [a, b]) {
      await t.page.goto(`${server.url}/w/${writer.workspaceSlug}/p/both.md`);
      await signInInUi(t.page, writer);
      await t.page.getByRole("textbox", { name: "Page content" }).getByText("Alpha line.").waitFor();
      await t.page.locator('[data-status="saved"]').waitFor();
      // Let the page's first requests finish, so a late answer cannot land under the typing.
      await t.page.waitForLoadState("networkidle");
    }
    // B adds a paragraph, then A types; neither is saved yet. Each has unsaved text before the
    // other's save can land, so a live update never swaps the document under a caret (an editor
    // with unsaved text keeps it and shows a notice). Then B saves at once.
    await clickIntoText(b.page.getByRole("textbox", { name: "Page content" }).getByText("Alpha line."));
    await b.page.keyboard.press("End");
    await b.page.keyboard.press("Enter");
    await b.page.keyboard.type("B line.");
    await b.page.locator('[data-status="unsaved"]').waitFor();
    expect(await b.page.locator(".tiptap > p").allTextContents()).toEqual(["Alpha line.", "B line."]);
    await clickIntoText(a.page.getByRole("textbox", { name: "Page content" }).getByText("Alpha line."));
    await a.page.keyboard.press("End");
    await a.page.keyboard.type(" A was here.");
    await a.page.locator('[data-status="unsaved"]').waitFor();
    expect(await a.page.locator(".tiptap > p").allTextContents()).toEqual(["Alpha line. A was here."]);
    await b.page.keyboard.press("Control+s");
    await b.page.locator('[data-status="saved"]').waitFor({ timeout: 10_000 });
    expect((await writer.client.get(`/api/v1/content/${writer.workspaceSlug}/both.md`)).body.content).toBe("Alpha line.\n\nB line.\n");

    // A's save meets B's: the banner shows B's line; merging opens A's own text in the source editor.
    await a.page.keyboard.press("Control+s");
    const banner = a.page.getByRole("alert", { name: "Edit conflict" });
    await banner.waitFor({ timeout: 10_000 });
    expect((await banner.locator(".diff-add").allTextContents()).map((l) => l.trim()).filter((l) => l !== "+")).toEqual(["+ B line."]);
    expect(await banner.locator(".diff-del").count()).toBe(0);
    // A keeps typing while the banner shows; merging by hand opens everything on screen.
    await a.page.keyboard.type(" AFTER409.");
    await a.page.getByRole("textbox", { name: "Page content" }).getByText("Alpha line. A was here. AFTER409.").waitFor();
    await banner.getByRole("button", { name: "Merge by hand" }).click();
    const source = a.page.getByRole("textbox", { name: "Markdown source" });
    await source.waitFor();
    expect((await a.page.locator(".cm-line").allTextContents()).join("\n")).toContain("Alpha line. A was here. AFTER409.");
    await source.click();
    await a.page.keyboard.press("ControlOrMeta+End");
    await a.page.keyboard.type("\nB line.");
    await screenshot(a.page, "35-merge-by-hand");
    await banner.getByRole("button", { name: "Save merged text" }).click();
    await a.page.locator('[data-status="saved"]').waitFor({ timeout: 10_000 });
    await banner.waitFor({ state: "detached" });
    const merged = (await writer.client.get(`/api/v1/content/${writer.workspaceSlug}/both.md`)).body.content as string;
    // Exactly the text typed into the source editor: A's line (with what came after the banner), the blank line, B's line.
    expect(merged).toBe("Alpha line. A was here. AFTER409.\n\nB line.");
    expect(readFileSync(join(server.dataDir, "workspaces", writer.workspaceId, "both.md"), "utf8").endsWith(merged)).toBe(true);
    expectNoConsoleErrors(a, [409]);
    expectNoConsoleErrors(b);
    await a.context.close();
    await b.context.close();
  }, 60_000);

  test("an ended session lands on the login screen and comes back to the page after signing in", async () => {
    const tab = await newTab(browser);
    const { page } = tab;
    await page.goto(pageUrl("shared.md"));
    await page.waitForURL(/\/login\?next=/);
    await signInInUi(page, user);
    await page.getByRole("heading", { name: "Shared" }).waitFor();
    expect(new URL(page.url()).pathname).toBe(`/w/${user.workspaceSlug}/p/shared.md`);

    // Signing out everywhere from another device ends this session too.
    const other = await user.client.post("/api/auth/login", { email: user.email, password: user.password });
    expect((await user.client.post("/api/auth/logout", undefined, { token: other.body.access_token })).status).toBe(204);
    await page.reload();
    await page.getByRole("heading", { name: "Sign in" }).waitFor();
    const url = new URL(page.url());
    expect(url.pathname).toBe("/login");
    expect(url.searchParams.get("next")).toBe(`/w/${user.workspaceSlug}/p/shared.md`);
    await screenshot(page, "08-session-ended");
    await signInInUi(page, user);
    await page.getByRole("heading", { name: "Shared" }).waitFor();
    expect(new URL(page.url()).pathname).toBe(`/w/${user.workspaceSlug}/p/shared.md`);

    // Without a reload: the session ends while the page is open; the next request's failed renewal
    // lands on the login screen, and signing in comes back to the page that was open.
    const third = await user.client.post("/api/auth/login", { email: user.email, password: user.password });
    expect((await user.client.post("/api/auth/logout", undefined, { token: third.body.access_token })).status).toBe(204);
    await page.getByRole("link", { name: "Activity" }).first().click();
    await page.getByRole("heading", { name: "Sign in" }).waitFor();
    const next = new URL(page.url()).searchParams.get("next");
    expect(next).toMatch(new RegExp(`^/w/${user.workspaceSlug}/`));
    await signInInUi(page, user);
    await page.waitForURL((u) => u.pathname + u.search === next);
    // The failed renewal shows up as one 401 in the console; nothing else.
    expectNoConsoleErrors(tab, [401]);
    await tab.context.close();
  }, 60_000);

  test("a login with the wrong password shows the API's message; a phone-width screen gets the drawer", async () => {
    const tab = await newTab(browser, { width: 390, height: 800 });
    const { page } = tab;
    await page.goto(server.url + "/login");
    await signInInUi(page, { email: user.email, password: "wrong password!" });
    await page.getByRole("alert").filter({ hasText: "Invalid email or password" }).waitFor();
    await signInInUi(page, user);
    await page.getByRole("button", { name: "Show pages" }).click();
    await page.getByRole("tree", { name: "Pages" }).getByRole("link", { name: "Shared" }).click();
    await page.getByRole("heading", { name: "Shared" }).waitFor();
    await screenshot(page, "09-phone");
    // The rejected password is the browser's one 401 line; nothing else.
    expectNoConsoleErrors(tab, [401]);
    await tab.context.close();
  }, 60_000);
});

describe.skipIf(!hasChromium)("invite-only instance", () => {
  test("the sign-in screen offers no registration and /register says sign-up is closed", async () => {
    const [server, browser] = await Promise.all([startTestServer({ QUIRE_DISABLE_SIGNUP: "true" }), launch()]);
    try {
      const tab = await newTab(browser);
      await tab.page.goto(server.url + "/login");
      await tab.page.getByText("This instance is invite-only").waitFor();
      expect(await tab.page.getByRole("link", { name: "Create an account" }).count()).toBe(0);
      await tab.page.goto(server.url + "/register");
      await tab.page.getByRole("heading", { name: "Sign-up is closed" }).waitFor();
      expect(await tab.page.getByLabel("Password").count()).toBe(0);
      expectNoConsoleErrors(tab);
    } finally {
      await browser.close();
      await server.close();
    }
  }, 60_000);
});
