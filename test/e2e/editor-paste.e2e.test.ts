/**
 * Pasting into the rich editor: HTML from Google Docs, Word and web pages becomes clean Markdown
 * (no styles, spans, redirect wrappers or tracking parameters), hostile HTML leaves nothing
 * executable, Markdown text becomes its blocks, and oversized pastes are taken as text. Each case
 * is checked on the saved file's exact bytes.
 */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { clickIntoText, expectNoConsoleErrors, hasChromium, newTab, screenshot, signInInUi } from "./browser.ts";
import { browserSuite } from "./suite.ts";

const GOOGLE_DOCS = `<meta charset="utf-8"><b style="font-weight:normal;" id="docs-internal-guid-5e1c2d3a-7fff-0c3b-9a51-1f2e3d4c5b6a"><h2 dir="ltr" style="line-height:1.38;margin-top:18pt;margin-bottom:6pt;"><span style="font-size:16pt;font-family:Arial,sans-serif;color:#000000;font-weight:400;">Release plan</span></h2><p dir="ltr" style="line-height:1.38;"><span style="font-size:11pt;font-family:Arial,sans-serif;font-weight:700;">Ship</span><span style="font-size:11pt;font-family:Arial,sans-serif;font-weight:400;"> on </span><span style="font-size:11pt;font-family:Arial,sans-serif;font-style:italic;font-weight:400;">Friday</span><span style="font-size:11pt;font-weight:400;">, see </span><a href="https://www.google.com/url?q=https://example.com/notes?utm_source%3Dnewsletter%26id%3D7&amp;sa=D&amp;source=editors&amp;ust=1700000000000000&amp;usg=AOvVaw0" style="text-decoration:none;"><span style="font-size:11pt;color:#1155cc;text-decoration:underline;">the notes</span></a><span style="font-size:11pt;">.</span></p><ul style="margin-top:0;margin-bottom:0;"><li dir="ltr" style="list-style-type:disc;" aria-level="1"><p dir="ltr" role="presentation"><span style="font-size:11pt;">Freeze</span></p></li><li dir="ltr" style="list-style-type:disc;" aria-level="1"><p dir="ltr" role="presentation"><span style="font-size:11pt;">Tag</span></p></li></ul></b>`;

const WORD = `<html xmlns:o="urn:schemas-microsoft-com:office:office" xmlns:w="urn:schemas-microsoft-com:office:word"><head><meta name=Generator content="Microsoft Word 15"><style><!-- p.MsoNormal {margin:0cm;} --></style><!--[if gte mso 9]><xml><w:WordDocument><w:View>Normal</w:View></w:WordDocument></xml><![endif]--></head><body lang=EN-US style='tab-interval:36.0pt'><!--StartFragment--><p class=MsoNormal><b><span style='mso-bidi-font-weight:normal'>Budget</span></b><span style='mso-spacerun:yes'> </span>for <span style='font-family:"Courier New"'>Q3</span><o:p></o:p></p><!--EndFragment--></body></html>`;

const HOSTILE = `<style>p { color: red }</style><script>window.__pwned = 1</script><p style="color: red" onclick="window.__pwned = 2" onmouseover="window.__pwned = 5">Hi <a href="javascript:window.__pwned=3">there</a><img src="x" onerror="window.__pwned = 4"><img src="data:image/png;base64,${"A".repeat(300_000)}" alt="huge"></p><iframe src="https://example.com"></iframe>`;

