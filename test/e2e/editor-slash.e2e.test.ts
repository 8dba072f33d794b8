/**
 * The slash menu and the Markdown shortcuts of the rich editor, in Chromium: each inserts its
 * block, and the page's exact bytes after saving (read through the API) show every untouched
 * block as it was and each new one written as Markdown.
 */
import { describe, expect, test } from "bun:test";
import type { Page } from "playwright-core";
import { clickIntoText, expectNoConsoleErrors, hasChromium, screenshot } from "./browser.ts";
import { browserSuite, openInEditor } from "./suite.ts";

describe.skipIf(!hasChromium)("inserting blocks in the rich editor", () => {
  const suite = browserSuite();

  const FIRST = "First  line, spelled *oddly* on purpose.\n";
  const content = suite.content;
  async function openAtEnd(path: string) {
    const tab = await openInEditor(suite, path, { title: path, body: FIRST });
    const { page, editor } = tab;
    await clickIntoText(editor.getByText("on purpose."));
    await page.keyboard.press("End");
    await page.keyboard.press("Enter");
    return { tab, page, editor };
  }
  const save = async (page: Page) => {
    await page.keyboard.press("Control+s");
    await page.locator('[data-status="saved"]').waitFor({ timeout: 10_000 });
  };
  /** Types "/" and a filter, checks the first match, and takes it with Enter. */
  async function slash(page: Page, filter: string, expected: string) {
    await page.keyboard.type("/" + filter);
    const menu = page.getByRole("listbox", { name: "Insert a block" });
    await menu.getByRole("option", { selected: true, name: expected, exact: true }).waitFor();
    await page.keyboard.press("Enter");
    await menu.waitFor({ state: "detached" });
  }

  test("the slash menu inserts headings, lists, quote, code with its language, table, divider and components", async () => {
    const { tab, page } = await openAtEnd("slash.md");
    page.on("dialog", (d) => void d.accept("ts"));
    await slash(page, "h2", "Heading 2");
    await page.keyboard.type("Title");
    await page.keyboard.press("Enter");
    await slash(page, "bul", "Bulleted list");
    await page.keyboard.type("item");
    await page.keyboard.press("Enter");
    await page.keyboard.press("Enter");
    await slash(page, "todo", "Task list");
    await page.keyboard.type("task");
    await page.keyboard.press("Enter");
    await page.keyboard.press("Enter");
    // Fuzzy: "nmbr" finds the numbered list; arrows move in the list, Esc closes it and keeps the text.
    await page.keyboard.type("/nmbr");
    const menu = page.getByRole("listbox", { name: "Insert a block" });
    await menu.getByRole("option", { selected: true, name: "Numbered list" }).waitFor();
    await screenshot(page, "61-slash-menu");
    await page.keyboard.press("Escape");
    await menu.waitFor({ state: "detached" });
    await page.keyboard.type(" stays text");
    await page.keyboard.press("Enter");
    await slash(page, "quote", "Quote");
    await page.keyboard.type("quoted");
    await page.keyboard.press("Enter");
    await page.keyboard.press("Enter");
    await slash(page, "code", "Code block");
    await page.keyboard.type("let x = 1;");
    await page.keyboard.press("Enter");
    await page.keyboard.press("Enter");
    await page.keyboard.press("Enter");
    await slash(page, "divider", "Divider");
    await slash(page, "callout", "Callout");
    // The callout is a block: its body takes the caret, its type is picked above it.
    await page.keyboard.type("Typed tip.");
    await page.getByRole("combobox", { name: "Callout type" }).selectOption("tip");
    await save(page);
    expect(await content("slash.md")).toBe(
      FIRST + "\n## Title\n\n- item\n\n- [ ] task\n\n/nmbr stays text\n\n> quoted\n\n```ts\nlet x = 1;\n```\n\n---\n\n:::callout[tip]\nTyped tip.\n:::\n",
    );
    expectNoConsoleErrors(tab);
    await tab.context.close();
  }, 60_000);

  test("a table from the slash menu, and a slash inside a word stays text", async () => {
    const { tab, page } = await openAtEnd("slash-table.md");
    await page.keyboard.type("either/or");
    expect(await page.getByRole("listbox", { name: "Insert a block" }).count()).toBe(0);
    await page.keyboard.press("Enter");
    await slash(page, "tab", "Table");
    await page.keyboard.type("K");
    await page.keyboard.press("Tab");
    await page.keyboard.type("V");
    await save(page);
    expect(await content("slash-table.md")).toBe(FIRST + "\neither/or\n\n| K | V |\n| --- | --- |\n|  |  |\n|  |  |\n");
    expectNoConsoleErrors(tab);
    await tab.context.close();
  }, 60_000);

  test("Markdown shortcuts: ## , - , 1. , > , ``` and --- become their blocks", async () => {
    const { tab, page } = await openAtEnd("shortcuts.md");
    await page.keyboard.type("## Head");
    await page.keyboard.press("Enter");
    await page.keyboard.type("- one");
    await page.keyboard.press("Enter");
    await page.keyboard.press("Enter");
    await page.keyboard.type("1. first");
    await page.keyboard.press("Enter");
    await page.keyboard.press("Enter");
    await page.keyboard.type("> said");
    await page.keyboard.press("Enter");
    await page.keyboard.press("Enter");
    await page.keyboard.type("```sh ");
    await page.keyboard.type("ls");
    await page.keyboard.press("Enter");
    await page.keyboard.press("Enter");
    await page.keyboard.press("Enter");
    await page.keyboard.type("---");
    await page.keyboard.type("end");
    await save(page);
    expect(await content("shortcuts.md")).toBe(FIRST + "\n## Head\n\n- one\n\n1. first\n\n> said\n\n```sh\nls\n```\n\n---\n\nend\n");
    expectNoConsoleErrors(tab);
    await tab.context.close();
  }, 60_000);
});
