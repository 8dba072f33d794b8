/**
 * The raw (CodeMirror) editor's completions, in Chromium: `:::` at a line's start lists the
 * components, Enter inserts the chosen one's opening line, body and closing line with the caret on
 * its argument; `:b` completes the inline badge; `[[page#` lists that page's headings as in the
 * rich editor. The file's exact bytes after saving, read through the API.
 */
import { describe, expect, test } from "bun:test";
import { expectNoConsoleErrors, hasChromium, screenshot } from "./browser.ts";
import { browserSuite, openInEditor } from "./suite.ts";
import { axeViolations } from "./axe.ts";

/**
 * CodeMirror ignores Enter on a completion list for its first 75 ms (`interactionDelay`), so a
 * person typing on does not accept a list that just appeared: Enter then breaks the line. A writer
 * reads the list before choosing; the test waits past that delay after the option is shown.
 */
const COMPLETION_INTERACTION_DELAY_MS = 75;

describe.skipIf(!hasChromium)("completions in the raw editor", () => {
  const suite = browserSuite(async (s) => {
    expect((await s.user.client.post(`/api/v1/content/${s.user.workspaceSlug}/ref/api-notes.md`, { title: "API notes", body: "## Rate limits\n\nText.\n" })).status).toBe(201);
  });

  test(":::, :b and [[page# complete in the source; the bytes are what was chosen", async () => {
    const tab = await openInEditor(suite, "raw.md", { title: "Raw", body: "Intro.\n" });
    const { page } = tab;
    await page.getByRole("button", { name: "Switch to Markdown source" }).click();
    const source = page.getByRole("textbox", { name: "Markdown source" });
    await source.waitFor();
    await source.click();
    await page.keyboard.press("Control+End");
    await page.keyboard.type("\n:::ca");
    const list = page.getByRole("listbox");
    await list.getByRole("option", { name: /callout/ }).waitFor();
    expect(await list.getByRole("option").allTextContents()).toEqual(["calloutCallout box", "cardsCards"]);
    await screenshot(page, "82-raw-completions");
    expect(await axeViolations(page)).toEqual([]);
    await page.waitForTimeout(COMPLETION_INTERACTION_DELAY_MS + 25);
    await page.keyboard.press("Enter");
    // The caret is on the callout's type: a new one typed over it, Tab to the body.
    await page.keyboard.type("warning");
    await page.keyboard.press("Tab");
    await page.keyboard.type("Careful :b");
    await list.getByRole("option", { name: /badge/ }).waitFor();
    await page.waitForTimeout(COMPLETION_INTERACTION_DELAY_MS + 25);
    await page.keyboard.press("Enter");
    await page.keyboard.type("Beta");
    await page.keyboard.press("Tab");
    await page.keyboard.type("warning");
    await page.keyboard.press("Escape");
    await page.keyboard.press("End");
    await page.keyboard.type(" See [[");
    const picker = page.getByRole("dialog", { name: "Link to a page" });
    await picker.getByRole("combobox").waitFor();
    await page.keyboard.type("api#rate");
    await picker.getByRole("option", { name: /Rate limits/ }).waitFor();
    await page.keyboard.press("Enter");
    await picker.waitFor({ state: "detached" });
    await page.keyboard.press("Control+s");
    await page.locator('[data-status="saved"]').waitFor({ timeout: 10_000 });
    expect(await suite.content("raw.md")).toBe("Intro.\n\n:::callout[warning]\nCareful :badge[Beta]{variant=warning} See [[ref/api-notes#Rate limits]]\n:::");
    expectNoConsoleErrors(tab);
    await tab.context.close();
  }, 60_000);
});
