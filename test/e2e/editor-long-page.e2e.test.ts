import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { clickIntoText, EDITOR_BLOCKS, EDITOR_PARAGRAPHS, expectNoConsoleErrors, hasChromium, newTab, signInInUi } from "./browser.ts";
import { browserSuite } from "./suite.ts";

/** A long page: paragraphs, headings, padded tables, callouts and tabs (their bytes must survive untouched). */
function longPage(count: number): string {
  const blocks: string[] = [];
  for (let i = 0; blocks.length < count; i++) {
    const k = i % 25;
    if (k === 0) blocks.push(`## Section ${i / 25 + 1}`);
    else if (k === 5) blocks.push("| Name   | Size | Note         |\n| :----- | ---: | ------------ |\n| alpha  |    1 | first `code` |\n| beta   |   22 | **bold**     |");
    else if (k === 10) blocks.push(`:::callout[info]\nA callout with **bold** text, number ${i}.\n\n- one\n- two\n:::`);
    else if (k === 15) blocks.push(`:::tabs\n::tab[macOS]\nbrew install quire\n::\n::tab[Linux]\nRun *this* ${i}.\n::\n:::`);
    else if (k === 20) blocks.push(`Written the writer's way: __strong__,  two spaces and a hard\\\nbreak ${i}.`);
    else blocks.push(`[[guide/page-${i % 9}]] is paragraph ${i} with *emphasis* and \`code\`.`);
  }
  return blocks.join("\n\n") + "\n";
}

const BLOCKS = 3000;
const BODY = longPage(BLOCKS);

