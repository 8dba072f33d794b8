import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Browser, Page } from "playwright-core";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { registerUser, type TestUser } from "../helpers/factories.ts";
import { expectNoConsoleErrors, hasChromium, launch, newTab, screenshot, signInInUi } from "./browser.ts";

/**
 * What has keyboard focus after one Tab, and whether it shows: a focus ring is a visible outline
 * (style not none, width above zero, colour not transparent) or a box-shadow, on the element or —
 * for CodeMirror, which marks focus on its wrapper — on the `.cm-editor` around it.
 */
async function tabOnce(page: Page, reverse = false) {
  await page.keyboard.press(reverse ? "Shift+Tab" : "Tab");
  return page.evaluate(() => {
    const el = document.activeElement as HTMLElement | null;
    if (!el || el === document.body) return { name: "body", ring: false, visible: false };
    const ringOf = (e: Element) => {
      const s = getComputedStyle(e);
      const outline = s.outlineStyle !== "none" && parseFloat(s.outlineWidth) > 0 && s.outlineColor !== "rgba(0, 0, 0, 0)";
      return outline || (s.boxShadow !== "none" && s.boxShadow !== "");
    };
    const host = el.closest(".cm-editor");
    const r = el.getBoundingClientRect();
    const name = `${el.tagName.toLowerCase()}${el.className && typeof el.className === "string" ? "." + el.className.split(" ")[0] : ""} "${(el.getAttribute("aria-label") ?? el.textContent ?? "").trim().slice(0, 30)}"`;
    return {
      name,
      ring: ringOf(el) || (host !== null && ringOf(host)),
      visible: r.width > 0 && r.height > 0 && getComputedStyle(el).opacity !== "0",
      inEditor: el.classList.contains("tiptap") || host !== null,
    };
  });
}

describe.skipIf(!hasChromium)("visible keyboard focus", () => {
  let server: TestServer;
  let browser: Browser;
  let user: TestUser;
  beforeAll(async () => {
    [server, browser] = await Promise.all([startTestServer(), launch()]);
    user = await registerUser(server.url, { name: "Kim Keys" });
    expect((await user.client.post(`/api/v1/content/${user.workspaceSlug}/keys.md`, { title: "Keys", body: "# Keys\n\nText.\n" })).status).toBe(201);
  }, 30_000);
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  for (const scheme of ["light", "dark"] as const) {
    test(`every control of the shell and the editor shows a focus ring when tabbed to (${scheme})`, async () => {
      const tab = await newTab(browser);
      const { page } = tab;
      await page.emulateMedia({ colorScheme: scheme });
      await page.goto(`${server.url}/w/${user.workspaceSlug}/p/keys.md`);
      await signInInUi(page, user);
      await page.locator("#page-title").getByText("Keys").waitFor();
      await page.locator(".rich-editor .tiptap").waitFor();
      await page.reload();
      await page.locator(".rich-editor .tiptap").waitFor();

      // Forward from the top of the page through the top bar, the tree, the page actions and the
      // toolbar into the rich editor.
      const seen: string[] = [];
      const missing: string[] = [];
      let reachedEditor = false;
      for (let i = 0; i < 80 && !reachedEditor; i++) {
        const f = await tabOnce(page);
        if (f.name === "body") continue;
        seen.push(f.name);
        if (!f.ring || !f.visible) missing.push(f.name);
        if (f.inEditor) reachedEditor = true;
        if (i === 12) await screenshot(page, `31-focus-${scheme}`);
      }
      expect(reachedEditor).toBe(true);
      expect(seen.length).toBeGreaterThan(15);
      expect(seen.some((s) => s.includes("Skip to content"))).toBe(true);
      expect(seen.some((s) => s.includes("Actions for Keys"))).toBe(true);
      expect(missing).toEqual([]);

      // The source editor: the </> toggle and CodeMirror's content.
      await page.getByRole("button", { name: /source|raw|<\/>/i }).first().click();
      await page.locator(".cm-content").waitFor();
      await page.locator(".cm-content").focus();
      await page.keyboard.press("Shift+Tab");
      const back = await tabOnce(page);
      expect(back.inEditor).toBe(true);
      expect(back.ring).toBe(true);
      expectNoConsoleErrors(tab);
      await tab.context.close();
    }, 60_000);
  }
});
