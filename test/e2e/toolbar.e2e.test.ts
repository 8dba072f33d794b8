import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { Browser } from "playwright-core";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { registerUser, type TestUser } from "../helpers/factories.ts";
import { clickIntoText, expectNoConsoleErrors, hasChromium, launch, newTab, screenshot, signInInUi } from "./browser.ts";

describe.skipIf(!hasChromium)("the rich editor's toolbar and the shell's remaining controls", () => {
  let server: TestServer;
  let browser: Browser;
  let user: TestUser;
  beforeAll(async () => {
    [server, browser] = await Promise.all([startTestServer(), launch()]);
    user = await registerUser(server.url, { name: "Tess Toolbar" });
    expect((await user.client.post(`/api/v1/content/${user.workspaceSlug}/tools.md`, { title: "Tools", body: "Start.\n" })).status).toBe(201);
  }, 30_000);
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  test("every block button writes its Markdown; Ctrl+S saves; the first paragraph's bytes stay", async () => {
    const onDisk = join(server.dataDir, "workspaces", user.workspaceId, "tools.md");
    const before = readFileSync(onDisk, "utf8");
    expect(before.endsWith("Start.\n")).toBe(true);
    const tab = await newTab(browser);
    const { page } = tab;
    // Link, image and code-block language are asked for in the browser's prompt.
    const answers = ["https://example.test/", "ts"];
    page.on("dialog", (d) => void d.accept(answers.shift() ?? ""));
    await page.goto(`${server.url}/w/${user.workspaceSlug}/p/tools.md`);
    await signInInUi(page, user);
    const editor = page.getByRole("textbox", { name: "Page content" });
    await clickIntoText(editor.getByText("Start."));
    await page.keyboard.press("End");
    // A name may carry the button's visible text after it: "Heading 2, H2".
    const tool = (name: string) => page.getByRole("toolbar", { name: "Formatting" }).getByRole("button", { name: new RegExp(`^${name}(, .+)?$`) }).click();

    await page.keyboard.press("Enter");
    await tool("Heading 2");
    await page.keyboard.type("Second");
    await page.keyboard.press("Enter");
    await page.keyboard.type("A ");
    await tool("Link");
    await page.keyboard.type("linked");
    await page.keyboard.press("Enter");
    await tool("Bulleted list");
    await page.keyboard.type("item");
    await page.keyboard.press("Enter");
    await page.keyboard.press("Enter");
    await tool("Task list");
    await page.keyboard.type("todo");
    await page.keyboard.press("Enter");
    await page.keyboard.press("Enter");
    await tool("Code block");
    await page.keyboard.type("let x = 1;");
    await page.keyboard.press("Enter");
    await page.keyboard.press("Enter");
    await page.keyboard.press("Enter");
    await tool("Horizontal rule");
    await tool("Quote");
    await page.keyboard.type("quoted");
    await page.keyboard.press("ControlOrMeta+s");
    await page.locator('[data-status="saved"]').waitFor({ timeout: 10_000 });
    await screenshot(page, "33-toolbar");

    const file = readFileSync(onDisk, "utf8");
    // Frontmatter and the untouched first paragraph keep their bytes; the new blocks follow.
    expect(file.startsWith(before)).toBe(true);
    const body = file.slice(before.length);
    expect(body).toContain("## Second\n");
    // The word typed after choosing a link address is the link.
    expect(body).toContain("\nA [linked](https://example.test/)\n");
    expect(body).toMatch(/^[-*] item$/m);
    expect(body).toMatch(/^[-*] \[ \] todo$/m);
    expect(body).toContain("```ts\nlet x = 1;\n```");
    expect(body).toMatch(/^(---|\*\*\*|___)$/m);
    expect(body).toMatch(/^> quoted$/m);
    expectNoConsoleErrors(tab);
    await tab.context.close();
  }, 60_000);

  test("Tiptap's own shortcuts (Ctrl+B, Ctrl+I, Ctrl+Alt+1/2, Ctrl+Shift+8, Ctrl+Z) write their Markdown after the untouched bytes", async () => {
    // The first paragraph is spelled the way the editor would not write it (__ and _), so any rewrite shows.
    const first = "First line with __strong__ and _emphasis_ kept as typed.\n";
    expect((await user.client.post(`/api/v1/content/${user.workspaceSlug}/keys.md`, { title: "Keys", body: first })).status).toBe(201);
    const onDisk = join(server.dataDir, "workspaces", user.workspaceId, "keys.md");
    const before = readFileSync(onDisk, "utf8");
    expect(before.endsWith(first)).toBe(true);
    const tab = await newTab(browser);
    const { page } = tab;
    await page.goto(`${server.url}/w/${user.workspaceSlug}/p/keys.md`);
    await signInInUi(page, user);
    const editor = page.getByRole("textbox", { name: "Page content" });
    await clickIntoText(editor.getByText("kept as typed."));
    await page.keyboard.press("End");

    await page.keyboard.press("Enter");
    await page.keyboard.press("Control+Alt+1");
    await page.keyboard.type("Big title");
    await page.keyboard.press("Enter");
    await page.keyboard.press("Control+Alt+2");
    await page.keyboard.type("Sub title");
    await page.keyboard.press("Enter");
    await page.keyboard.type("Some ");
    await page.keyboard.press("Control+b");
    await page.keyboard.type("bold");
    await page.keyboard.press("Control+b");
    await page.keyboard.type(" and ");
    await page.keyboard.press("Control+i");
    await page.keyboard.type("italic");
    await page.keyboard.press("Control+i");
    await page.keyboard.type(" words.");
    await page.keyboard.press("Enter");
    // Bold that ends in punctuation with text straight after it (see test/web/markdown-emphasis.test.ts).
    await page.keyboard.press("Control+b");
    await page.keyboard.type("Note:");
    await page.keyboard.press("Control+b");
    await page.keyboard.type("text");
    await page.keyboard.press("Enter");
    await page.keyboard.press("Control+Shift+8");
    await page.keyboard.type("first item");
    await page.keyboard.press("Enter");
    await page.keyboard.type("second item");
    await page.keyboard.press("Enter");
    await page.keyboard.press("Enter");
    await page.keyboard.type("Kept as a paragraph");
    await editor.locator("h1", { hasText: "Big title" }).waitFor();
    await editor.locator("h2", { hasText: "Sub title" }).waitFor();
    await editor.locator("strong", { hasText: "bold" }).waitFor();
    await editor.locator("em", { hasText: "italic" }).waitFor();
    await editor.locator("ul > li", { hasText: "second item" }).waitFor();

    // Undo groups changes less than half a second apart (ProseMirror's history): a person's pause
    // makes the next change its own step, so Ctrl+Z takes back exactly that change.
    await page.waitForTimeout(700);
    await page.keyboard.press("Control+Alt+2");
    await editor.locator("h2", { hasText: "Kept as a paragraph" }).waitFor();
    await page.keyboard.press("Control+z");
    await editor.locator("p", { hasText: "Kept as a paragraph" }).waitFor();
    await page.waitForTimeout(700);
    await page.keyboard.insertText(" oops");
    await editor.getByText("Kept as a paragraph oops").waitFor();
    await page.keyboard.press("Control+z");
    await editor.getByText("Kept as a paragraph oops").waitFor({ state: "detached" });
    await page.keyboard.press("ControlOrMeta+s");
    await page.locator('[data-status="saved"]').waitFor({ timeout: 10_000 });
    await screenshot(page, "35-shortcuts");

    const file = readFileSync(onDisk, "utf8");
    expect(file.startsWith(before)).toBe(true);
    expect(file.slice(before.length)).toBe(
      [
        "",
        "# Big title",
        "",
        "## Sub title",
        "",
        "Some **bold** and *italic* words.",
        "",
        "**Note:**&#x74;ext",
        "",
        "- first item",
        "- second item",
        "",
        "Kept as a paragraph",
        "",
      ].join("\n"),
    );
    expectNoConsoleErrors(tab);
    await tab.context.close();
  }, 60_000);

  test("folders collapse and expand; an empty workspace says so; the switcher changes workspace; sign out everywhere ends every session", async () => {
    const tab = await newTab(browser);
    const { page } = tab;
    await page.goto(`${server.url}/w/${user.workspaceSlug}`);
    await signInInUi(page, user);
    const tree = page.getByRole("tree", { name: "Pages" });
    await tree.getByRole("link", { name: "Getting started" }).waitFor();
    await tree.getByRole("button", { name: "Collapse Guides" }).click();
    await tree.getByRole("link", { name: "Getting started" }).waitFor({ state: "detached" });
    expect(await tree.getByRole("treeitem", { name: /Guides/ }).first().getAttribute("aria-expanded")).toBe("false");
    await tree.getByRole("button", { name: "Expand Guides" }).click();
    await tree.getByRole("link", { name: "Getting started" }).waitFor();

    // A workspace with no pages shows its empty state in the sidebar and the main area.
    const made = await user.client.post("/api/v1/workspaces", { name: "Empty shelf", slug: "empty-shelf" });
    expect(made.status).toBe(201);
    const emptySlug = made.body.slug as string;
    const files = (await user.client.get(`/api/v1/content/${emptySlug}/tree`)).body.items as Array<{ path: string }>;
    for (const f of files) await user.client.delete(`/api/v1/content/${emptySlug}/${f.path.endsWith(".md") ? f.path : `${f.path}/index.md`}`);
    await page.goto(`${server.url}/w/${emptySlug}`);
    await page.getByText("No pages yet.", { exact: true }).waitFor();
    await page.getByText("This workspace has no pages yet.").waitFor();
    await screenshot(page, "34-empty-workspace");
    // The switcher goes back to the first workspace.
    await page.getByRole("combobox", { name: "Workspace" }).selectOption(user.workspaceSlug);
    await page.waitForURL(new RegExp(`/w/${user.workspaceSlug}$`));
    await tree.getByRole("link", { name: "Tools" }).waitFor();

    // Sign out everywhere: this tab goes to the login screen, another device's refresh stops working.
    const other = await user.client.post("/api/auth/login", { email: user.email, password: user.password });
    expect(other.status).toBe(200);
    expect((await user.client.post("/api/auth/refresh", undefined)).status).toBe(200);
    await page.locator('summary[aria-label^="Account"]').click();
    await page.getByRole("menuitem", { name: "Sign out everywhere" }).click();
    await page.getByRole("heading", { name: "Sign in" }).waitFor();
    const refresh = await user.client.post("/api/auth/refresh", undefined);
    expect(refresh.status).toBe(401);
    await page.reload();
    await page.getByRole("heading", { name: "Sign in" }).waitFor();
    expectNoConsoleErrors(tab, [401]);
    await tab.context.close();
  }, 60_000);
});
