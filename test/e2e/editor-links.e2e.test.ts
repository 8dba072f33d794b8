/**
 * Wikilinks in the rich editor, in Chromium: each shows as a chip with the linked page's title, a
 * link to no page is marked, `[[` opens a fuzzy page picker and a typed `[[…]]` becomes a chip; the
 * file keeps the links as written (read through the API). Markdown links are edited in place, drawn
 * without an address the browser would watch (link-view.ts) and copied out with it.
 */
import { describe, expect, test } from "bun:test";
import { caretTaken, EDITOR_PARAGRAPHS, expectNoConsoleErrors, hasChromium, screenshot } from "./browser.ts";
import { browserSuite, openInEditor } from "./suite.ts";

const LINKS = "See [[handbook/target-page]], [[missing/page|Gone]], [[handbook/target-page#intro|Intro]] and [[../etc/passwd]].\n";

describe.skipIf(!hasChromium)("wikilinks in the rich editor", () => {
  const suite = browserSuite(async (s) => {
    for (const [path, title] of [["handbook/target-page.md", "Target page"], ["handbook/other-guide.md", "Other guide"]] as const) {
      expect((await s.user.client.post(`/api/v1/content/${s.user.workspaceSlug}/${path}`, { title, body: "x\n" })).status).toBe(201);
    }
  });
  const content = suite.content;

  test("chips show titles, dead links are marked, the picker matches fuzzily and a typed [[…]] becomes a chip", async () => {
    const tab = await openInEditor(suite, "links.md", { title: "Links", body: LINKS });
    const { page, editor } = tab;
    const chips = editor.locator(".wikilink");
    await chips.first().waitFor();
    await editor.locator(".wikilink-dead").first().waitFor();
    expect(await chips.evaluateAll((els) => els.map((e) => [e.textContent, e.classList.contains("wikilink-dead"), e.getAttribute("data-target")]))).toEqual([
      ["Target page", false, "handbook/target-page"],
      ["Gone (missing page)", true, "missing/page"],
      ["Intro", false, "handbook/target-page#intro"],
      ["../etc/passwd (missing page)", true, "../etc/passwd"],
    ]);
    await page.waitForTimeout(300);
    expect(await page.locator(".save-status").getAttribute("data-status")).toBe("saved");
    await screenshot(page, "62-wikilink-chips");

    // The paragraph is mostly chips: click its plain start, then go to its end.
    await editor.locator("p").first().click({ position: { x: 3, y: 6 } });
    // Keys sent before the editor takes the click's caret act at its old one (see clickIntoText):
    // go to the end once the click has landed, and go on once the caret is there.
    type View = { hasFocus(): boolean; state: { selection: { head: number }; doc: { content: { size: number } } } };
    await page.waitForFunction(() => {
      const v = (document.querySelector(".tiptap") as unknown as { editor?: { view: View } }).editor?.view;
      return !!v && v.hasFocus() && v.state.selection.head > 0;
    });
    await page.keyboard.press("Control+End");
    await page.waitForFunction(() => {
      const v = (document.querySelector(".tiptap") as unknown as { editor?: { view: View } }).editor?.view;
      return !!v && v.state.selection.head === v.state.doc.content.size - 1;
    });
    await page.keyboard.press("Enter");
    await page.keyboard.type("Also [[");
    const picker = page.getByRole("dialog", { name: "Link to a page" });
    await picker.getByRole("combobox", { name: "Find a page to link" }).waitFor();
    await page.keyboard.type("othgd");
    await picker.getByRole("option", { name: /Other guide/ }).waitFor();
    await page.keyboard.press("Enter");
    await picker.waitFor({ state: "detached" });
    await page.waitForFunction(() => document.activeElement?.classList.contains("tiptap") ?? false);
    await page.keyboard.type(" and ");
    // A complete link typed by hand: the picker opened by "[[" is closed with Esc, the text typed on.
    await page.keyboard.type("[[");
    await picker.waitFor();
    await page.keyboard.press("Escape");
    await picker.waitFor({ state: "detached" });
    await page.waitForFunction(() => document.activeElement?.classList.contains("tiptap") ?? false);
    await page.keyboard.type("nowhere|Typed]]");
    await editor.locator(".wikilink-dead", { hasText: "Typed" }).waitFor();
    await page.keyboard.type(".");
    await page.keyboard.press("Control+s");
    await page.locator('[data-status="saved"]').waitFor({ timeout: 10_000 });
    expect(await content("links.md")).toBe(LINKS + "\nAlso [[handbook/other-guide]] and [[nowhere|Typed]].\n");
    expectNoConsoleErrors(tab);
    await tab.context.close();
  }, 60_000);

  test("a Markdown link is edited in place: its address under the caret, applied with Enter, or removed", async () => {
    const BODY = "See [the docs](https://example.com/a) here.\n\nThen [a guide](guide.md \"Guide\") too.\n";
    const tab = await openInEditor(suite, "md-links.md", { title: "Md links", body: BODY });
    const { page, editor } = tab;
    await editor.getByText("the docs").click();
    const popover = page.getByRole("dialog", { name: "Edit link" });
    const address = popover.getByRole("textbox", { name: "Link address" });
    await expect(address.inputValue()).resolves.toBe("https://example.com/a");
    expect(await popover.getByRole("link", { name: "Open" }).getAttribute("href")).toBe("https://example.com/a");
    await screenshot(page, "68-link-popover");
    await address.fill("https://example.com/b");
    await address.press("Enter");
    await popover.waitFor({ state: "detached" });
    await editor.getByText("a guide").click();
    await popover.getByRole("button", { name: "Remove link" }).click();
    await page.keyboard.press("Control+s");
    await page.locator('[data-status="saved"]').waitFor({ timeout: 10_000 });
    expect(await content("md-links.md")).toBe("See [the docs](https://example.com/b) here.\n\nThen a guide too.\n");
    expectNoConsoleErrors(tab);
    await tab.context.close();
  }, 60_000);

  test("a link is drawn without an address the browser would watch, and copied out with it", async () => {
    const BODY = 'See [the docs](https://example.com/a) and [a guide](guide.md "Guide").\n';
    const tab = await openInEditor(suite, "drawn-links.md", { title: "Drawn links", body: BODY });
    const { page, editor } = tab;
    await editor.getByRole("link", { name: "the docs" }).waitFor();
    // No href in the editing surface (link-view.ts): the address is in data-href and the tooltip.
    expect(await editor.locator("a[href]").count()).toBe(0);
    expect(await editor.getByRole("link").evaluateAll((els) => els.map((e) => [e.textContent, e.getAttribute("data-href"), e.getAttribute("title")]))).toEqual([
      ["the docs", "https://example.com/a", "https://example.com/a"],
      ["a guide", "guide.md", "Guide"],
    ]);

    // Copied, the links keep their addresses (the schema's rendering, not the editing surface's).
    await page.evaluate(() => document.addEventListener("copy", (e) => ((window as unknown as { copied: string }).copied = e.clipboardData?.getData("text/html") ?? "")));
    await editor.getByText("the docs").click();
    await page.keyboard.press("Control+a");
    await page.keyboard.press("Control+c");
    const copied = await page.waitForFunction(() => (window as unknown as { copied?: string }).copied).then((h) => h.jsonValue() as Promise<string>);
    expect(copied).toContain('href="https://example.com/a"');
    expect(copied).toContain('href="guide.md"');

    // Pasted back as a new paragraph, they are links again, and the file says so.
    // Enter waits until the editor holds the caret Control+End moved (caretTaken: sent sooner, it
    // acts at the editor's previous selection), and the paste until the new paragraph is there.
    await page.keyboard.press("Control+End");
    await caretTaken(page);
    await page.keyboard.press("Enter");
    await page.waitForFunction((paragraphs) => document.querySelectorAll(paragraphs).length === 2, EDITOR_PARAGRAPHS);
    await page.evaluate((html) => {
      const data = new DataTransfer();
      data.setData("text/html", html);
      data.setData("text/plain", "See the docs and a guide.");
      document.querySelector(".tiptap")!.dispatchEvent(new ClipboardEvent("paste", { clipboardData: data, bubbles: true, cancelable: true }));
    }, copied);
    await expect(editor.getByRole("link", { name: "the docs" }).count()).resolves.toBe(2);
    await page.keyboard.press("Control+s");
    await page.locator('[data-status="saved"]').waitFor({ timeout: 10_000 });
    expect(await content("drawn-links.md")).toBe(BODY + "\n" + BODY);
    expect(await editor.locator("a[href]").count()).toBe(0);
    expectNoConsoleErrors(tab);
    await tab.context.close();
  }, 60_000);
});
