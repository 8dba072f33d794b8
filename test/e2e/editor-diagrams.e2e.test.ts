/**
 * Mermaid diagrams in the rich editor, in Chromium: the source on the left, the drawing beside it
 * in a sandboxed frame of its own (the app's CSP stays strict: no console error, no violation),
 * Mermaid loaded only on a page with a diagram, a syntax error shown in place, and the file
 * written back with only the edited line changed.
 */
import { describe, expect, test } from "bun:test";
import { clickIntoText, expectNoConsoleErrors, hasChromium, newTab, screenshot, signInInUi } from "./browser.ts";
import { browserSuite, openInEditor } from "./suite.ts";
import { axeViolations } from "./axe.ts";

const BODY = "Intro.\n\n:::mermaid\ngraph TD\n  A[Write] --> B[Publish]\n:::\n\nAfter.\n";

describe.skipIf(!hasChromium)("diagrams in the rich editor", () => {
  const suite = browserSuite(async (s) => {
    for (const [path, title, body] of [
      ["diagram.md", "Diagram", BODY],
      ["plain.md", "Plain", "No diagram here.\n"],
    ] as const) {
      expect((await s.user.client.post(`/api/v1/content/${s.user.workspaceSlug}/${path}`, { title, body })).status).toBe(201);
    }
  });

  test("a diagram is drawn beside its source; an error says why in place; only the edited line changes", async () => {
    const tab = await newTab(suite.browser);
    const { page } = tab;
    const requests: string[] = [];
    page.on("request", (r) => requests.push(new URL(r.url()).pathname));
    const violations: string[] = [];
    await page.exposeFunction("__violation", (v: string) => violations.push(v));
    await page.addInitScript(() => document.addEventListener("securitypolicyviolation", (e) => (window as unknown as { __violation(v: string): void }).__violation(`${e.violatedDirective} ${e.blockedURI}`)));

    await page.goto(`${suite.server.url}/w/${suite.user.workspaceSlug}/p/plain.md`);
    await signInInUi(page, suite.user);
    const editor = page.getByRole("textbox", { name: "Page content" });
    await editor.getByText("No diagram here.").waitFor();
    await page.waitForTimeout(300);
    expect(requests.filter((p) => p.includes("mermaid") || p.includes("diagram"))).toEqual([]);

    await page.getByRole("treeitem", { name: /Diagram/ }).getByRole("link").click();
    const block = editor.locator(".mermaid-block");
    await block.waitFor();
    const preview = block.locator(".diagram-preview");
    await preview.locator('xpath=self::*[@data-drawn="true"]').waitFor({ timeout: 20_000 });
    expect(requests).toContain("/_app/vendor/mermaid.js");
    // The drawing is in the frame, with Mermaid's own text in it; the frame is sandboxed and sized to it.
    const frameEl = block.getByTitle("Diagram preview");
    expect(await frameEl.getAttribute("sandbox")).toBe("allow-scripts");
    expect((await frameEl.boundingBox())!.height).toBeGreaterThan(40);
    const frame = page.frameLocator(".mermaid-block iframe");
    await frame.locator("svg").getByText("Publish").waitFor();
    // Source on the left, drawing on the right.
    const source = (await block.locator(".source-text").boundingBox())!;
    const drawing = (await frameEl.boundingBox())!;
    expect(drawing.x).toBeGreaterThan(source.x + source.width - 1);
    await page.waitForTimeout(300);
    expect(await page.locator(".save-status").getAttribute("data-status")).toBe("saved");
    await screenshot(page, "73-diagram-light");
    expect(await axeViolations(page)).toEqual([]);

    // A syntax error is shown in place, then cleared when the source is right again.
    // Into the source's last line (the click lands on the box's lower edge), then to its end.
    const pre = block.locator(".source-text");
    const box = (await pre.boundingBox())!;
    await page.mouse.click(box.x + 20, box.y + box.height - 12);
    await clickIntoText(pre);
    await page.mouse.click(box.x + 20, box.y + box.height - 12);
    await page.keyboard.press("End");
    await page.keyboard.type(" -->");
    await block.locator(".source-error").filter({ hasText: /Parse error|error/i }).waitFor({ timeout: 10_000 });
    expect(await preview.getAttribute("data-stale")).toBe("true");
    await page.keyboard.type(" C[Read]");
    await block.locator(".source-error").waitFor({ state: "hidden", timeout: 10_000 });
    await frame.locator("svg").getByText("Read").waitFor();
    await page.keyboard.press("Control+s");
    await page.locator('[data-status="saved"]').waitFor({ timeout: 10_000 });
    expect(await suite.content("diagram.md")).toBe(BODY.replace("B[Publish]\n", "B[Publish] --> C[Read]\n"));

    // Dark theme (Mermaid's dark theme on the next drawing) and a phone width: the drawing goes under the source.
    await page.emulateMedia({ colorScheme: "dark" });
    await page.keyboard.type(" ");
    await frame.locator('html[data-theme="dark"]').waitFor();
    await screenshot(page, "74-diagram-dark");
    await page.setViewportSize({ width: 390, height: 800 });
    await page.waitForTimeout(200);
    const narrowSource = (await block.locator(".source-text").boundingBox())!;
    const narrowDrawing = (await frameEl.boundingBox())!;
    expect(narrowDrawing.y).toBeGreaterThanOrEqual(narrowSource.y + narrowSource.height - 1);
    await screenshot(page, "75-diagram-phone");

    // The frame is another origin to the app: nothing drawn in it can reach the app's document.
    const drawn = page.frames().find((f) => f.url().endsWith("/_app/diagram.html"))!;
    expect(await drawn.evaluate(() => {
      try {
        return parent.document.title;
      } catch {
        return "refused";
      }
    })).toBe("refused");
    expect(await drawn.evaluate(() => {
      try {
        return String(localStorage.length);
      } catch {
        return "refused";
      }
    })).toBe("refused");

    expect(violations).toEqual([]);
    expectNoConsoleErrors(tab);
    await tab.context.close();
  }, 90_000);

  test("the slash menu inserts a diagram, drawn as soon as it is there", async () => {
    const tab = await openInEditor(suite, "new-diagram.md", { title: "New diagram", body: "Start.\n" });
    const { page, editor } = tab;
    await clickIntoText(editor.getByText("Start."));
    await page.keyboard.press("End");
    await page.keyboard.press("Enter");
    await page.keyboard.type("/diagram");
    await page.getByRole("option", { name: "Diagram", exact: true }).waitFor();
    await page.keyboard.press("Enter");
    await editor.locator('.mermaid-block .diagram-preview[data-drawn="true"]').waitFor({ timeout: 20_000 });
    await page.frameLocator(".mermaid-block iframe").locator("svg").getByText("B", { exact: true }).waitFor();
    await page.keyboard.press("Control+s");
    await page.locator('[data-status="saved"]').waitFor({ timeout: 10_000 });
    expect(await suite.content("new-diagram.md")).toBe("Start.\n\n:::mermaid\ngraph LR\n  A --> B\n:::\n");
    expectNoConsoleErrors(tab);
    await tab.context.close();
  }, 60_000);

  test("the frame's own policy: scripts by nonce only, nothing fetched, framed only by the app", async () => {
    const r = await fetch(`${suite.server.url}/_app/diagram.html`);
    expect(r.status).toBe(200);
    const csp = r.headers.get("content-security-policy")!;
    const nonce = /'nonce-([^']+)'/.exec(csp)![1]!;
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("frame-ancestors 'self'");
    expect(csp).not.toContain("connect-src");
    expect(csp).not.toContain("unsafe-eval");
    const html = await r.text();
    const scripts = [...html.matchAll(/<script([^>]*)>/g)].map((m) => m[1]!);
    expect(scripts.length).toBe(2);
    for (const s of scripts) expect(s).toContain(`nonce="${nonce}"`);
    const src = /src="([^"]+)"/.exec(html)![1]!;
    const js = await fetch(`${suite.server.url}${src}`, { headers: { "accept-encoding": "identity" } });
    expect(js.status).toBe(200);
    expect(js.headers.get("content-type")).toMatch(/^text\/javascript/);
    expect(js.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    expect((await js.text()).length).toBeGreaterThan(100_000);
  }, 30_000);
});
