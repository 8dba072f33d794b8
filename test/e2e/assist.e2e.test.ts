/**
 * The rich editor's Assist menu in a real browser: present only when a writing model is configured,
 * and choosing a mode replaces the selected text with the model's answer (a loopback stand-in with
 * OpenAI's documented chat-completions shape).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Browser } from "playwright-core";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { registerUser, type TestUser } from "../helpers/factories.ts";
import { expectNoConsoleErrors, hasChromium, launch, newTab, signInInUi } from "./browser.ts";

describe.skipIf(!hasChromium)("the editor's Assist menu", () => {
  let model: ReturnType<typeof Bun.serve>;
  let withModel: TestServer;
  let without: TestServer;
  let browser: Browser;
  let user: TestUser;
  let plain: TestUser;
  beforeAll(async () => {
    model = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      async fetch(req) {
        const body = await req.json();
        const text: string = body.messages.at(-1).content;
        return Response.json({
          id: "chatcmpl-1",
          object: "chat.completion",
          created: 0,
          model: body.model,
          choices: [{ index: 0, message: { role: "assistant", content: text.toUpperCase() }, finish_reason: "stop" }],
        });
      },
    });
    [withModel, without, browser] = await Promise.all([
      startTestServer({ AI_BASE_URL: `http://127.0.0.1:${model.port}/v1`, AI_MODEL: "stand-in" }),
      startTestServer(),
      launch(),
    ]);
    user = await registerUser(withModel.url, { name: "Ava Assist" });
    expect((await user.client.post(`/api/v1/content/${user.workspaceSlug}/draft.md`, { title: "Draft", body: "quiet words here.\n" })).status).toBe(201);
    plain = await registerUser(without.url, { name: "Nia Nomodel" });
    expect((await plain.client.post(`/api/v1/content/${plain.workspaceSlug}/draft.md`, { title: "Draft", body: "quiet words here.\n" })).status).toBe(201);
  }, 30_000);
  afterAll(async () => {
    await browser?.close();
    await withModel?.close();
    await without?.close();
    model?.stop(true);
  });

  test("with a model: Assist → Improve writing replaces the selection with the model's text", async () => {
    const tab = await newTab(browser);
    const { page } = tab;
    await page.goto(`${withModel.url}/w/${user.workspaceSlug}/p/draft.md`);
    await signInInUi(page, user);
    const editor = page.getByRole("textbox", { name: "Page content" });
    await editor.getByText("quiet words here.").click();
    await page.keyboard.press("Home");
    await page.keyboard.press("Shift+End");
    const assist = page.getByRole("toolbar", { name: "Formatting" }).getByRole("combobox", { name: "Assist" });
    await assist.selectOption("improve");
    await editor.getByText("QUIET WORDS HERE.").waitFor({ timeout: 10_000 });
    // Saved like any edit (autosave).
    let saved = "";
    for (let i = 0; i < 100 && !saved.includes("QUIET WORDS HERE."); i++) {
      saved = (await user.client.get(`/api/v1/content/${user.workspaceSlug}/draft.md`)).body.content;
      await Bun.sleep(100);
    }
    expect(saved).toBe("QUIET WORDS HERE.\n");
    expectNoConsoleErrors(tab);
  }, 30_000);

  test("without a model the menu is not shown", async () => {
    const tab = await newTab(browser);
    const { page } = tab;
    await page.goto(`${without.url}/w/${plain.workspaceSlug}/p/draft.md`);
    await signInInUi(page, plain);
    await page.getByRole("textbox", { name: "Page content" }).getByText("quiet words here.").waitFor();
    expect(await page.getByRole("toolbar", { name: "Formatting" }).getByRole("combobox", { name: "Assist" }).count()).toBe(0);
    expectNoConsoleErrors(tab);
  }, 30_000);
});
