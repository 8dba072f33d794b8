/**
 * A table's context menu and reordering, in Chromium: right-click or Shift+F10 on a cell opens the
 * menu (insert, move, delete, align), Alt+arrows move the caret's row or column, and the drag
 * handles move them with the pointer. The page's exact bytes after saving, read through the API: a
 * moved row keeps its own line, new and changed rows are written in the table's own style.
 */
import { describe, expect, test } from "bun:test";
import type { Page } from "playwright-core";
import { clickIntoText, expectNoConsoleErrors, hasChromium, screenshot } from "./browser.ts";
import { browserSuite, openInEditor } from "./suite.ts";
import { axeViolations } from "./axe.ts";

const PADDED = "Intro.\n\n| Name  | Size |\n| :---- | ---: |\n| alpha |    1 |\n| beta  |   22 |\n| gamma |  333 |\n\nAfter.\n";

describe.skipIf(!hasChromium)("a table's context menu and reordering", () => {
  const suite = browserSuite();
  /** The menu gone and the focus back in the text (the editor focuses on the next frame). */
  const backInText = async (page: Page) => {
    await page.getByRole("menu", { name: "Table" }).waitFor({ state: "detached" });
    await page.waitForFunction(() => document.activeElement?.classList.contains("ProseMirror"));
  };
  const save = async (page: Page) => {
    await page.keyboard.press("Control+s");
    await page.locator('[data-status="saved"]').waitFor({ timeout: 10_000 });
  };

  test("right-click and Shift+F10 open the menu; its items insert, move, align and delete; keys drive it", async () => {
    const tab = await openInEditor(suite, "menu.md", { title: "Menu", body: PADDED });
    const { page, editor } = tab;
    await editor.locator("table").waitFor();
    // Right-click on a cell: the table's menu, not the browser's; the focus on its first item.
    await editor.getByText("beta").click({ button: "right" });
    const menu = page.getByRole("menu", { name: "Table" });
    await menu.waitFor();
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe("Insert row above");
    await screenshot(page, "78-table-menu");
    expect(await axeViolations(page)).toEqual([]);
    await menu.getByRole("menuitem", { name: "Move row up" }).click();
    await backInText(page);
    // The caret stayed in "beta", now the first body row; the header row cannot be moved into.
    expect(await editor.locator("tr").nth(1).textContent()).toContain("beta");
    await page.keyboard.press("Shift+F10");
    await menu.waitFor();
    expect(await menu.getByRole("menuitem", { name: "Move row up" }).isDisabled()).toBe(true);
    expect(await menu.getByRole("menuitem", { name: "Insert row above" }).isEnabled()).toBe(true);
    // Keys: Down to "Insert row below", Enter runs it; the new row is written padded.
    await page.keyboard.press("ArrowDown");
    await page.keyboard.press("Enter");
    await backInText(page);
    await page.keyboard.press("ArrowDown");
    await page.keyboard.type("delta");
    await page.keyboard.press("Tab");
    await page.keyboard.type("4");
    // Esc closes the menu and goes back to the cell.
    await page.keyboard.press("Shift+F10");
    await menu.waitFor();
    await page.keyboard.press("Escape");
    await backInText(page);
    await page.keyboard.type("4");
    await save(page);
    expect(await suite.content("menu.md")).toBe("Intro.\n\n| Name  | Size |\n| :---- | ---: |\n| beta  |   22 |\n| delta |   44 |\n| alpha |    1 |\n| gamma |  333 |\n\nAfter.\n");

    // Alignment from the menu (checked item), then deleting a column.
    await editor.getByText("Name").click({ button: "right" });
    await menu.getByRole("menuitemradio", { name: "Align column center" }).click();
    await editor.getByText("Name").click({ button: "right" });
    expect(await menu.getByRole("menuitemradio", { name: "Align column center" }).getAttribute("aria-checked")).toBe("true");
    await page.keyboard.press("Escape");
    await editor.getByText("Size").click({ button: "right" });
    await menu.getByRole("menuitem", { name: "Delete column" }).click();
    await save(page);
    expect(await suite.content("menu.md")).toBe("Intro.\n\n| Name  |\n| :---: |\n| beta  |\n| delta |\n| alpha |\n| gamma |\n\nAfter.\n");
    // At a phone's width the menu stays on the screen.
    await page.setViewportSize({ width: 390, height: 700 });
    await editor.getByText("gamma").click({ button: "right" });
    await menu.waitFor();
    const box = (await menu.boundingBox())!;
    expect(box.x).toBeGreaterThanOrEqual(0);
    expect(box.x + box.width).toBeLessThanOrEqual(390);
    expect(box.y + box.height).toBeLessThanOrEqual(700);
    await screenshot(page, "83-table-menu-phone");
    await page.keyboard.press("Escape");
    expectNoConsoleErrors(tab);
    await tab.context.close();
  }, 60_000);

  test("Alt+arrows move the caret's row and column; untouched rows keep their bytes", async () => {
    const tab = await openInEditor(suite, "keys.md", { title: "Keys", body: PADDED });
    const { page, editor } = tab;
    await clickIntoText(editor.getByText("alpha"));
    await page.keyboard.press("Alt+ArrowDown");
    await page.keyboard.press("Alt+ArrowDown");
    // At the bottom already: nothing moves, and the page does not navigate away.
    await page.keyboard.press("Alt+ArrowDown");
    expect(await page.evaluate(() => getSelection()?.anchorNode?.textContent)).toBe("alpha");
    await save(page);
    expect(await suite.content("keys.md")).toBe("Intro.\n\n| Name  | Size |\n| :---- | ---: |\n| beta  |   22 |\n| gamma |  333 |\n| alpha |    1 |\n\nAfter.\n");
    const url = page.url();
    // Alt+→ moves the column right (the caret with it); again at the edge does nothing; Alt+← and back.
    await page.keyboard.press("Alt+ArrowRight");
    await page.keyboard.press("Alt+ArrowRight");
    expect(await editor.locator("tr").first().textContent()).toBe("SizeName");
    await page.keyboard.press("Alt+ArrowLeft");
    expect(await editor.locator("tr").first().textContent()).toBe("NameSize");
    await page.keyboard.press("Alt+ArrowRight");
    expect(page.url()).toBe(url);
    expect(await editor.locator("tr").first().textContent()).toBe("SizeName");
    await save(page);
    const after = await suite.content("keys.md");
    expect(after.split("\n").slice(2, 4)).toEqual(["| Size | Name  |", "| ---: | :---- |"]);
    // Undo takes back the moves one by one, to the file's exact bytes.
    for (let i = 0; i < 5; i++) await page.keyboard.press("Control+z");
    await save(page);
    expect(await suite.content("keys.md")).toBe(PADDED);
    expectNoConsoleErrors(tab);
    await tab.context.close();
  }, 60_000);

  test("drag handles move a row and a column with the pointer", async () => {
    const tab = await openInEditor(suite, "drag.md", { title: "Drag", body: PADDED });
    const { page, editor } = tab;
    const table = editor.locator("table");
    await table.waitFor();
    await editor.getByText("gamma").hover();
    const gammaHandle = page.locator('.table-handle-row[data-row="3"]');
    await gammaHandle.waitFor();
    expect(await page.locator(".table-handles").getAttribute("aria-hidden")).toBe("true");
    // Drag gamma's row onto alpha's: gamma becomes the first body row.
    const from = (await gammaHandle.boundingBox())!;
    const alphaRow = (await editor.locator("tr").nth(1).boundingBox())!;
    await page.mouse.move(from.x + from.width / 2, from.y + from.height / 2);
    await page.mouse.down();
    await page.mouse.move(from.x + from.width / 2, alphaRow.y + 4, { steps: 5 });
    await page.locator(".table-drop-row").waitFor();
    await screenshot(page, "79-table-drag");
    await page.mouse.up();
    expect(await editor.locator("tr").nth(1).textContent()).toContain("gamma");
    // A column: Size dragged onto Name.
    await editor.getByText("Size").hover();
    const sizeHandle = page.locator('.table-handle-column[data-column="1"]');
    await sizeHandle.waitFor();
    const c = (await sizeHandle.boundingBox())!;
    const nameCell = (await editor.getByText("Name").boundingBox())!;
    await page.mouse.move(c.x + c.width / 2, c.y + c.height / 2);
    await page.mouse.down();
    await page.mouse.move(nameCell.x + 2, c.y + c.height / 2, { steps: 5 });
    await page.mouse.up();
    expect(await editor.locator("tr").first().textContent()).toBe("SizeName");
    await save(page);
    const lines = (await suite.content("drag.md")).split("\n");
    expect(lines.slice(2, 7)).toEqual(["| Size | Name  |", "| ---: | :---- |", "|  333 | gamma |", "|    1 | alpha |", "|   22 | beta  |"]);
    expectNoConsoleErrors(tab);
    await tab.context.close();
  }, 60_000);
});
