/**
 * Images in the rich editor, in Chromium: an `<img>` tag with a width is shown at that width;
 * selected (a click, or the arrow keys and Enter) an image shows its alt text in a field, and each
 * change rewrites only that alt text in the file (read through the API): the tag's other bytes and
 * the Markdown image's address stay as written.
 */
import { describe, expect, test } from "bun:test";
import { clickIntoText, expectNoConsoleErrors, hasChromium, screenshot } from "./browser.ts";
import { browserSuite, openInEditor } from "./suite.ts";
import { axeViolations } from "./axe.ts";

const PNG = "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAQAAAADCAIAAAA7ljmRAAAAEElEQVR4nGMwaDgARww4OQBJ1hFBytn9pAAAAABJRU5ErkJggg==";
const BODY = `Intro.\n\n<img src="${PNG}" alt="Old" width="120">\n\nText ![Pic](${PNG} "T") end.\n`;

describe.skipIf(!hasChromium)("images in the rich editor", () => {
  const suite = browserSuite();

  test("alt text edited in place; the width the file gave is kept; only the alt text changes", async () => {
    const tab = await openInEditor(suite, "images.md", { title: "Images", body: BODY });
    const { page, editor } = tab;
    const imgs = editor.locator("img:not(.ProseMirror-separator)");
    await imgs.first().waitFor();
    expect(await imgs.count()).toBe(2);
    expect(await imgs.first().getAttribute("width")).toBe("120");
    expect(Math.round((await imgs.first().boundingBox())!.width)).toBe(120);
    await page.waitForTimeout(300);
    expect(await page.locator(".save-status").getAttribute("data-status")).toBe("saved");

    await imgs.first().click();
    const control = page.getByRole("group", { name: "Image" });
    await control.waitFor();
    const alt = control.getByLabel("Alt text");
    expect(await alt.inputValue()).toBe("Old");
    expect(await control.textContent()).toContain("width 120");
    await alt.fill('A "blue" grid');
    await screenshot(page, "81-image-alt");
    expect(await axeViolations(page)).toEqual([]);
    await page.keyboard.press("Escape");
    await page.keyboard.press("Control+s");
    await page.locator('[data-status="saved"]').waitFor({ timeout: 10_000 });
    expect(await suite.content("images.md")).toBe(BODY.replace('alt="Old"', 'alt="A &quot;blue&quot; grid"'));

    // Keyboard alone: from the text, the arrow keys select the Markdown image, Enter goes to its field.
    await clickIntoText(editor.getByText("Text"));
    await page.keyboard.press("Home");
    for (let i = 0; i < 10 && !(await control.isVisible()); i++) {
      await page.keyboard.press("ArrowRight");
      await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
    }
    expect(await alt.inputValue()).toBe("Pic");
    await page.keyboard.press("Enter");
    await page.keyboard.press("End");
    await page.keyboard.type("ture");
    await page.keyboard.press("Enter");
    await page.keyboard.press("Control+s");
    await page.locator('[data-status="saved"]').waitFor({ timeout: 10_000 });
    expect(await suite.content("images.md")).toBe(BODY.replace('alt="Old"', 'alt="A &quot;blue&quot; grid"').replace("![Pic]", "![Picture]"));
    expectNoConsoleErrors(tab);
    await tab.context.close();
  }, 60_000);
});
