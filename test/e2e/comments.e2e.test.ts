import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Browser } from "playwright-core";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { registerUser, type TestUser } from "../helpers/factories.ts";
import { addMember } from "../collab/support.ts";
import { hasChromium, launch, newTab, screenshot, signInInUi, expectNoConsoleErrors } from "./browser.ts";

describe.skipIf(!hasChromium)("comments in a real browser", () => {
  let server: TestServer;
  let browser: Browser;
  let ada: TestUser;
  let bob: TestUser;
  beforeAll(async () => {
    [server, browser] = await Promise.all([startTestServer(), launch()]);
    ada = await registerUser(server.url, { name: "Ada Lovelace" });
    bob = await registerUser(server.url, { name: "Bob Builder" });
    addMember(server, ada.workspaceId, bob.id, "commenter");
    expect((await ada.client.post(`/api/v1/content/${ada.workspaceSlug}/review.md`, { title: "Review me", body: "Draft.\n" })).status).toBe(201);
  }, 30_000);
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  test("a thread with a mention picked from autocomplete, a live reply, edit, resolve, reopen, delete", async () => {
    const tab = await newTab(browser);
    const { page } = tab;
    page.on("dialog", (d) => void d.accept());
    await page.goto(`${server.url}/w/${ada.workspaceSlug}/p/review.md`);
    await signInInUi(page, ada);
    await page.getByRole("heading", { name: "Review me" }).waitFor();
    await page.getByRole("button", { name: "Comments" }).click();
    const panel = page.getByRole("complementary", { name: "Comments" });
    await panel.getByText("No open comments on this page.").waitFor();

    const box = panel.getByRole("combobox", { name: "New comment" });
    await box.click();
    await page.keyboard.type("Please check this @bo");
    const people = panel.getByRole("listbox", { name: "People" });
    await people.getByRole("option", { name: "Bob Builder" }).waitFor();
    await page.keyboard.press("Enter");
    await page.keyboard.type("before Friday.");
    expect(await box.inputValue()).toBe("Please check this @Bob Builder before Friday.");
    await panel.getByRole("button", { name: "Comment", exact: true }).click();
    const thread = panel.getByRole("list", { name: "Open threads" }).getByRole("listitem").first();
    await thread.locator(".mention", { hasText: "@Bob Builder" }).waitFor();
    const stored = (await ada.client.get(`/api/v1/workspaces/${ada.workspaceId}/comments?page=review.md`)).body.items;
    expect(stored).toHaveLength(1);
    expect(stored[0].mentions).toEqual([bob.id]);
    expect(stored[0].body).toBe("Please check this @Bob Builder before Friday.");

    // Bob replies from elsewhere: the reply shows up in Ada's open panel.
    expect((await bob.client.post(`/api/v1/workspaces/${ada.workspaceId}/comments`, { parent_id: stored[0].id, body: "On it, @Ada Lovelace." })).status).toBe(201);
    await thread.getByRole("list", { name: "Replies" }).getByText("On it,").waitFor({ timeout: 10_000 });
    // Ada can edit her own comment, not Bob's.
    expect(await thread.getByRole("list", { name: "Replies" }).getByRole("button", { name: "Edit" }).count()).toBe(0);
    await thread.getByRole("article", { name: "Comment by Ada Lovelace" }).getByRole("button", { name: "Edit" }).click();
    const edit = thread.getByRole("combobox", { name: "Edit comment" });
    await edit.fill("Please check this @Bob Builder before Thursday.");
    await thread.getByRole("button", { name: "Save" }).click();
    await thread.getByText("before Thursday.").waitFor();
    await thread.getByText("(edited)").waitFor();

    // Ada replies with the keyboard too.
    await thread.getByRole("button", { name: "Reply", exact: true }).click();
    await page.keyboard.type("Thanks!");
    await page.keyboard.press("Control+Enter");
    await thread.getByRole("list", { name: "Replies" }).getByText("Thanks!").waitFor();
    await screenshot(page, "14-comments");

    // Resolve moves the thread out of the open list; reopen brings it back.
    await thread.getByRole("button", { name: "Resolve" }).click();
    await panel.getByText("No open comments on this page.").waitFor();
    await panel.getByRole("button", { name: "Show 1 resolved" }).click();
    const resolved = panel.getByRole("list", { name: "Resolved threads" });
    await resolved.getByRole("button", { name: "Reopen" }).click();
    await panel.getByRole("list", { name: "Open threads" }).getByText("before Thursday.").waitFor();

    // Deleting her root comment (after confirming) removes the whole thread.
    await panel.getByRole("article", { name: "Comment by Ada Lovelace" }).first().getByRole("button", { name: "Delete" }).click();
    await panel.getByText("No open comments on this page.").waitFor();
    expect((await ada.client.get(`/api/v1/workspaces/${ada.workspaceId}/comments?page=review.md`)).body.items).toEqual([]);
    expectNoConsoleErrors(tab);
    await tab.context.close();
  }, 60_000);
});
