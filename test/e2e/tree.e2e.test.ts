import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { registerUser, type TestUser } from "../helpers/factories.ts";
import { hasChromium, launch, newTab, screenshot, signInInUi, expectNoConsoleErrors } from "./browser.ts";

describe.skipIf(!hasChromium)("page tree management in a real browser", () => {
  let server: TestServer;
  let browser: Browser;
  let user: TestUser;
  beforeAll(async () => {
    [server, browser] = await Promise.all([startTestServer(), launch()]);
    user = await registerUser(server.url);
    for (const [path, title] of [
      ["handbook/index.md", "Handbook"],
      ["handbook/alpha.md", "Alpha"],
      ["handbook/beta.md", "Beta"],
      ["handbook/gamma.md", "Gamma"],
      ["archive/index.md", "Archive"],
      ["loose.md", "Loose"],
    ]) {
      const res = await user.client.post(`/api/v1/content/${user.workspaceSlug}/${path}`, { title: title!, body: `# ${title}\n` });
      expect(res.status).toBe(201);
    }
  }, 30_000);
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  const onDisk = (path: string) => existsSync(join(server.dataDir, "workspaces", user.workspaceId, path));
  const apiTitles = async (folder: string): Promise<string[]> => {
    const tree = (await user.client.get(`/api/v1/content/${user.workspaceSlug}/tree`)).body.items as Array<{ path: string; title: string; children?: unknown[] }>;
    const level = folder === "" ? tree : ((tree.find((n) => n.path === folder)?.children ?? []) as typeof tree);
    return level.map((n) => n.title);
  };
  const uiTitles = async (page: Page, folder: string) =>
    page.locator(`[data-path="${folder}"] + ul[role=group] > li > .tree-row`).evaluateAll((rows) => rows.map((r) => r.querySelector("a, .tree-folder")?.textContent ?? ""));

  test("drag to reorder persists after reload; drag onto a folder moves the page; keyboard move up/down", async () => {
    const tab = await newTab(browser);
    const { page } = tab;
    await page.goto(`${server.url}/w/${user.workspaceSlug}`);
    await signInInUi(page, user);
    const tree = page.getByRole("tree", { name: "Pages" });
    await tree.getByRole("link", { name: "Gamma" }).waitFor();
    expect(await uiTitles(page, "handbook")).toEqual(["Alpha", "Beta", "Gamma"]);

    // Gamma dragged onto the top half of Alpha lands before it.
    const row = (path: string) => page.locator(`.tree-row[data-path="${path}"]`);
    await row("handbook/gamma.md").dragTo(row("handbook/alpha.md"), { targetPosition: { x: 40, y: 3 } });
    await page.waitForFunction(() => !document.querySelector(".tree-busy"));
    expect(await apiTitles("handbook")).toEqual(["Gamma", "Alpha", "Beta"]);
    await page.reload();
    await tree.getByRole("link", { name: "Gamma" }).waitFor();
    expect(await uiTitles(page, "handbook")).toEqual(["Gamma", "Alpha", "Beta"]);
    await screenshot(page, "10-tree");

    // Loose dropped onto the middle of the Archive folder moves into it (the file moves on disk).
    const box = await row("archive").boundingBox();
    await row("loose.md").dragTo(row("archive"), { targetPosition: { x: 40, y: box!.height / 2 } });
    await tree.locator('[data-path="archive/loose.md"]').waitFor();
    expect(onDisk("archive/loose.md")).toBe(true);
    expect(onDisk("loose.md")).toBe(false);

    // Keyboard: the row's actions menu moves Beta up.
    await page.getByRole("button", { name: "Actions for Beta" }).focus();
    await page.keyboard.press("Enter");
    await page.getByRole("menu", { name: "Actions for Beta" }).waitFor();
    await page.keyboard.press("ArrowDown");
    await expect(page.evaluate(() => document.activeElement?.textContent)).resolves.toBe("Move up");
    await page.keyboard.press("Enter");
    await page.waitForFunction(() => !document.querySelector(".tree-busy"));
    expect(await apiTitles("handbook")).toEqual(["Gamma", "Beta", "Alpha"]);
    await tree.getByRole("link", { name: "Beta" }).waitFor();
    expect(await uiTitles(page, "handbook")).toEqual(["Gamma", "Beta", "Alpha"]);
    expectNoConsoleErrors(tab);
    await tab.context.close();
  }, 60_000);

  test("new page under a folder, rename and move the open page, delete with confirmation", async () => {
    const tab = await newTab(browser);
    const { page } = tab;
    await page.goto(`${server.url}/w/${user.workspaceSlug}`);
    await signInInUi(page, user);
    const tree = page.getByRole("tree", { name: "Pages" });
    await tree.getByRole("button", { name: "New page in Handbook" }).click();
    await page.getByLabel("Title").fill("Delta");
    expect(await page.getByLabel("File path").inputValue()).toBe("handbook/delta.md");
    await page.getByRole("button", { name: "Create page" }).click();
    await page.getByRole("heading", { name: "Delta" }).waitFor();
    expect(onDisk("handbook/delta.md")).toBe(true);

    // Rename and move the open page: the editor follows it to its new address.
    await page.getByRole("button", { name: "Actions for Delta" }).click();
    await page.getByRole("menuitem", { name: "Rename or move…" }).click();
    const dialog = page.getByRole("dialog", { name: "Rename or move page" });
    await dialog.getByLabel("Title").fill("Delta renamed");
    await dialog.getByLabel("File path").fill("archive/delta.md");
    await screenshot(page, "11-rename-dialog");
    await dialog.getByRole("button", { name: "Save" }).click();
    await page.waitForURL(/\/p\/archive\/delta\.md$/);
    await page.getByRole("heading", { name: "Delta renamed" }).waitFor();
    await tree.getByRole("link", { name: "Delta renamed" }).waitFor();
    expect(onDisk("archive/delta.md")).toBe(true);
    expect(onDisk("handbook/delta.md")).toBe(false);

    // Delete asks first; Cancel keeps the page.
    await page.getByRole("button", { name: "Actions for Delta renamed" }).click();
    await page.getByRole("menuitem", { name: "Delete…" }).click();
    const confirm = page.getByRole("dialog", { name: "Delete page?" });
    await confirm.getByRole("button", { name: "Cancel" }).click();
    expect(onDisk("archive/delta.md")).toBe(true);
    await page.getByRole("button", { name: "Actions for Delta renamed" }).click();
    await page.getByRole("menuitem", { name: "Delete…" }).click();
    await confirm.getByRole("button", { name: "Delete page" }).click();
    await page.waitForURL(new RegExp(`/w/${user.workspaceSlug}$`));
    await tree.getByRole("link", { name: "Delta renamed" }).waitFor({ state: "detached" });
    expect(onDisk("archive/delta.md")).toBe(false);
    expect((await user.client.get(`/api/v1/content/${user.workspaceSlug}/archive/delta.md`)).status).toBe(404);
    expectNoConsoleErrors(tab);
    await tab.context.close();
  }, 60_000);

  test("Move to… by keyboard: a page into a folder, then a folder without an index page with all its pages", async () => {
    for (const [path, title] of [["notes/one.md", "One"], ["notes/two.md", "Two"], ["notes/deep/three.md", "Three"], ["stray.md", "Stray"]]) {
      expect((await user.client.post(`/api/v1/content/${user.workspaceSlug}/${path}`, { title: title!, body: "text\n" })).status).toBe(201);
    }
    const idOf = async (path: string) => (await user.client.get(`/api/v1/content/${user.workspaceSlug}/${path}`)).body.page_id as string;
    const ids = { one: await idOf("notes/one.md"), three: await idOf("notes/deep/three.md") };
    const tab = await newTab(browser);
    const { page } = tab;
    await page.goto(`${server.url}/w/${user.workspaceSlug}`);
    await signInInUi(page, user);
    const tree = page.getByRole("tree", { name: "Pages" });
    await tree.getByRole("link", { name: "Stray" }).waitFor();

    /** Opens a row's actions menu and picks "Move to…" with the keyboard only. */
    const openMoveTo = async (label: string) => {
      await page.getByRole("button", { name: `Actions for ${label}`, exact: true }).focus();
      await page.keyboard.press("Enter");
      await page.getByRole("menu", { name: `Actions for ${label}`, exact: true }).waitFor();
      for (let i = 0; i < 6 && (await page.evaluate(() => document.activeElement?.textContent)) !== "Move to…"; i++) await page.keyboard.press("ArrowDown");
      expect(await page.evaluate(() => document.activeElement?.textContent)).toBe("Move to…");
      await page.keyboard.press("Enter");
      const dialog = page.getByRole("dialog", { name: `Move ${label}` });
      await dialog.waitFor();
      return dialog;
    };
    /** The dialog opens on the folder radios; arrows choose `folder`; Enter submits the form. */
    const chooseAndMove = async (dialog: ReturnType<Page["getByRole"]>, folder: string) => {
      const radios = await dialog.getByRole("radio").evaluateAll((els) => els.map((e) => (e as HTMLInputElement).value));
      expect(radios).toContain(folder);
      expect(await page.evaluate(() => (document.activeElement as HTMLInputElement | null)?.type)).toBe("radio");
      // The first arrow press from an unchecked group checks the next radio; walk until the target is checked.
      for (let i = 0; i < radios.length + 1; i++) {
        if ((await page.evaluate(() => (document.activeElement as HTMLInputElement).value)) === folder && (await dialog.getByRole("radio", { checked: true }).count()) === 1) break;
        await page.keyboard.press("ArrowDown");
      }
      expect(await dialog.getByRole("radio", { checked: true }).inputValue()).toBe(folder);
      await page.keyboard.press("Enter");
    };

    // A page: Stray into handbook; its folder is not offered as a target for itself.
    let dialog = await openMoveTo("Stray");
    expect(await dialog.getByRole("radio", { name: "Top level" }).count()).toBe(0);
    expect(await dialog.getByRole("radio", { name: "Handbook handbook/" }).count()).toBe(1);
    await chooseAndMove(dialog, "handbook");
    await dialog.waitFor({ state: "hidden" });
    await tree.locator('[data-path="handbook/stray.md"]').waitFor();
    expect(onDisk("handbook/stray.md")).toBe(true);
    expect(onDisk("stray.md")).toBe(false);

    // A bare folder (no index.md): every page below it moves, ids kept; it cannot go into itself.
    dialog = await openMoveTo("Notes");
    const offered = await dialog.getByRole("radio").evaluateAll((els) => els.map((e) => (e as HTMLInputElement).value));
    expect(offered).toContain("archive");
    expect(offered.filter((f) => f === "notes" || f.startsWith("notes/"))).toEqual([]);
    await chooseAndMove(dialog, "archive");
    await dialog.waitFor({ state: "hidden" });
    await tree.locator('[data-path="archive/notes/deep/three.md"]').waitFor();
    for (const p of ["archive/notes/one.md", "archive/notes/two.md", "archive/notes/deep/three.md"]) expect(onDisk(p)).toBe(true);
    for (const p of ["notes/one.md", "notes/two.md", "notes/deep/three.md"]) expect(onDisk(p)).toBe(false);
    expect(await idOf("archive/notes/one.md")).toBe(ids.one);
    expect(await idOf("archive/notes/deep/three.md")).toBe(ids.three);
    expect(await tree.locator('[data-path="notes"]').count()).toBe(0);
    await screenshot(page, "30-tree-after-move-to");
    expectNoConsoleErrors(tab);
    await tab.context.close();
  }, 60_000);
});
