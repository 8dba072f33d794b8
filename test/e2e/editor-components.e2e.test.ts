/**
 * Components as blocks in the rich editor, in Chromium: a callout shows its type picker and a body
 * edited richly; changing either rewrites only its own line (read through the API). Hostile
 * attributes stay inert text. Screenshots in light, dark and at a phone width.
 */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import type { Page } from "playwright-core";
import { clickIntoText, expectNoConsoleErrors, hasChromium, newTab, screenshot, signInInUi } from "./browser.ts";
import { browserSuite, openInEditor } from "./suite.ts";

const AXE = readFileSync(require.resolve("axe-core/axe.min.js"), "utf8");

/** Serious and critical WCAG 2.1 A/AA violations axe-core finds, by rule and target. */
async function axeViolations(page: Page): Promise<string[]> {
  return page.evaluate(async (source) => {
    (0, eval)(source);
    const axe = (window as unknown as { axe: { run(o: object): Promise<{ violations: Array<{ id: string; impact: string; nodes: Array<{ target: string[] }> }> }> } }).axe;
    const result = await axe.run({ runOnly: { type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"] } });
    return result.violations.filter((v) => v.impact === "serious" || v.impact === "critical" || v.id === "label-content-name-mismatch").flatMap((v) => v.nodes.map((n) => `${v.id}: ${n.target.join(" ")}`));
  }, AXE);
}

const PAGE =
  'Intro.\n\n:::callout[warning]{title="Careful"}\nA **bold** start.\n\nSecond  line, spaced *oddly*.\n:::\n\n' +
  ':::callout[note]{title="<img src=x onerror=window.__pwned=1>"}\nA <script>window.__pwned=2</script> body.\n:::\n\nAfter.\n';

describe.skipIf(!hasChromium)("components in the rich editor", () => {
  const suite = browserSuite();
  const content = suite.content;

  test("a callout's type and body are edited in place; only the changed lines are rewritten; hostile attributes stay text", async () => {
    const tab = await openInEditor(suite, "callouts.md", { title: "Callouts", body: PAGE });
    const { page, editor } = tab;
    const callouts = editor.locator(".callout-block");
    await callouts.first().waitFor();
    expect(await callouts.count()).toBe(2);
    await page.waitForTimeout(300);
    expect(await page.locator(".save-status").getAttribute("data-status")).toBe("saved");
    // The hostile title is shown as text; nothing it holds ran.
    expect(await callouts.nth(1).locator(".callout-title").textContent()).toBe("<img src=x onerror=window.__pwned=1>");
    expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
    await screenshot(page, "63-callout-light");

    await callouts.first().getByRole("combobox", { name: "Callout type" }).selectOption("danger");
    await clickIntoText(callouts.first().getByText("start."));
    await page.keyboard.press("End");
    await page.keyboard.type(" Still careful.");
    await page.keyboard.press("Control+s");
    await page.locator('[data-status="saved"]').waitFor({ timeout: 10_000 });
    expect(await content("callouts.md")).toBe(PAGE.replace(":::callout[warning]", ":::callout[danger]").replace("A **bold** start.", "A **bold** start. Still careful."));

    // Dark theme and a phone width, for the record.
    await page.emulateMedia({ colorScheme: "dark" });
    await screenshot(page, "64-callout-dark");
    await page.setViewportSize({ width: 390, height: 800 });
    await screenshot(page, "65-callout-phone");
    expectNoConsoleErrors(tab);
    await tab.context.close();
  }, 60_000);

  const TABS = "Intro.\n\n:::tabs\n::tab[macOS]\nbrew install quire\n::\n\n::tab[Linux]{default}\nRun  *this*.\n::\n:::\n\n:::steps\n::step[Write]\nA page.\n::\n:::\n\nAfter.\n";

  test("tabs show one panel at a time; a tab is renamed, edited and added; only those lines change", async () => {
    const tab = await openInEditor(suite, "tabs.md", { title: "Tabs", body: TABS });
    const { page, editor } = tab;
    const tabs = editor.locator(".tabs-block");
    await tabs.waitFor();
    await expect(tabs.getByText("brew install quire").isVisible()).resolves.toBe(true);
    await expect(tabs.getByText("Run").isVisible()).resolves.toBe(false);
    await tabs.getByRole("tab", { name: "Linux" }).click();
    await expect(tabs.getByText("brew install quire").isVisible()).resolves.toBe(false);
    // Only the shown panel's title field is there to find.
    await tabs.getByRole("textbox", { name: "Tab title" }).fill("Ubuntu");
    await clickIntoText(tabs.getByText("Run"));
    await page.keyboard.press("End");
    await page.keyboard.type(" Now.");
    await screenshot(page, "66-tabs");
    await tabs.getByRole("button", { name: "Add tab" }).click();
    await tabs.getByRole("tab", { name: "Tab 3", selected: true }).waitFor();
    await page.waitForFunction(() => document.activeElement?.classList.contains("tiptap") ?? false);
    await page.keyboard.type("Use the installer.");
    await editor.locator(".steps-block").getByRole("textbox", { name: "Step title" }).fill("Draft");
    await page.keyboard.press("Control+s");
    await page.locator('[data-status="saved"]').waitFor({ timeout: 10_000 });
    expect(await content("tabs.md")).toBe(
      TABS.replace("::tab[Linux]{default}\nRun  *this*.\n::", "::tab[Ubuntu]{default}\nRun  *this*. Now.\n::\n\n::tab[Tab 3]\nUse the installer.\n::").replace("::step[Write]", "::step[Draft]"),
    );
    expectNoConsoleErrors(tab);
    await tab.context.close();
  }, 60_000);

  test("an api badge's method and path are picked and typed; only its opening line changes", async () => {
    const API = "Intro.\n\n:::api[GET /api/v1/pages]\nLists the  pages.\n:::\n";
    expect((await suite.user.client.post(`/api/v1/content/${suite.user.workspaceSlug}/api.md`, { title: "Api", body: API })).status).toBe(201);
    const tab = await newTab(suite.browser);
    const { page } = tab;
    await page.goto(`${suite.server.url}/w/${suite.user.workspaceSlug}/p/api.md`);
    await signInInUi(page, suite.user);
    const block = page.getByRole("textbox", { name: "Page content" }).locator(".api-block");
    await block.waitFor();
    await block.getByRole("combobox", { name: "HTTP method" }).selectOption("DELETE");
    await block.getByRole("textbox", { name: "Endpoint path" }).fill("/api/v1/pages/{id}");
    await screenshot(page, "67-api-badge");
    await page.keyboard.press("Control+s");
    await page.locator('[data-status="saved"]').waitFor({ timeout: 10_000 });
    expect(await content("api.md")).toBe("Intro.\n\n:::api[DELETE /api/v1/pages/{id}]\nLists the  pages.\n:::\n");
    expectNoConsoleErrors(tab);
    await tab.context.close();
  }, 60_000);

  test("rich ↔ raw switching leaves a page of tables and components unchanged; undo restores the exact bytes", async () => {
    const BODY = TABS + "\n| a | b |\n|:-|-:|\n| 1 | 2 |\n\n:::callout[tip]\nTip  text.\n:::\n\n:::mystery[x]\nUnknown.\n:::\n";
    const tab = await openInEditor(suite, "switch.md", { title: "Switch", body: BODY });
    const { page, editor } = tab;
    await editor.locator(".tabs-block").waitFor();
    // The unknown component says why it is shown as source, in the renderer's words.
    await page.getByRole("note").filter({ hasText: 'unknown component "mystery"' }).waitFor();
    await page.getByRole("button", { name: "Switch to Markdown source" }).click();
    await page.getByRole("textbox", { name: "Markdown source" }).waitFor();
    await page.getByRole("button", { name: "Switch to rich editor" }).click();
    await editor.locator(".tabs-block").waitFor();
    await page.waitForTimeout(300);
    expect(await page.locator(".save-status").getAttribute("data-status")).toBe("saved");

    // Edits in a table cell, a callout and a tab, each undone: the file is back to its bytes.
    await clickIntoText(editor.getByText("Tip  text."));
    await page.keyboard.press("End");
    await page.keyboard.type(" more");
    await clickIntoText(editor.getByRole("cell", { name: "2" }));
    await page.keyboard.press("End");
    await page.keyboard.type("3");
    await page.locator('[data-status="unsaved"]').waitFor();
    for (let i = 0; i < 12; i++) await page.keyboard.press("Control+z");
    await page.keyboard.press("Control+s");
    await page.locator('[data-status="saved"]').waitFor({ timeout: 10_000 });
    expect(await content("switch.md")).toBe(BODY);
    expectNoConsoleErrors(tab);
    await tab.context.close();
  }, 60_000);

  test("pasted HTML with scripts, event handlers and javascript: links leaves nothing that runs", async () => {
    const tab = await openInEditor(suite, "paste.md", { title: "Paste", body: "Start.\n" });
    const { page, editor } = tab;
    await clickIntoText(editor.getByText("Start."));
    await page.keyboard.press("End");
    await page.keyboard.press("Enter");
    await page.evaluate(() => {
      const dt = new DataTransfer();
      dt.setData("text/html", '<p style="color:red" onclick="window.__pwned=1">Safe <b>bold</b> <a href="javascript:window.__pwned=2">bad link</a> <img src=x onerror="window.__pwned=3"></p><script>window.__pwned=4</script><h2>Heading</h2>');
      dt.setData("text/plain", "Safe bold bad link");
      document.querySelector(".tiptap")!.dispatchEvent(new ClipboardEvent("paste", { clipboardData: dt, bubbles: true, cancelable: true }));
    });
    await editor.getByRole("heading", { name: "Heading" }).waitFor();
    await page.keyboard.press("Control+s");
    await page.locator('[data-status="saved"]').waitFor({ timeout: 10_000 });
    const saved = await content("paste.md");
    expect(saved).toStartWith("Start.\n\nSafe **bold** bad link");
    expect(saved).toContain("## Heading");
    expect(saved).not.toMatch(/javascript:|onclick|onerror|<script|style=/i);
    expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
    expectNoConsoleErrors(tab);
    await tab.context.close();
  }, 60_000);

  test("an embed line is a block: its address is edited in a field, with the site's verdict beside it", async () => {
    const BODY = 'Intro.\n\n::embed[https://example.com/video]{title="A video"}\n\nAfter.\n';
    expect((await suite.user.client.post(`/api/v1/content/${suite.user.workspaceSlug}/embed.md`, { title: "Embed", body: BODY })).status).toBe(201);
    const tab = await newTab(suite.browser);
    const { page } = tab;
    await page.goto(`${suite.server.url}/w/${suite.user.workspaceSlug}/p/embed.md`);
    await signInInUi(page, suite.user);
    const block = page.getByRole("textbox", { name: "Page content" }).locator(".embed-block");
    await block.getByRole("status").filter({ hasText: "shown as a link" }).waitFor();
    await block.getByRole("textbox", { name: "Embed address" }).fill("https://vimeo.com/76979871");
    await block.getByRole("status").filter({ hasText: "Vimeo video: shown as a player on the site" }).waitFor();
    await page.keyboard.press("Control+s");
    await page.locator('[data-status="saved"]').waitFor({ timeout: 10_000 });
    expect(await content("embed.md")).toBe(BODY.replace("https://example.com/video", "https://vimeo.com/76979871"));
    expectNoConsoleErrors(tab);
    await tab.context.close();
  }, 60_000);

  test("math shows a live preview, loaded only on a page with math; a bad formula says why in place", async () => {
    const BODY = "Intro.\n\n:::katex\nx^2\n:::\n";
    expect((await suite.user.client.post(`/api/v1/content/${suite.user.workspaceSlug}/math.md`, { title: "Math", body: BODY })).status).toBe(201);
    expect((await suite.user.client.post(`/api/v1/content/${suite.user.workspaceSlug}/plain.md`, { title: "Plain", body: "No math here.\n" })).status).toBe(201);
    const tab = await newTab(suite.browser);
    const { page } = tab;
    const scripts: Array<Promise<string>> = [];
    page.on("response", (r) => {
      if (r.url().endsWith(".js")) scripts.push(r.text().catch(() => ""));
    });
    await page.goto(`${suite.server.url}/w/${suite.user.workspaceSlug}/p/plain.md`);
    await signInInUi(page, suite.user);
    const editor = page.getByRole("textbox", { name: "Page content" });
    await editor.getByText("No math here.").waitFor();
    const hasKatex = async () => (await Promise.all(scripts)).some((t) => t.includes("KaTeX parse error"));
    expect(await hasKatex()).toBe(false);

    await page.getByRole("treeitem", { name: /Math/ }).getByRole("link").click();
    const block = editor.locator(".katex-block");
    await block.locator("math").waitFor();
    expect(await hasKatex()).toBe(true);
    await clickIntoText(block.locator(".source-text").getByText("x^2"));
    await page.keyboard.press("End");
    await page.keyboard.type(" + \\frac{");
    await block.locator(".source-error").waitFor();
    await page.keyboard.type("1}{2}");
    await block.locator(".source-error").waitFor({ state: "detached" });
    await screenshot(page, "69-math-preview");
    await page.keyboard.press("Control+s");
    await page.locator('[data-status="saved"]').waitFor({ timeout: 10_000 });
    expect(await content("math.md")).toBe("Intro.\n\n:::katex\nx^2 + \\frac{1}{2}\n:::\n");
    expectNoConsoleErrors(tab);
    await tab.context.close();
  }, 60_000);

  test("the starter Components page: every component as a block, no serious axe violation, in light, dark and at a phone width", async () => {
    const tab = await newTab(suite.browser);
    const { page } = tab;
    await page.goto(`${suite.server.url}/w/${suite.user.workspaceSlug}/p/components.md`);
    await signInInUi(page, suite.user);
    const editor = page.getByRole("textbox", { name: "Page content" });
    await editor.locator(".tabs-block").waitFor();
    for (const kind of ["callout", "tabs", "accordion", "cards", "steps", "api", "filetree", "toc", "mermaid", "katex", "embed"]) expect(await editor.locator(`.${kind}-block`).count()).toBeGreaterThan(0);
    await editor.locator(".katex-block math").waitFor();
    await page.waitForTimeout(300);
    expect(await page.locator(".save-status").getAttribute("data-status")).toBe("saved");
    expect(await axeViolations(page)).toEqual([]);
    await screenshot(page, "70-components-light");
    await page.emulateMedia({ colorScheme: "dark" });
    await screenshot(page, "71-components-dark");
    await page.setViewportSize({ width: 390, height: 800 });
    await screenshot(page, "72-components-phone");
    expectNoConsoleErrors(tab);
    await tab.context.close();
  }, 60_000);
});
