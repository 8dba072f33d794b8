/**
 * Tables as grids in the rich editor, in Chromium: click a cell and type, move with Tab and the
 * keyboard, add and remove rows and columns from the toolbar and the keyboard, align a column,
 * paste cells from a spreadsheet — and the page's exact bytes after saving, read through the API:
 * only the rows that changed are rewritten, in the table's own style. axe-core checks the editor.
 */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import type { Page } from "playwright-core";
import { clickIntoText, expectNoConsoleErrors, hasChromium, newTab, screenshot, signInInUi } from "./browser.ts";
import { browserSuite } from "./suite.ts";

const AXE = readFileSync(require.resolve("axe-core/axe.min.js"), "utf8");
const PADDED = "Intro.\n\n| Name  | Size |\n| :---- | ---: |\n| alpha |    1 |\n| beta  |   22 |\n\nAfter.\n";
const COMPACT = "Intro.\n\n| a | b |\n|---|---|\n| x \\| y | `c\\|d` |\n\nAfter.\n";

/** Serious and critical WCAG 2.1 A/AA violations axe-core finds on the page, by rule and target. */
async function axeViolations(page: Page): Promise<string[]> {
  return page.evaluate(async (source) => {
    // Evaluated by the browser's debugger, not as a page script, so the page's CSP stays as served.
    (0, eval)(source);
    const axe = (window as unknown as { axe: { run(o: object): Promise<{ violations: Array<{ id: string; impact: string; nodes: Array<{ target: string[] }> }> }> } }).axe;
    const result = await axe.run({ runOnly: { type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"] }, rules: { "label-content-name-mismatch": { enabled: true } } });
    return result.violations.filter((v) => v.impact === "serious" || v.impact === "critical" || v.id === "label-content-name-mismatch").flatMap((v) => v.nodes.map((n) => `${v.id}: ${n.target.join(" ")}`));
  }, AXE);
}

describe.skipIf(!hasChromium)("tables in the rich editor", () => {
  const suite = browserSuite();

  const create = async (path: string, body: string) => expect((await suite.user.client.post(`/api/v1/content/${suite.user.workspaceSlug}/${path}`, { title: path, body })).status).toBe(201);
  const content = suite.content;
  async function openPage(path: string) {
    const tab = await newTab(suite.browser);
    await tab.page.goto(`${suite.server.url}/w/${suite.user.workspaceSlug}/p/${path}`);
    await signInInUi(tab.page, suite.user);
    const editor = tab.page.getByRole("textbox", { name: "Page content" });
    await editor.locator("table").waitFor();
    return { tab, page: tab.page, editor };
  }
  const save = async (page: Page) => {
    await page.keyboard.press("Control+s");
    await page.locator('[data-status="saved"]').waitFor({ timeout: 10_000 });
  };
  const tool = (page: Page, name: string) => page.getByRole("toolbar", { name: "Formatting" }).getByRole("button", { name: new RegExp(`^${name}(, .+)?$`) });

  test("click a cell and type, Tab to the next, Tab past the end adds a row: only those rows change, padded as the table was", async () => {
    await create("padded.md", PADDED);
    const { tab, page, editor } = await openPage("padded.md");
    await page.waitForTimeout(300);
    expect(await page.locator(".save-status").getAttribute("data-status")).toBe("saved");
    await clickIntoText(editor.getByText("beta"));
    await page.keyboard.press("End");
    await page.keyboard.type("s");
    await page.keyboard.press("Tab");
    await page.keyboard.type("7");
    await page.keyboard.press("Tab");
    await page.keyboard.type("gamma");
    await page.keyboard.press("Tab");
    // A typed pipe is escaped in the file.
    await page.keyboard.type("3|4");
    await screenshot(page, "60-table-grid");
    await save(page);
    expect(await content("padded.md")).toBe("Intro.\n\n| Name  | Size |\n| :---- | ---: |\n| alpha |    1 |\n| betas |    7 |\n| gamma | 3\\|4 |\n\nAfter.\n");
    expectNoConsoleErrors(tab);
    await tab.context.close();
  }, 60_000);

  test("rows and columns from the toolbar and the keyboard, column alignment, arrows between cells", async () => {
    await create("compact.md", COMPACT);
    const { tab, page, editor } = await openPage("compact.md");
    await clickIntoText(editor.getByText("b", { exact: true }));
    // The grid's buttons appear while the caret is in a table.
    await tool(page, "Add column right").click();
    await page.keyboard.press("Tab");
    await page.keyboard.type("c");
    await tool(page, "Align column center").click();
    expect(await tool(page, "Align column center").getAttribute("aria-pressed")).toBe("true");
    // ArrowDown moves into the body row below; Ctrl+Alt+↓ adds a row under it.
    await page.keyboard.press("ArrowDown");
    await page.keyboard.type("z");
    await page.keyboard.press("Control+Alt+ArrowDown");
    await page.keyboard.press("ArrowDown");
    await page.keyboard.type("new");
    await save(page);
    expect(await content("compact.md")).toBe("Intro.\n\n| a | b | c |\n| --- | --- | :-: |\n| x \\| y | `c\\|d` | z |\n|  |  | new |\n\nAfter.\n");

    // Remove the new row with the keyboard and the new column with the toolbar.
    await page.keyboard.press("Control+Alt+Backspace");
    await clickIntoText(editor.getByText("z", { exact: true }));
    await tool(page, "Delete column").click();
    await save(page);
    // Back to the shape it had when opened: every line as it was written, the delimiter row included.
    expect(await content("compact.md")).toBe(COMPACT);
    expect(await editor.getByRole("button").count()).toBe(0);
    expectNoConsoleErrors(tab);
    await tab.context.close();
  }, 60_000);

  test("cells copied from a spreadsheet (tab-separated) paste into the grid, growing it", async () => {
    await create("paste.md", COMPACT);
    const { tab, page, editor } = await openPage("paste.md");
    await clickIntoText(editor.getByText("x | y"));
    await page.evaluate(() => {
      const dt = new DataTransfer();
      dt.setData("text/plain", "p1\tp2\tp3\nq1\tq2\tq3\n");
      document.querySelector(".tiptap")!.dispatchEvent(new ClipboardEvent("paste", { clipboardData: dt, bubbles: true, cancelable: true }));
    });
    await editor.getByText("q3").waitFor();
    await save(page);
    expect(await content("paste.md")).toBe("Intro.\n\n| a | b |  |\n| --- | --- | --- |\n| p1 | p2 | p3 |\n| q1 | q2 | q3 |\n\nAfter.\n");
    expectNoConsoleErrors(tab);
    await tab.context.close();
  }, 60_000);

  test("a new table from the toolbar is written as GFM; axe finds no serious violation in the editor", async () => {
    await create("new-table.md", "Intro.\n\n| k | v |\n|---|---|\n| 1 | 2 |\n");
    const { tab, page, editor } = await openPage("new-table.md");
    await clickIntoText(editor.getByText("Intro."));
    await page.keyboard.press("End");
    await page.keyboard.press("Enter");
    await tool(page, "Table").click();
    await page.keyboard.type("Key");
    await page.keyboard.press("Tab");
    await page.keyboard.type("Value");
    await page.keyboard.press("Tab");
    await page.keyboard.type("one");
    expect(await axeViolations(page)).toEqual([]);
    await save(page);
    expect(await content("new-table.md")).toBe("Intro.\n\n| Key | Value |\n| --- | --- |\n| one |  |\n|  |  |\n\n| k | v |\n|---|---|\n| 1 | 2 |\n");
    expectNoConsoleErrors(tab);
    await tab.context.close();
  }, 60_000);
});
