/**
 * Inline badges in the rich editor, in Chromium: a chip in its variant's colours; selected (click
 * or arrow keys) it shows its control — text and variant — and each change rewrites only the badge
 * (read through the API); the slash menu inserts one. Keyboard alone works.
 */
import { describe, expect, test } from "bun:test";
import { clickIntoText, expectNoConsoleErrors, hasChromium, screenshot } from "./browser.ts";
import { browserSuite, openInEditor } from "./suite.ts";
import { axeViolations } from "./axe.ts";

const BODY = 'Intro.\n\nThis is :badge[New]{variant=info .x} and :badge[Old]{type="warning"} here.\n\nAfter.\n';

describe.skipIf(!hasChromium)("badges in the rich editor", () => {
  const suite = browserSuite();

  test("a badge's text and variant are edited in its control; only the badge's bytes change", async () => {
    const tab = await openInEditor(suite, "badges.md", { title: "Badges", body: BODY });
    const { page, editor } = tab;
    const chips = editor.locator(".badge-chip");
    await chips.first().waitFor();
    expect(await chips.allTextContents()).toEqual(["New", "Old"]);
    expect(await chips.evaluateAll((els) => els.map((e) => (e as HTMLElement).dataset.variant))).toEqual(["info", "warning"]);
    await page.waitForTimeout(300);
    expect(await page.locator(".save-status").getAttribute("data-status")).toBe("saved");

    // Click: the control opens with the chip's text and variant.
    await chips.first().click();
    const control = page.getByRole("group", { name: "Badge" });
    await control.waitFor();
    expect(await control.getByLabel("Text").inputValue()).toBe("New");
    expect(await control.getByLabel("Variant").inputValue()).toBe("info");
    await control.getByLabel("Variant").selectOption("danger");
    await control.getByLabel("Text").fill("Gone [soon]");
    expect(await chips.first().textContent()).toBe("Gone soon");
    expect(await chips.first().getAttribute("data-variant")).toBe("danger");
    await screenshot(page, "76-badge-control");
    expect(await axeViolations(page)).toEqual([]);
    await page.keyboard.press("Escape");
    await control.waitFor(); // back on the chip, which stays selected
    await page.keyboard.press("Control+s");
    await page.locator('[data-status="saved"]').waitFor({ timeout: 10_000 });
    expect(await suite.content("badges.md")).toBe(BODY.replace(":badge[New]{variant=info .x}", ":badge[Gone soon]{variant=danger .x}"));

    // Keyboard alone: arrow onto the second chip, Enter into its control, pick a variant, Esc back.
    await clickIntoText(editor.getByText("here."));
    await page.keyboard.press("Home");
    const selectedText = async () => ((await control.isVisible()) ? await control.getByLabel("Text").inputValue() : null);
    for (let i = 0; i < 40 && (await selectedText()) !== "Old"; i++) {
      await page.keyboard.press("ArrowRight");
      // The control is drawn on the next frame after the selection lands on a chip.
      await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
    }
    expect(await selectedText()).toBe("Old");
    await page.keyboard.press("Enter");
    expect(await page.evaluate(() => document.activeElement?.getAttribute("aria-label") ?? document.activeElement?.closest("label")?.textContent)).toContain("Text");
    await page.keyboard.press("Tab");
    await page.keyboard.press("End"); // the last variant
    await page.keyboard.press("Escape");
    await page.keyboard.press("Control+s");
    await page.locator('[data-status="saved"]').waitFor({ timeout: 10_000 });
    expect(await suite.content("badges.md")).toBe(
      BODY.replace(":badge[New]{variant=info .x}", ":badge[Gone soon]{variant=danger .x}").replace(':badge[Old]{type="warning"}', ':badge[Old]{type="deprecated"}'),
    );
    // Undo in the text takes the variant back: the file's bytes as before it.
    await page.keyboard.press("Control+z");
    await page.keyboard.press("Control+s");
    await page.locator('[data-status="saved"]').waitFor({ timeout: 10_000 });
    expect(await suite.content("badges.md")).toBe(BODY.replace(":badge[New]{variant=info .x}", ":badge[Gone soon]{variant=danger .x}"));
    expectNoConsoleErrors(tab);
    await tab.context.close();
  }, 60_000);

  test("the slash menu inserts a badge with its control open on its text", async () => {
    const tab = await openInEditor(suite, "new-badge.md", { title: "New badge", body: "Status\n" });
    const { page, editor } = tab;
    await clickIntoText(editor.getByText("Status"));
    await page.keyboard.press("End");
    await page.keyboard.type(" /badge");
    await page.getByRole("option", { name: "Badge", exact: true }).waitFor();
    await page.keyboard.press("Enter");
    const control = page.getByRole("group", { name: "Badge" });
    await control.waitFor();
    await page.waitForFunction(() => document.activeElement?.tagName === "INPUT");
    await page.keyboard.press("Control+a");
    await page.keyboard.type("Beta");
    await page.keyboard.press("Enter");
    await page.keyboard.press("Control+s");
    await page.locator('[data-status="saved"]').waitFor({ timeout: 10_000 });
    expect(await suite.content("new-badge.md")).toBe("Status :badge[Beta]{variant=info}\n");
    await page.emulateMedia({ colorScheme: "dark" });
    await screenshot(page, "77-badge-dark");
    expectNoConsoleErrors(tab);
    await tab.context.close();
  }, 60_000);
});
