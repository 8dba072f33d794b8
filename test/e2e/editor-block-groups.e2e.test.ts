/**
 * A long page's blocks are held in groups of 24 (src/web/editor/block-groups.ts), structure for the
 * browser only. Every edit at or across a group's edge must do what the same edit does on a page
 * without groups: each one here is made on the long page (150 paragraphs, grouped) and on a short
 * page holding the same ten paragraphs around the edge (not grouped), and the long file must change
 * exactly as the short one did. Undo then gives both files back byte for byte.
 */
import { afterAll, describe, expect, test } from "bun:test";
import type { Page } from "playwright-core";
import { caretTaken, clickIntoText, EDITOR_BLOCKS, EDITOR_PARAGRAPHS, expectNoConsoleErrors, hasChromium } from "./browser.ts";
import { browserSuite, openInEditor } from "./suite.ts";

const paragraph = (n: number) => `Paragraph ${n} with a few words.`;
const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => paragraph(from + i)).join("\n\n") + "\n";
const LONG = range(1, 150);
/** Paragraphs 48 and 49 sit on either side of the edge between the second and third groups. */
const SHORT = range(44, 53);

describe.skipIf(!hasChromium)("a long page's block groups are invisible to every edit", () => {
  const suite = browserSuite();

  const save = async (page: Page) => {
    await page.keyboard.press("Control+s");
    await page.locator('[data-status="saved"]').waitFor({ timeout: 10_000 });
  };
  const p = (page: Page, n: number) => page.locator(EDITOR_PARAGRAPHS).filter({ hasText: paragraph(n) });
  const groups = (page: Page) => page.evaluate(() => Array.from(document.querySelectorAll(".tiptap > .block-group"), (g) => g.childElementCount));

  /** The long page's tab, kept open for the second test. */
  let opened: Awaited<ReturnType<typeof openInEditor>> | null = null;
  /**
   * Clicks paragraph `n`, puts the caret at its start (Home) or end (End) and, with `lines`, extends
   * the selection that many lines down; each time waits until the editor holds the caret.
   */
  const caretAt = async (page: Page, n: number, key: "Home" | "End", lines = 0) => {
    await clickIntoText(p(page, n));
    await page.keyboard.press(key);
    await caretTaken(page);
    if (lines === 0) return;
    for (let i = 0; i < lines; i++) await page.keyboard.press("Shift+ArrowDown");
    await caretTaken(page);
  };
  const edits: Array<[string, (page: Page) => Promise<void>]> = [
    ["Backspace at the start of a group's first block joins it to the block before", async (page) => {
      await caretAt(page, 49, "Home");
      await page.keyboard.press("Backspace");
    }],
    ["Delete at the end of a group's last block joins the block after", async (page) => {
      await caretAt(page, 48, "End");
      await page.keyboard.press("Delete");
    }],
    ["text typed over a selection across the edge replaces it", async (page) => {
      await caretAt(page, 47, "End", 3);
      await page.keyboard.type("X");
    }],
    ["a bullet list made over blocks on both sides of the edge", async (page) => {
      await caretAt(page, 47, "Home", 3);
      await page.keyboard.press("Control+Shift+8");
    }],
    ["a quote made over blocks on both sides of the edge", async (page) => {
      await caretAt(page, 48, "Home", 1);
      await page.keyboard.press("Control+Shift+b");
    }],
    ["Enter in an empty paragraph inside a group makes another paragraph", async (page) => {
      await caretAt(page, 45, "End");
      await page.keyboard.press("Enter");
      await page.keyboard.press("Enter");
      await page.keyboard.type("Y");
    }],
  ];

  test("each edit at a group's edge changes the file as it does on a page without groups; undo restores every byte", async () => {
    const long = await openInEditor(suite, "long.md", { title: "Long", body: LONG });
    const short = await openInEditor(suite, "short.md", { title: "Short", body: SHORT });
    await long.page.waitForFunction(([blocks, n]) => document.querySelectorAll(blocks as string).length === n, [EDITOR_BLOCKS, 150], { timeout: 30_000 });
    await short.editor.getByText(paragraph(53)).waitFor();
    // The long page in groups of 24 (the last one holds the rest); the short page in none.
    expect(await groups(long.page)).toEqual([24, 24, 24, 24, 24, 24, 6]);
    expect(await groups(short.page)).toEqual([]);
    for (const [what, edit] of edits) {
      await edit(short.page);
      await save(short.page);
      const shortAfter = await suite.content("short.md");
      expect(shortAfter, what).not.toBe(SHORT);
      await edit(long.page);
      await save(long.page);
      expect(await suite.content("long.md"), what).toBe(LONG.replace(SHORT, shortAfter));
      for (const page of [short.page, long.page]) {
        for (let i = 0; i < 4; i++) await page.keyboard.press("Control+z");
        await save(page);
      }
      expect(await suite.content("short.md"), `${what}, undone`).toBe(SHORT);
      expect(await suite.content("long.md"), `${what}, undone`).toBe(LONG);
    }
    expectNoConsoleErrors(long);
    expectNoConsoleErrors(short);
    await short.context.close();
    opened = long;
  }, 120_000);

  test("a long paste grows one group, which is split again once the writer pauses, the file unchanged by it", async () => {
    // The long page of the test above, its text as opened (its edits undone; two of its groups
    // joined at the edge where Backspace and Delete were pressed).
    const long = opened!;
    const { page } = long;
    await caretAt(page, 30, "End");
    const pasted = Array.from({ length: 80 }, (_, i) => `Pasted line ${i + 1}, **bold**.`).join("\n\n");
    await page.evaluate((text) => {
      const dt = new DataTransfer();
      dt.setData("text/plain", text);
      document.querySelector(".tiptap")!.dispatchEvent(new ClipboardEvent("paste", { clipboardData: dt, bubbles: true, cancelable: true }));
    }, pasted);
    expect(Math.max(...(await groups(page)))).toBeGreaterThan(48);
    await save(page);
    const saved = await suite.content("long.md");
    expect(saved).toContain(`${paragraph(30)}\n\nPasted line 1, **bold**.\n\nPasted line 2, **bold**.`);
    // Split again after a pause: no group over twice 24, the blocks the same and in order.
    await page.waitForFunction(() => Math.max(...Array.from(document.querySelectorAll(".tiptap > .block-group"), (g) => g.childElementCount)) <= 48, undefined, { timeout: 10_000 });
    expect(await page.locator(EDITOR_BLOCKS).count()).toBe(150 + 80);
    await page.locator('[data-status="saved"]').waitFor();
    await save(page);
    expect(await suite.content("long.md")).toBe(saved);
    // And typing goes on where it was.
    await caretAt(page, 31, "End");
    await page.keyboard.type("!");
    await save(page);
    expect(await suite.content("long.md")).toBe(saved.replace(paragraph(31), `${paragraph(31)}!`));
    expectNoConsoleErrors(long);
  }, 60_000);
  afterAll(() => opened?.context.close());
});