describe.skipIf(!hasChromium)("pasting into the rich editor", () => {
  const suite = browserSuite();

  const onDisk = (path: string) => readFileSync(join(suite.server.dataDir, "workspaces", suite.user.workspaceId, path), "utf8");

  async function pasteInto(page: Page, data: Record<string, string>): Promise<void> {
    await page.evaluate((items) => {
      const dt = new DataTransfer();
      for (const [type, value] of Object.entries(items)) dt.setData(type, value);
      document.querySelector(".tiptap")!.dispatchEvent(new ClipboardEvent("paste", { clipboardData: dt, bubbles: true, cancelable: true }));
    }, data);
  }

  async function openAt(path: string) {
    expect((await suite.user.client.post(`/api/v1/content/${suite.user.workspaceSlug}/${path}`, { title: "Paste", body: "Start.\n" })).status).toBe(201);
    const tab = await newTab(suite.browser);
    await tab.page.goto(`${suite.server.url}/w/${suite.user.workspaceSlug}/p/${path}`);
    await signInInUi(tab.page, suite.user);
    const editor = tab.page.getByRole("textbox", { name: "Page content" });
    await clickIntoText(editor.getByText("Start."));
    await tab.page.keyboard.press("End");
    await tab.page.keyboard.press("Enter");
    return { tab, editor };
  }

  async function save(page: Page) {
    await page.keyboard.press("Control+s");
    await page.locator('[data-status="saved"]').waitFor({ timeout: 10_000 });
  }

  test("Google Docs: headings, marks from styles, a list, and a link without its redirect or tracking", async () => {
    const { tab, editor } = await openAt("google.md");
    await pasteInto(tab.page, { "text/html": GOOGLE_DOCS, "text/plain": "Release plan\nShip on Friday, see the notes.\nFreeze\nTag" });
    await editor.getByRole("heading", { name: "Release plan" }).waitFor();
    await save(tab.page);
    expect(onDisk("google.md")).toEndWith("Start.\n\n## Release plan\n\n**Ship** on *Friday*, see [the notes](https://example.com/notes?id=7).\n\n- Freeze\n- Tag\n");
    await screenshot(tab.page, "editor-paste-google-docs");
    expectNoConsoleErrors(tab);
    await tab.context.close();
  });

  test("Word: conditional comments, Office elements and styles go; bold and a monospace run stay", async () => {
    const { tab, editor } = await openAt("word.md");
    await pasteInto(tab.page, { "text/html": WORD, "text/plain": "Budget for Q3" });
    await editor.getByText("Budget").waitFor();
    await save(tab.page);
    expect(onDisk("word.md")).toEndWith("Start.\n\n**Budget** for `Q3`\n");
    expectNoConsoleErrors(tab);
    await tab.context.close();
  });

  test("hostile HTML: no script runs, no handler or javascript: link survives, oversized inline images are dropped", async () => {
    const { tab, editor } = await openAt("hostile.md");
    await pasteInto(tab.page, { "text/html": HOSTILE, "text/plain": "Hi there" });
    await editor.getByText("Hi there").waitFor();
    await save(tab.page);
    expect(onDisk("hostile.md")).toEndWith("Start.\n\nHi there\n");
    expect(await tab.page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned ?? null)).toBeNull();
    expectNoConsoleErrors(tab);
    await tab.context.close();
  });

  test("Markdown text becomes its blocks; an oversized HTML paste is taken as its text", async () => {
    const { tab, editor } = await openAt("markdown.md");
    await pasteInto(tab.page, { "text/plain": "## From a README\n\n- one\n- two\n\nSee `code` and **bold**.\n" });
    await editor.getByRole("heading", { name: "From a README" }).waitFor();
    await save(tab.page);
    expect(onDisk("markdown.md")).toEndWith("Start.\n\n## From a README\n\n- one\n- two\n\nSee `code` and **bold**.\n");

    await tab.page.keyboard.press("Control+End");
    await tab.page.keyboard.press("Enter");
    const huge = `<table>${"<tr><td><table><tr><td>cell</td></tr></table></td></tr>".repeat(60_000)}</table>`;
    await pasteInto(tab.page, { "text/html": huge, "text/plain": "plain words only" });
    await editor.getByText("plain words only").waitFor();
    await save(tab.page);
    expect(onDisk("markdown.md")).toEndWith("**bold**.\n\nplain words only\n");
    expectNoConsoleErrors(tab);
    await tab.context.close();
  });
});