describe.skipIf(!hasChromium)("a long page opens a screenful first and loads the rest while the writer works", () => {
  const suite = browserSuite();

  const fileOnDisk = (path: string) => readFileSync(join(suite.server.dataDir, "workspaces", suite.user.workspaceId, path), "utf8");
  const blocksDrawn = (page: Page) => page.evaluate((blocks) => document.querySelectorAll(blocks).length, EDITOR_BLOCKS);

  /**
   * Opens the page with the browser's idle callbacks held back, so the later chunks (appended in
   * idle time) are still pending when the test acts, however fast or busy the machine is.
   * `releaseIdle` lets them run.
   */
  async function openWithLoadingHeld(path: string) {
    const tab = await newTab(suite.browser);
    await tab.context.addInitScript(() => {
      const real = window.requestIdleCallback.bind(window);
      const cancelReal = window.cancelIdleCallback.bind(window);
      const held = new Map<number, [IdleRequestCallback, IdleRequestOptions | undefined]>();
      let nextId = -1;
      const idle = { hold: true };
      Object.assign(window, {
        releaseIdle() {
          idle.hold = false;
          for (const [callback, options] of held.values()) real(callback, options);
          held.clear();
        },
      });
      window.requestIdleCallback = (callback, options) => {
        if (!idle.hold) return real(callback, options);
        held.set(nextId, [callback, options]);
        return nextId--;
      };
      window.cancelIdleCallback = (id) => (id < 0 ? void held.delete(id) : cancelReal(id));
    });
    await tab.page.goto(`${suite.server.url}/w/${suite.user.workspaceSlug}/p/${path}`);
    await signInInUi(tab.page, suite.user);
    await tab.page.getByRole("textbox", { name: "Page content" }).waitFor();
    await tab.page.reload();
    await tab.page.waitForFunction((blocks) => document.querySelectorAll(blocks).length >= 3, EDITOR_BLOCKS);
    return tab;
  }
  const releaseIdle = (page: Page) => page.evaluate(() => (window as unknown as { releaseIdle: () => void }).releaseIdle());

  test("a save made before every block is in writes the whole page, untouched blocks byte for byte", async () => {
    const created = await suite.user.client.post(`/api/v1/content/${suite.user.workspaceSlug}/long-save.md`, { title: "Long", body: BODY });
    expect(created.status).toBe(201);
    const before = fileOnDisk("long-save.md");
    const tab = await openWithLoadingHeld("long-save.md");
    const { page } = tab;
    await clickIntoText(page.locator(EDITOR_PARAGRAPHS).filter({ hasText: "paragraph 2 with" }));
    await page.keyboard.press("End");
    await page.keyboard.type(" typed early");
    // The page is still loading its later blocks when the save is asked for.
    expect(await blocksDrawn(page)).toBeLessThan(BLOCKS);
    await page.keyboard.press("Control+s");
    await page.locator('[data-status="saved"]').waitFor({ timeout: 30_000 });
    expect(fileOnDisk("long-save.md")).toBe(before.replace("paragraph 2 with *emphasis* and `code`.", "paragraph 2 with *emphasis* and `code`. typed early"));
    // The save appended the rest: the editor holds every block.
    expect(await blocksDrawn(page)).toBe(BLOCKS);
    await releaseIdle(page);
    expectNoConsoleErrors(tab);
    await tab.context.close();
  }, 90_000);

  test("keys typed while the page loads land where they were typed; undo takes back the typing, never a loaded chunk", async () => {
    const created = await suite.user.client.post(`/api/v1/content/${suite.user.workspaceSlug}/long-type.md`, { title: "Long", body: BODY });
    expect(created.status).toBe(201);
    const before = fileOnDisk("long-type.md");
    const tab = await openWithLoadingHeld("long-type.md");
    const { page } = tab;
    await clickIntoText(page.locator(EDITOR_PARAGRAPHS).filter({ hasText: "paragraph 3 with" }));
    await page.keyboard.press("End");
    const drawnAtFirstKey = await blocksDrawn(page);
    await page.keyboard.type(" and more");
    expect(drawnAtFirstKey).toBeLessThan(BLOCKS);
    await releaseIdle(page);
    // The rest arrives on its own, the typed words staying in their paragraph.
    await page.waitForFunction(([blocks, n]) => document.querySelectorAll(blocks as string).length === n, [EDITOR_BLOCKS, BLOCKS], { timeout: 30_000 });
    expect(await page.locator(EDITOR_PARAGRAPHS).filter({ hasText: "paragraph 3 with" }).innerText()).toEndWith("`code`. and more".replaceAll("`", ""));
    for (let i = 0; i < 12; i++) await page.keyboard.press("Control+z");
    expect(await blocksDrawn(page)).toBe(BLOCKS);
    expect(await page.locator(EDITOR_PARAGRAPHS).filter({ hasText: "paragraph 3 with" }).innerText()).not.toContain("and more");
    await page.keyboard.press("Control+s");
    await page.locator('[data-status="saved"]').waitFor({ timeout: 30_000 });
    expect(fileOnDisk("long-type.md")).toBe(before);
    expectNoConsoleErrors(tab);
    await tab.context.close();
  }, 90_000);

  test("leaving an untouched page, or a key's save check, does not read the blocks still to load; leaving with a change still asks", async () => {
    const created = await suite.user.client.post(`/api/v1/content/${suite.user.workspaceSlug}/long-leave.md`, { title: "Long", body: BODY });
    expect(created.status).toBe(201);
    const tab = await openWithLoadingHeld("long-leave.md");
    const { page } = tab;
    // The page's own leave check (what the browser asks before unloading it).
    const leaveIsHeld = () =>
      page.evaluate(() => {
        const event = new Event("beforeunload", { cancelable: true });
        window.dispatchEvent(event);
        return event.defaultPrevented;
      });
    const drawn = await blocksDrawn(page);
    expect(drawn).toBeLessThan(BLOCKS);
    expect(await leaveIsHeld()).toBe(false);
    expect(await blocksDrawn(page)).toBe(drawn);
    await clickIntoText(page.locator(EDITOR_PARAGRAPHS).filter({ hasText: "paragraph 2 with" }));
    await page.keyboard.press("End");
    await page.keyboard.type("!");
    // The save status is checked once the page is in, not by appending every pending block now.
    await page.waitForTimeout(400);
    expect(await blocksDrawn(page)).toBe(drawn);
    expect(await leaveIsHeld()).toBe(true);
    await releaseIdle(page);
    await page.locator('[data-status="unsaved"]').waitFor();
    await page.keyboard.press("Backspace");
    // The text is the page as opened again: leaving no longer asks — at once, or, where the
    // autosave (two seconds after the key) saved the "!" before the Backspace (the status check's
    // reading of the whole page above can take that long on a loaded machine), once the next
    // autosave has written the text back.
    const until = Date.now() + 10_000;
    while ((await leaveIsHeld()) && Date.now() < until) await page.waitForTimeout(100);
    expect(await leaveIsHeld()).toBe(false);
    expectNoConsoleErrors(tab);
    await tab.context.close();
  }, 90_000);
});
