/**
 * Page history in Chromium (docs/decisions/page-history.md §9): versions made by saves through the
 * API, the History panel and its diff views, a restore (the file's bytes and exactly one new
 * commit), a stale restore (409, nothing lost), the Trash and the Changes screen.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import type { Browser, Locator } from "playwright-core";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { registerUser, type TestUser } from "../helpers/factories.ts";
import { git } from "../helpers/git-remote.ts";
import { expectNoConsoleErrors, hasChromium, launch, newTab, screenshot, signInInUi } from "./browser.ts";

describe.skipIf(!hasChromium)("page history in a real browser", () => {
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

  const content = (path: string) => `/api/v1/content/${user.workspaceSlug}/${path}`;
  const repo = () => join(server.dataDir, "workspaces", user.workspaceId);
  const settled = async () => {
    await server.services.gitSync.idle();
    await server.services.versionIndex.idle(user.workspaceId);
  };
  const texts = async (blocks: Locator) => (await blocks.allTextContents()).map((t) => t.trim());
  const commits = async () => Number((await git(["rev-list", "--count", "HEAD"], { cwd: repo() })).trim());
  const save = async (path: string, body: string) => {
    const page = (await user.client.get(content(path))).body;
    const res = await user.client.put(content(path), { body, lastKnownHash: page.content_hash });
    expect(res.status).toBe(200);
    await settled();
    return res.body;
  };

  test("the History panel lists versions, shows diffs three ways, and restores a version as one commit", async () => {
    expect((await user.client.post(content("story.md"), { title: "Story", body: "# Story\n\nThe first draft of the story.\n\nA closing line.\n" })).status).toBe(201);
    await settled();
    await save("story.md", "# Story\n\nThe second draft of the story.\n\nA closing line.\n");
    await save("story.md", "# Story\n\nThe third draft, rewritten.\n\nA closing line.\n\nA new ending.\n");

    const tab = await newTab(browser);
    const { page } = tab;
    await page.goto(`${server.url}/w/${user.workspaceSlug}/p/story.md`);
    await signInInUi(page, user);
    await page.locator("#page-title").filter({ hasText: "Story" }).waitFor();
    await page.getByRole("button", { name: "History" }).click();
    const panel = page.getByRole("complementary", { name: "Page history" });
    const versions = panel.getByRole("list", { name: "Versions" }).getByRole("listitem");
    await versions.nth(2).waitFor();
    expect(await versions.count()).toBe(3);
    expect(await versions.first().textContent()).toContain("Current");
    // Saves with a session are the web channel; the line counts are the API's.
    expect(await versions.first().textContent()).toContain("Web");
    expect(await versions.first().textContent()).toContain("3 lines added, 1 removed");
    await screenshot(page, "history-01-panel");

    // Who wrote each line: the rewritten lines name the newest version, the untouched closing line the first.
    await panel.getByRole("button", { name: "Who wrote each line" }).click();
    const blame = page.getByRole("dialog", { name: "Who wrote each line of story.md" });
    const blameTable = blame.getByRole("table", { name: "Lines and the versions that wrote them" });
    await blameTable.waitFor();
    const rows = blameTable.getByRole("row");
    const versionOf = async (text: string) => {
      const all = await rows.all();
      let owner = "";
      for (const row of all.slice(1)) {
        const who = (await row.getByRole("cell").first().textContent()) ?? "";
        if (who.trim() !== "") owner = who;
        if ((await row.getByRole("cell").nth(2).textContent()) === text) return owner;
      }
      return null;
    };
    const ids = (await (await user.client.get(`/api/v1/workspaces/${user.workspaceId}/history?path=story.md`)).body.items).map((v: any) => v.commit.slice(0, 8));
    expect(await versionOf("The third draft, rewritten.")).toContain(ids[0]);
    expect(await versionOf("A new ending.")).toContain(ids[0]);
    expect(await versionOf("A closing line.")).toContain(ids[2]);
    await screenshot(page, "history-01b-blame");
    await blame.getByRole("button", { name: "Close" }).click();
    await blame.waitFor({ state: "hidden" });

    // The newest version's own changes: rendered first, then the source views with word highlights.
    await versions.first().getByRole("button", { name: "Show changes" }).click();
    const dialog = page.getByRole("dialog");
    const diff = dialog.getByRole("region");
    await diff.getByRole("group", { name: "Added" }).first().waitFor();
    expect(await texts(diff.getByRole("group", { name: "Added" }))).toEqual(["The third draft, rewritten.", "A new ending."]);
    expect(await texts(diff.getByRole("group", { name: "Removed" }))).toEqual(["The second draft of the story."]);
    await screenshot(page, "history-02-rendered-diff");
    await dialog.getByRole("button", { name: "Unified" }).click();
    const unified = dialog.getByRole("table", { name: "Unified diff" });
    await unified.waitFor();
    expect(await unified.locator("ins").allTextContents()).toContain("third");
    expect(await unified.locator("del").allTextContents()).toContain("second");
    await dialog.getByRole("button", { name: "Side by side" }).click();
    const split = dialog.getByRole("table", { name: "Side-by-side diff" });
    await split.waitFor();
    const changedRow = split.getByRole("row").filter({ hasText: "second draft" });
    expect(await changedRow.getByRole("cell").count()).toBe(2);
    expect(await changedRow.getByRole("cell").nth(1).textContent()).toContain("third draft");
    await screenshot(page, "history-03-side-by-side");
    // Keyboard: Escape closes the dialog.
    await page.keyboard.press("Escape");
    await dialog.waitFor({ state: "hidden" });

    // Compare the oldest version with the current page.
    await versions.nth(2).getByRole("button", { name: "Compare with current" }).click();
    await dialog.getByRole("group", { name: "Removed" }).first().waitFor();
    expect(await texts(dialog.getByRole("group", { name: "Removed" }))).toEqual(["The first draft of the story."]);
    await dialog.getByRole("button", { name: "Close" }).click();

    // Restore the first draft: the confirmation shows what will change (the current text goes, the first draft comes back).
    const before = await commits();
    await versions.nth(2).getByRole("button", { name: "Restore this version" }).click();
    const confirm = page.getByRole("dialog", { name: "Restore this version?" });
    await confirm.getByRole("group", { name: "Added" }).first().waitFor();
    expect(await texts(confirm.getByRole("group", { name: "Added" }))).toEqual(["The first draft of the story."]);
    expect(await texts(confirm.getByRole("group", { name: "Removed" }))).toEqual(["The third draft, rewritten.", "A new ending."]);
    await screenshot(page, "history-04-restore-confirm");
    await confirm.getByRole("button", { name: "Restore", exact: true }).click();
    await panel.getByText("Restored the version of").waitFor();
    await page.getByRole("textbox", { name: "Page content" }).getByText("The first draft of the story.").waitFor();
    await settled();
    const restored = (await user.client.get(content("story.md"))).body;
    expect(restored.content).toBe("# Story\n\nThe first draft of the story.\n\nA closing line.\n");
    expect(await commits()).toBe(before + 1);
    expect(await git(["log", "-1", "--format=%s"], { cwd: repo() })).toContain("Restore story.md to version");
    await panel.getByRole("button", { name: "Refresh" }).click();
    await versions.nth(3).waitFor();
    expect(await versions.first().textContent()).toContain("Restore");
    expect(await page.locator(".save-status").getAttribute("data-status")).toBe("saved");

    // Someone saves while the confirmation is open: what it shows is out of date, so the restore is
    // refused (409), nothing is restored, and the page is read again.
    await versions.last().getByRole("button", { name: "Restore this version" }).click();
    await confirm.getByRole("group").first().waitFor();
    await save("story.md", "# Story\n\nSaved elsewhere meanwhile.\n");
    const beforeStale = await commits();
    await confirm.getByRole("button", { name: "Restore", exact: true }).click();
    await panel.getByRole("alert").filter({ hasText: "Someone saved this page after you opened it" }).waitFor();
    await page.getByRole("textbox", { name: "Page content" }).getByText("Saved elsewhere meanwhile.").waitFor();
    expect((await user.client.get(content("story.md"))).body.content).toBe("# Story\n\nSaved elsewhere meanwhile.\n");
    await settled();
    expect(await commits()).toBe(beforeStale);
    await screenshot(page, "history-05-stale-restore");
    expectNoConsoleErrors(tab, [409]);
    await tab.context.close();
  }, 90_000);

  test("the Trash brings a deleted page back (at a new path when its own is taken); Changes lists what changed", async () => {
    expect((await user.client.post(content("notes.md"), { title: "Notes", body: "Old notes.\n" })).status).toBe(201);
    await settled();
    expect((await user.client.delete(content("notes.md"))).status).toBe(204);
    // Another page takes the path meanwhile.
    expect((await user.client.post(content("notes.md"), { title: "New notes", body: "Other notes.\n" })).status).toBe(201);
    await settled();

    const tab = await newTab(browser, { width: 390, height: 844 });
    const { page } = tab;
    await page.goto(`${server.url}/w/${user.workspaceSlug}/trash`);
    await signInInUi(page, user);
    const list = page.getByRole("list", { name: "Deleted pages" });
    await list.waitFor();
    const entry = list.getByRole("listitem").filter({ hasText: "Notes" });
    await screenshot(page, "history-06-trash-phone");
    await entry.getByRole("button", { name: "Restore Notes" }).click();
    const done = page.getByRole("status").filter({ hasText: "Restored" });
    await done.waitFor();
    const link = done.getByRole("link");
    const newPath = (await link.textContent())!;
    expect(newPath).not.toBe("notes.md");
    expect(await done.textContent()).toContain("notes.md is taken");
    expect((await user.client.get(content(newPath))).body.content).toBe("Old notes.\n");
    expect((await user.client.get(content("notes.md"))).body.content).toBe("Other notes.\n");
    await link.click();
    await page.getByRole("heading", { name: "Notes", exact: true }).waitFor();

    // At phone width the panel is operated from the keyboard: the History button, a version's changes, Escape.
    await page.goto(`${server.url}/w/${user.workspaceSlug}/p/story.md`);
    await page.locator("#page-title").filter({ hasText: "Story" }).waitFor();
    await page.getByRole("button", { name: "History" }).focus();
    await page.keyboard.press("Enter");
    const phoneVersions = page.getByRole("complementary", { name: "Page history" }).getByRole("list", { name: "Versions" }).getByRole("listitem");
    await phoneVersions.nth(1).waitFor();
    await screenshot(page, "history-07-panel-phone");
    await phoneVersions.first().getByRole("button", { name: "Show changes" }).focus();
    await page.keyboard.press("Enter");
    await page.getByRole("dialog").getByRole("region").waitFor();
    await page.keyboard.press("Escape");
    await page.getByRole("dialog").waitFor({ state: "hidden" });

    // Changes since yesterday, in dark mode: the story's edits and the restore are listed.
    await page.emulateMedia({ colorScheme: "dark" });
    await page.goto(`${server.url}/w/${user.workspaceSlug}/changes`);
    const changes = page.getByRole("list", { name: "Changes" });
    await changes.waitFor();
    await changes.getByRole("listitem").filter({ hasText: "story.md" }).first().waitFor();
    expect(await changes.getByRole("listitem").filter({ hasText: "edited" }).count()).toBeGreaterThan(0);
    // The newest change to the story is the save made while the restore was being confirmed: its own diff.
    await changes.getByRole("button", { name: /^Show changes to story\.md in/ }).first().click();
    const own = page.getByRole("dialog").getByRole("region");
    await own.getByRole("group", { name: "Added" }).first().waitFor();
    expect(await texts(own.getByRole("group", { name: "Added" }))).toEqual(["Saved elsewhere meanwhile."]);
    await screenshot(page, "history-08-changes-dark");
    await page.keyboard.press("Escape");
    expectNoConsoleErrors(tab);
    await tab.context.close();
  }, 60_000);
});
