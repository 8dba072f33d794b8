/**
 * Inline code inside a link or emphasis (`[\`fetch\`](/api)`, the way API docs name functions)
 * opens richly in Chromium and is written back as it was: untouched the paragraph keeps its bytes,
 * edited elsewhere the code stays inside its link.
 */
import { describe, expect, test } from "bun:test";
import { clickIntoText, expectNoConsoleErrors, hasChromium } from "./browser.ts";
import { browserSuite, openInEditor } from "./suite.ts";

const BODY = "Call [`fetch()`](/docs/api/fetch) or **`revalidate`** first.\n\nAfter.\n";

describe.skipIf(!hasChromium)("inline code inside links and emphasis", () => {
  const suite = browserSuite();

  test("is rich text, kept byte for byte, and stays inside its link when the paragraph changes", async () => {
    const tab = await openInEditor(suite, "code-links.md", { title: "Code links", body: BODY });
    const { page, editor } = tab;
    const link = editor.locator("a code", { hasText: "fetch()" });
    await link.waitFor();
    expect(await editor.locator("strong code").textContent()).toBe("revalidate");
    expect(await editor.locator(".raw-block").count()).toBe(0);
    await page.waitForTimeout(300);
    expect(await page.locator(".save-status").getAttribute("data-status")).toBe("saved");
    await clickIntoText(editor.getByText("first."));
    await page.keyboard.press("End");
    await page.keyboard.type(" Then render.");
    await page.keyboard.press("Control+s");
    await page.locator('[data-status="saved"]').waitFor({ timeout: 10_000 });
    expect(await suite.content("code-links.md")).toBe(BODY.replace("first.", "first. Then render."));
    expectNoConsoleErrors(tab);
    await tab.context.close();
  }, 60_000);
});
