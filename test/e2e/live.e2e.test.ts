import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Browser } from "playwright-core";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { registerUser, type TestUser } from "../helpers/factories.ts";
import { addMember } from "../collab/support.ts";
import { clickIntoText, hasChromium, launch, newTab, screenshot, signInInUi, expectNoConsoleErrors } from "./browser.ts";

describe.skipIf(!hasChromium)("live updates in a real browser", () => {
  let server: TestServer;
  let browser: Browser;
  let ada: TestUser;
  let bob: TestUser;
  beforeAll(async () => {
    [server, browser] = await Promise.all([startTestServer(), launch()]);
    ada = await registerUser(server.url, { name: "Ada Lovelace" });
    bob = await registerUser(server.url, { name: "Bob Builder" });
    addMember(server, ada.workspaceId, bob.id, "editor");
    // Someone who left is shown as gone after the presence timeout: short here so the test is quick.
    server.services.realtime.setTimings({ heartbeatMs: 500, timeoutMs: 1500 });
  }, 30_000);
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  const url = (path: string) => `/api/v1/content/${ada.workspaceSlug}/${path}`;

  test("presence, the tree and the open page follow other people's changes; unsaved text is never overwritten", async () => {
    const created = await ada.client.post(url("live.md"), { title: "Live", body: "First version.\n" });
    expect(created.status).toBe(201);
    const a = await newTab(browser);
    await a.page.goto(`${server.url}/w/${ada.workspaceSlug}/p/live.md`);
    await signInInUi(a.page, ada);
    const editor = a.page.getByRole("textbox", { name: "Page content" });
    await editor.getByText("First version.").waitFor();

    // Bob opens the workspace in his own browser: Ada sees him arrive.
    const b = await newTab(browser);
    await b.page.goto(`${server.url}/w/${ada.workspaceSlug}`);
    await signInInUi(b.page, bob);
    await a.page.getByRole("list", { name: "Also here: Bob Builder" }).waitFor({ timeout: 10_000 });
    // Bob opens the page Ada is on: her tree shows him on it.
    await b.page.getByRole("tree", { name: "Pages" }).getByRole("link", { name: "Live" }).click();
    await b.page.getByRole("heading", { name: "Live" }).waitFor();
    await a.page.locator('.tree-row[data-path="live.md"]').getByRole("img", { name: "Viewing now: Bob Builder" }).waitFor({ timeout: 10_000 });

    // A page Bob creates appears in Ada's tree without a reload.
    expect((await bob.client.post(url("from-bob.md"), { title: "From Bob", body: "Hi.\n" })).status).toBe(201);
    await a.page.getByRole("tree", { name: "Pages" }).getByRole("link", { name: "From Bob" }).waitFor({ timeout: 10_000 });

    // Bob saves the page Ada has open with nothing unsaved: her editor shows his version, with a notice.
    const second = await bob.client.put(url("live.md"), { body: "Second version by Bob.\n", lastKnownHash: created.body.content_hash });
    expect(second.status).toBe(200);
    await editor.getByText("Second version by Bob.").waitFor({ timeout: 10_000 });
    await a.page.getByText("Bob Builder updated this page; showing the new version.").waitFor();
    await screenshot(a.page, "13-live-update");

    // Ada types; Bob saves again before her autosave: her text stays, she is told, and her save conflicts instead of overwriting.
    await clickIntoText(editor.getByText("Second version by Bob."));
    await a.page.keyboard.press("End");
    await a.page.keyboard.type(" Ada's words.");
    const third = await bob.client.put(url("live.md"), { body: "Third version by Bob.\n", lastKnownHash: second.body.content_hash });
    expect(third.status).toBe(200);
    await a.page.getByText("Bob Builder changed this page while you were editing.", { exact: false }).waitFor({ timeout: 10_000 });
    expect(await editor.textContent()).toContain("Second version by Bob. Ada's words.");
    await a.page.getByRole("alert", { name: "Edit conflict" }).waitFor({ timeout: 10_000 });
    expect((await ada.client.get(url("live.md"))).body.content).toBe("Third version by Bob.\n");

    // Bob leaves: Ada's presence list empties and he is no longer shown on the page.
    await b.context.close();
    await a.page.getByRole("list", { name: "Also here: Bob Builder" }).waitFor({ state: "detached", timeout: 10_000 });
    expect(await a.page.getByRole("img", { name: "Viewing now: Bob Builder" }).count()).toBe(0);
    expectNoConsoleErrors(a, [409]);
    expectNoConsoleErrors(b);
    await a.context.close();
  }, 60_000);
});
