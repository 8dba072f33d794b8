import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Browser } from "playwright-core";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { registerUser, type TestUser } from "../helpers/factories.ts";
import { IdeClone, startGitHttpRemote, type GitHttpRemote } from "../helpers/git-remote.ts";
import { GIT_ENV, createFromRemote, settled } from "../git/support.ts";
import { hasChromium, launch, newTab, screenshot, signInInUi, expectNoConsoleErrors } from "./browser.ts";

describe.skipIf(!hasChromium)("git sync settings in a real browser", () => {
  let server: TestServer;
  let browser: Browser;
  let owner: TestUser;
  let remote: GitHttpRemote;
  let ide: IdeClone;
  let ws: { id: string; slug: string };
  beforeAll(async () => {
    [server, browser] = await Promise.all([startTestServer(GIT_ENV), launch()]);
    owner = await registerUser(server.url, { name: "Grace Hopper" });
    remote = await startGitHttpRemote({ branch: "main" });
    const created = await createFromRemote(owner, "synced", remote.url);
    expect(created.status).toBe(201);
    ws = created.body;
    await settled(server);
    ide = await IdeClone.clone(remote.url);
  }, 30_000);
  afterAll(async () => {
    await browser?.close();
    await ide?.close();
    await remote?.close();
    await server?.close();
  });

  /** The IDE pushes an edit of `path`; the browser's API save of the same page then conflicts on the pull. */
  async function conflictOn(path: string, ideLine: string, webBody: string) {
    await ide.pull();
    ide.writeFile(path, ide.readFile(path)!.replace(/Welcome[^\n]*/, ideLine));
    await ide.commit(`IDE edit of ${path}`);
    await ide.push();
    const read = await owner.client.get(`/api/v1/content/${ws.slug}/${path}`);
    expect((await owner.client.put(`/api/v1/content/${ws.slug}/${path}`, { body: webBody, lastKnownHash: read.body.content_hash })).status).toBe(200);
    await settled(server);
  }

  test("status, Sync now, options, webhook, and conflicts resolved by hand and by taking theirs", async () => {
    await conflictOn("index.md", "Welcome, from the IDE.", "Welcome, from the browser.\n");
    const tab = await newTab(browser);
    const { page } = tab;
    page.on("dialog", (d) => void d.accept());
    await page.goto(`${server.url}/w/${ws.slug}/settings/git`);
    await signInInUi(page, owner);
    await page.locator('[data-sync-status="conflict"]').waitFor();
    expect(await page.getByLabel("Webhook URL").inputValue()).toEndWith(`/api/git/webhook/${ws.id}`);

    // Ours and theirs side by side.
    const item = page.getByRole("listitem", { name: "Conflict in index.md" });
    await item.getByLabel("Ours: index.md").getByText("Welcome, from the browser.").waitFor();
    await item.getByLabel("Theirs: index.md").getByText("Welcome, from the IDE.").waitFor();
    await screenshot(page, "23-git-conflict");

    // Merge by hand: the merged text becomes the page and the conflict is gone.
    await item.getByRole("button", { name: "Merge by hand" }).click();
    const merged = "Welcome, from both the browser and the IDE.\n";
    await item.getByLabel("Merged version").fill(merged);
    await item.getByRole("button", { name: "Save merged version" }).click();
    await page.getByText("No open conflicts.").waitFor({ timeout: 15_000 });
    await settled(server);
    expect((await owner.client.get(`/api/v1/content/${ws.slug}/index.md`)).body.content).toBe(merged);

    // A second conflict, resolved by taking theirs.
    await conflictOn("index.md", "Welcome, IDE wins.", "Browser loses.\n");
    await page.getByRole("button", { name: "Sync now" }).click();
    await page.getByRole("listitem", { name: "Conflict in index.md" }).getByRole("button", { name: "Take theirs" }).click();
    await page.getByText("No open conflicts.").waitFor({ timeout: 15_000 });
    await settled(server);
    expect((await owner.client.get(`/api/v1/content/${ws.slug}/index.md`)).body.content).toContain("Welcome, IDE wins.");

    // Sync now reports its result; the status is clean again.
    await page.getByRole("button", { name: "Sync now" }).click();
    await page.getByText(/Sync completed: \d+ added/).waitFor({ timeout: 15_000 });
    await page.locator('[data-sync-status]:not([data-sync-status="conflict"])').waitFor();

    // Options are saved through the settings API; a bad interval shows the API's message.
    await page.getByLabel("Pull interval (seconds)").fill("120");
    await page.getByLabel("Commit every change automatically").uncheck();
    await page.getByRole("button", { name: "Save git settings" }).click();
    await page.getByText("Git settings saved.").waitFor();
    const settings = (await owner.client.get(`/api/v1/workspaces/${ws.id}/admin/settings`)).body;
    expect(settings.sync_interval).toBe(120);
    expect(settings.git_auto_commit).toBe(false);
    const oldSecret = settings.webhook_secret;
    await page.getByRole("button", { name: "New secret" }).click();
    await page.waitForFunction((old) => (document.querySelector(".secret-box input[value]:not([value^='http'])") as HTMLInputElement | null)?.value !== old, oldSecret);
    expect((await owner.client.get(`/api/v1/workspaces/${ws.id}/admin/settings`)).body.webhook_secret).not.toBe(oldSecret);
    await screenshot(page, "24-git-settings");
    expectNoConsoleErrors(tab);
    await tab.context.close();
  }, 90_000);
});
