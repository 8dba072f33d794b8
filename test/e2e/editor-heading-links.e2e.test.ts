/**
 * `#heading` targets in the rich editor's `[[` picker, in Chromium: typing `[[Page#` lists that
 * page's headings (read through the page's own API), filtered by what follows `#`; picking one
 * writes `[[path#Heading]]` (or the heading's id when its text cannot be written or repeats).
 */
import { describe, expect, test } from "bun:test";
import { clickIntoText, expectNoConsoleErrors, hasChromium, screenshot } from "./browser.ts";
import { browserSuite, openInEditor } from "./suite.ts";
import { axeViolations } from "./axe.ts";

const GUIDE = "# Guide\n\n## Install the *CLI*\n\nText.\n\n## Usage\n\n### Usage\n";

describe.skipIf(!hasChromium)("links to headings in the rich editor", () => {
  const suite = browserSuite(async (s) => {
    expect((await s.user.client.post(`/api/v1/content/${s.user.workspaceSlug}/handbook/cli-guide.md`, { title: "CLI guide", body: GUIDE })).status).toBe(201);
  });

  test("[[Page# lists the page's headings; the one picked is written after #", async () => {
    const tab = await openInEditor(suite, "reading.md", { title: "Reading", body: "Start.\n" });
    const { page, editor } = tab;
    await clickIntoText(editor.getByText("Start."));
    await page.keyboard.press("End");
    await page.keyboard.type(" See [[");
    const picker = page.getByRole("dialog", { name: "Link to a page" });
    const input = picker.getByRole("combobox", { name: "Find a page to link" });
    await input.waitFor();
    await page.keyboard.type("cli gd#");
    const headings = picker.getByRole("listbox", { name: "Headings of CLI guide" });
    await headings.getByRole("option").first().waitFor();
    expect(await headings.getByRole("option").allTextContents()).toEqual(["Guide #guide", "Install the CLI #install-the-cli", "Usage #usage", "Usage #usage-1"]);
    await page.keyboard.type("inst");
    expect(await headings.getByRole("option").allTextContents()).toEqual(["Install the CLI #install-the-cli"]);
    await screenshot(page, "80-heading-picker");
    expect(await axeViolations(page)).toEqual([]);
    await page.keyboard.press("Enter");
    await picker.waitFor({ state: "detached" });
    await editor.locator(".wikilink", { hasText: "CLI guide" }).waitFor();
    await page.waitForFunction(() => document.activeElement?.classList.contains("tiptap") ?? false);
    // The second "Usage" heading: its id, since its text names the first one.
    await page.keyboard.type(" and [[");
    await input.waitFor();
    await page.keyboard.type("cli-guide#usage");
    await headings.getByRole("option").first().waitFor();
    await page.keyboard.press("ArrowDown");
    await page.keyboard.press("Enter");
    await picker.waitFor({ state: "detached" });
    await page.waitForFunction(() => document.activeElement?.classList.contains("tiptap") ?? false);
    await page.keyboard.type(".");
    await page.keyboard.press("Control+s");
    await page.locator('[data-status="saved"]').waitFor({ timeout: 10_000 });
    expect(await suite.content("reading.md")).toBe("Start. See [[handbook/cli-guide#Install the CLI]] and [[handbook/cli-guide#usage-1]].\n");
    // Both chips name a page that exists.
    expect(await editor.locator(".wikilink-dead").count()).toBe(0);
    expectNoConsoleErrors(tab);
    await tab.context.close();
  }, 60_000);

  test("a Markdown link's address field suggests the linked page's headings, and this page's own after #", async () => {
    const BODY = "See [the guide](handbook/cli-guide.md) and [below](#).\n\n## Own part\n";
    const tab = await openInEditor(suite, "reading2.md", { title: "Reading 2", body: BODY });
    const { page, editor } = tab;
    await clickIntoText(editor.getByText("the guide"));
    const form = page.getByRole("dialog", { name: "Edit link" });
    const field = form.getByRole("combobox", { name: "Link address" });
    await field.waitFor();
    const options = () => page.locator("#link-heading-targets option").evaluateAll((els) => els.map((e) => (e as HTMLOptionElement).value));
    await page.waitForFunction(() => document.querySelectorAll("#link-heading-targets option").length > 0);
    expect(await options()).toEqual(["handbook/cli-guide.md#guide", "handbook/cli-guide.md#install-the-cli", "handbook/cli-guide.md#usage", "handbook/cli-guide.md#usage-1"]);
    await field.fill("handbook/cli-guide.md#install-the-cli");
    await page.keyboard.press("Enter");
    await form.waitFor({ state: "detached" });
    // The same-page link: this page's own headings.
    await clickIntoText(editor.getByText("below"));
    await field.waitFor();
    await page.waitForFunction(() => document.querySelectorAll("#link-heading-targets option").length > 0);
    expect(await options()).toEqual(["#own-part"]);
    await field.fill("#own-part");
    await page.keyboard.press("Enter");
    await form.waitFor({ state: "detached" });
    // `[[#` lists this page's own headings; the chip of `[[#Own part]]` is not a dead link.
    await clickIntoText(editor.getByText("Own part"));
    await page.keyboard.press("End");
    await page.keyboard.press("Enter");
    await page.keyboard.type("Up: [[");
    const picker = page.getByRole("dialog", { name: "Link to a page" });
    await picker.getByRole("combobox").waitFor();
    await page.keyboard.type("#own");
    await picker.getByRole("listbox", { name: "Headings of this page" }).getByRole("option", { name: /Own part/ }).waitFor();
    await page.keyboard.press("Enter");
    await picker.waitFor({ state: "detached" });
    await editor.locator(".wikilink", { hasText: "#Own part" }).waitFor();
    expect(await editor.locator(".wikilink-dead").count()).toBe(0);
    await page.keyboard.press("Control+s");
    await page.locator('[data-status="saved"]').waitFor({ timeout: 10_000 });
    expect(await suite.content("reading2.md")).toBe("See [the guide](handbook/cli-guide.md#install-the-cli) and [below](#own-part).\n\n## Own part\n\nUp: [[#Own part]]\n");
    expectNoConsoleErrors(tab);
    await tab.context.close();
  }, 60_000);
});
