import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { Browser } from "playwright-core";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { registerUser, type TestUser } from "../helpers/factories.ts";
import { clickIntoText, hasChromium, launch, newTab, screenshot, signInInUi, expectNoConsoleErrors } from "./browser.ts";

// A 1×1 PNG.
const PNG_B64 = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";

describe.skipIf(!hasChromium)("editor extras in a real browser", () => {
  let server: TestServer;
  let browser: Browser;
  let user: TestUser;
  beforeAll(async () => {
    [server, browser] = await Promise.all([startTestServer(), launch()]);
    user = await registerUser(server.url);
    expect((await user.client.post(`/api/v1/content/${user.workspaceSlug}/handbook/target-page.md`, { title: "Target page", body: "x\n" })).status).toBe(201);
    expect((await user.client.post(`/api/v1/content/${user.workspaceSlug}/host.md`, { title: "Host", body: "Intro.\n" })).status).toBe(201);
  }, 30_000);
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  const onDisk = (path: string) => readFileSync(join(server.dataDir, "workspaces", user.workspaceId, path), "utf8");

  test("[[ opens the page picker and inserts a wikilink; a pasted and a dropped image are uploaded and linked; frontmatter form", async () => {
    const tab = await newTab(browser);
    const { page } = tab;
    await page.goto(`${server.url}/w/${user.workspaceSlug}/p/host.md`);
    await signInInUi(page, user);
    const editor = page.getByRole("textbox", { name: "Page content" });
    await clickIntoText(editor.getByText("Intro."));
    await page.keyboard.press("End");
    await page.keyboard.type(" See [[");
    const picker = page.getByRole("dialog", { name: "Link to a page" });
    await picker.getByRole("combobox", { name: "Find a page to link" }).waitFor();
    await page.keyboard.type("targ");
    await picker.getByRole("option", { name: /Target page/ }).waitFor();
    await screenshot(page, "21-page-picker");
    await page.keyboard.press("Enter");
    await picker.waitFor({ state: "detached" });
    // The picked link hands focus back to the text; type once it is there.
    await page.waitForFunction(() => document.activeElement?.classList.contains("tiptap") ?? false);
    await page.keyboard.type(" now.");
    await page.keyboard.press("Control+s");
    await page.locator('[data-status="saved"]').waitFor({ timeout: 10_000 });
    expect(onDisk("host.md")).toEndWith("Intro. See [[handbook/target-page]] now.\n");

    // Paste an image: it is uploaded (progress shown) and the page links the stored file.
    await page.evaluate((b64) => {
      const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
      const dt = new DataTransfer();
      dt.items.add(new File([bytes], "pasted-dot.png", { type: "image/png" }));
      document.querySelector(".tiptap")!.dispatchEvent(new ClipboardEvent("paste", { clipboardData: dt, bubbles: true, cancelable: true }));
    }, PNG_B64);
    const pasted = editor.locator('img[alt="pasted-dot"]');
    await pasted.waitFor();
    await page.waitForFunction(() => (document.querySelector('img[alt="pasted-dot"]') as HTMLImageElement | null)?.src.startsWith("blob:"));
    expect(await pasted.getAttribute("data-src")).toMatch(new RegExp(`^/api/v1/content/${user.workspaceSlug}/uploads/`));

    // Drop another one onto the text.
    const box = (await editor.getByText("Intro.").boundingBox())!;
    await page.evaluate(
      ({ b64, x, y }) => {
        const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
        const dt = new DataTransfer();
        dt.items.add(new File([bytes], "dropped-dot.png", { type: "image/png" }));
        document.querySelector(".tiptap")!.dispatchEvent(new DragEvent("drop", { dataTransfer: dt, clientX: x, clientY: y, bubbles: true, cancelable: true }));
      },
      { b64: PNG_B64, x: box.x + 5, y: box.y + box.height / 2 },
    );
    await editor.locator('img[alt="dropped-dot"]').waitFor();
    await page.keyboard.press("Control+s");
    await page.locator('[data-status="saved"]').waitFor({ timeout: 10_000 });
    const text = onDisk("host.md");
    const links = [...text.matchAll(/!\[(pasted-dot|dropped-dot)\]\((\/api\/v1\/content\/[^)]+)\)/g)].map((m) => m[1]);
    expect(links.sort()).toEqual(["dropped-dot", "pasted-dot"]);
    const stored = readdirSync(join(server.dataDir, "workspaces", user.workspaceId), { recursive: true }).map(String).filter((f) => f.endsWith(".png"));
    expect(stored.length).toBe(2);

    // The source editor offers the same: [[ picker and pasted images as Markdown.
    await page.getByRole("button", { name: "Switch to Markdown source" }).click();
    const source = page.getByRole("textbox", { name: "Markdown source" });
    await source.click();
    await page.keyboard.press("Control+End");
    await page.keyboard.type("\nRaw link [[");
    await picker.getByRole("combobox", { name: "Find a page to link" }).waitFor();
    await page.keyboard.type("target");
    await picker.getByRole("option", { name: /Target page/ }).waitFor();
    await page.keyboard.press("Enter");
    await picker.waitFor({ state: "detached" });
    await page.evaluate((b64) => {
      const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
      const dt = new DataTransfer();
      dt.items.add(new File([bytes], "raw-dot.png", { type: "image/png" }));
      document.querySelector(".cm-content")!.dispatchEvent(new ClipboardEvent("paste", { clipboardData: dt, bubbles: true, cancelable: true }));
    }, PNG_B64);
    await page.locator(".cm-line", { hasText: "![raw-dot](/api/v1/content/" }).waitFor();
    await page.keyboard.press("Control+s");
    await page.locator('[data-status="saved"]').waitFor({ timeout: 10_000 });
    expect(onDisk("host.md")).toMatch(/\nRaw link \[\[handbook\/target-page\]\]!\[raw-dot\]\(\/api\/v1\/content\/[^)]+\.png\)\n?$/);
    await page.getByRole("button", { name: "Switch to rich editor" }).click();
    await editor.waitFor();

    // The collapsible frontmatter form edits only the frontmatter.
    await page.getByText("Page settings").click();
    const form = page.locator("details.frontmatter");
    await form.getByLabel("Description").fill("A host page");
    await form.getByLabel("Tags").fill("guide, demo");
    await form.getByRole("button", { name: "Save settings" }).click();
    await form.getByText("Page settings saved.").waitFor();
    const saved = (await user.client.get(`/api/v1/content/${user.workspaceSlug}/host.md`)).body;
    expect(saved.description).toBe("A host page");
    expect(saved.tags).toEqual(["guide", "demo"]);
    expect(saved.content).toContain("See [[handbook/target-page]] now.");
    await screenshot(page, "22-editor-extras");
    expectNoConsoleErrors(tab);
    await tab.context.close();
  }, 60_000);
});
