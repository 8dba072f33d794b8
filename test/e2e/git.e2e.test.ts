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

  test("status, Sync now, options (a bad interval refused with the API's message), webhook, and conflicts resolved by hand, by taking theirs and by keeping ours", async () => {
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

    // A third conflict, resolved by keeping ours: the page keeps the browser's text and the
    // remote receives it.
    await conflictOn("index.md", "Welcome, IDE once more.", "Welcome, the browser keeps this.\n");
    await page.getByRole("button", { name: "Sync now" }).click();
    const third = page.getByRole("listitem", { name: "Conflict in index.md" });
    await third.getByLabel("Theirs: index.md").getByText("Welcome, IDE once more.").waitFor();
    await third.getByRole("button", { name: "Keep ours" }).click();
    await page.getByText("No open conflicts.").waitFor({ timeout: 15_000 });
    await settled(server);
    expect((await owner.client.get(`/api/v1/content/${ws.slug}/index.md`)).body.content).toBe("Welcome, the browser keeps this.\n");
    expect(await remote.show("index.md")).toContain("Welcome, the browser keeps this.");

    // Sync now reports its result; the status is clean again.
    await page.getByRole("button", { name: "Sync now" }).click();
    await page.getByText(/Sync completed: \d+ added/).waitFor({ timeout: 15_000 });
    await page.locator('[data-sync-status]:not([data-sync-status="conflict"])').waitFor();

    // A bad interval shows the API's message and changes nothing; a good one is saved.
    await page.getByLabel("Pull interval (seconds)").fill("5");
    await page.getByRole("button", { name: "Save git settings" }).click();
    await page.getByRole("alert").filter({ hasText: "must be at least 10 seconds" }).waitFor();
    expect(await page.getByText("Git settings saved.").count()).toBe(0);
    expect((await owner.client.get(`/api/v1/workspaces/${ws.id}/admin/settings`)).body.sync_interval).not.toBe(5);
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

    // The remote's access token is write-only: saved, then only said to be stored; removed again.
    await page.getByLabel("Access token", { exact: true }).fill("tok-e2e-never-shown");
    await page.getByRole("button", { name: "Save access token" }).click();
    await page.getByText("Access token saved.").waitFor();
    await page.locator('[data-token-set="true"]').waitFor();
    expect((await owner.client.get(`/api/v1/workspaces/${ws.id}/admin/settings`)).body.git_token_set).toBe(true);
    expect(await page.getByLabel("New access token").inputValue()).toBe("");
    expect(await page.content()).not.toContain("tok-e2e-never-shown");
    await page.getByRole("button", { name: "Remove access token" }).click();
    await page.getByText("Access token removed.").waitFor();
    await page.locator('[data-token-set="false"]').waitFor();
    expect((await owner.client.get(`/api/v1/workspaces/${ws.id}/admin/settings`)).body.git_token_set).toBe(false);
    await screenshot(page, "24-git-settings");
    // The refused interval is the browser's one 400 line; nothing else.
    expectNoConsoleErrors(tab, [400]);
    await tab.context.close();
  }, 90_000);

  test("the New workspace dialog clones a git remote: an unreachable one shows the API's message, a real one shows its pages", async () => {
    // A private remote: it answers only with the access token.
    const second = await startGitHttpRemote({ branch: "docs", auth: { username: "x-access-token", token: "e2e-remote-token" }, files: { "index.md": "---\ntitle: Cloned home\n---\n\nFrom the remote.\n", "guide/setup.md": "---\ntitle: Setup guide\n---\n\nSteps.\n" } });
    try {
      const tab = await newTab(browser);
      const { page } = tab;
      await page.goto(`${server.url}/w/${ws.slug}`);
      await signInInUi(page, owner);
      await page.getByRole("button", { name: "New workspace" }).click();
      const dialog = page.getByRole("dialog", { name: "New workspace" });
      await dialog.getByLabel("Workspace name").fill("From git");
      // Nothing listens on port 1: the clone fails and the dialog shows the API's message.
      await dialog.getByLabel("Git remote URL").fill("http://127.0.0.1:1/missing.git");
      await dialog.getByRole("button", { name: "Create workspace" }).click();
      const refusal = dialog.getByRole("alert");
      await refusal.waitFor({ timeout: 20_000 });
      expect(await refusal.textContent()).toContain("could not clone the repository: the remote could not be reached");
      expect((await owner.client.get("/api/v1/workspaces")).body.items.map((w: { slug: string }) => w.slug)).not.toContain("from-git");

      // The real remote on its own branch. The create request is held in the browser for a moment
      // so the progress the dialog shows while the clone runs can be seen.
      let release!: () => void;
      const held = new Promise<void>((r) => (release = r));
      await page.route("**/api/v1/workspaces", async (route) => {
        if (route.request().method() === "POST") await held;
        await route.continue();
      });
      await dialog.getByLabel("Git remote URL").fill(second.url);
      await dialog.getByLabel("Branch").fill("docs");
      // Without its token the private remote refuses the clone; the dialog says so.
      await page.unroute("**/api/v1/workspaces");
      await dialog.getByRole("button", { name: "Create workspace" }).click();
      await dialog.getByRole("alert").filter({ hasText: /credentials|refused access/ }).waitFor({ timeout: 20_000 });
      expect((await owner.client.get("/api/v1/workspaces")).body.items.map((w: { slug: string }) => w.slug)).not.toContain("from-git");
      await page.route("**/api/v1/workspaces", async (route) => {
        if (route.request().method() === "POST") await held;
        await route.continue();
      });
      await dialog.getByLabel("Access token").fill("e2e-remote-token");
      await dialog.getByRole("button", { name: "Create workspace" }).click();
      await dialog.getByRole("status").filter({ hasText: "Cloning the remote" }).waitFor();
      expect(await dialog.getByRole("button", { name: "Creating…" }).isDisabled()).toBe(true);
      await screenshot(page, "25-new-workspace-from-git");
      release();
      await page.waitForURL(/\/w\/from-git$/, { timeout: 20_000 });
      const tree = page.getByRole("tree", { name: "Pages" });
      await tree.getByRole("link", { name: "Cloned home" }).waitFor();
      await tree.getByText("Setup guide").waitFor();
      await page.unroute("**/api/v1/workspaces");

      const created = (await owner.client.get("/api/v1/workspaces/from-git")).body;
      expect(created.git_remote).toBe(second.url);
      expect(created.git_branch).toBe("docs");
      expect((await owner.client.get(`/api/v1/content/from-git/guide/setup.md`)).body.content).toBe("Steps.\n");
      expect((await owner.client.get(`/api/v1/workspaces/${created.id}/admin/settings`)).body.git_token_set).toBe(true);
      // The git settings screen shows the remote it was created with.
      await page.goto(`${server.url}/w/from-git/settings/git`);
      await page.getByText(second.url).waitFor();
      expect(await page.getByLabel("Branch").inputValue()).toBe("docs");
      expectNoConsoleErrors(tab, [400]);
      await tab.context.close();
    } finally {
      await second.close();
    }
  }, 90_000);
});
