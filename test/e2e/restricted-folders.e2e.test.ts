import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Browser, Page } from "playwright-core";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { registerUser, type TestUser } from "../helpers/factories.ts";
import { memberWithRole } from "../access/support.ts";
import { expectNoConsoleErrors, hasChromium, launch, newTab, screenshot, signInInUi } from "./browser.ts";

/**
 * Restricted folders in a real browser (docs/decisions/restricted-folders.md): the admin restricts
 * a folder through the tree's "Share / access" dialog; a member without access sees no such folder
 * in the tree and finds nothing of it in search.
 */
describe.skipIf(!hasChromium)("restricted folders in a real browser", () => {
  let server: TestServer;
  let browser: Browser;
  let owner: TestUser;
  let ana: TestUser;
  let bob: TestUser;
  const SECRET = "platypusledger";
  beforeAll(async () => {
    [server, browser] = await Promise.all([startTestServer(), launch()]);
    owner = await registerUser(server.url);
    ana = await memberWithRole(server, owner, owner.workspaceId, "editor");
    bob = await memberWithRole(server, owner, owner.workspaceId, "editor");
    for (const [path, title] of [
      ["hr/index.md", "HR"],
      ["hr/salaries.md", "Salaries"],
    ]) {
      expect((await owner.client.post(`/api/v1/content/${owner.workspaceSlug}/${path}`, { title, body: `# ${title}\n\n${SECRET}\n` })).status).toBe(201);
    }
  }, 30_000);
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  /** A new tab with `user` signed in on the workspace. */
  async function signedIn(user: TestUser) {
    const tab = await newTab(browser);
    await tab.page.goto(`${server.url}/w/${owner.workspaceSlug}`);
    await signInInUi(tab.page, user);
    return tab;
  }

  /** Opens the "Share / access" dialog of the tree item titled `title` from its actions menu; the dialog names `path`. */
  async function openAccessDialog(page: Page, title: string, path: string) {
    await page.getByRole("tree", { name: "Pages" }).getByText(title).first().waitFor();
    await page.getByRole("button", { name: `Actions for ${title}` }).click();
    await page.getByRole("menuitem", { name: "Share / access…" }).click();
    return page.getByRole("dialog", { name: `Share / access: ${path}` });
  }

  test("the admin restricts hr/ in the dialog; Bob's tree and search have nothing of it", async () => {
    const admin = await signedIn(owner);
    const tree = admin.page.getByRole("tree", { name: "Pages" });
    const dialog = await openAccessDialog(admin.page, "HR", "hr/");
    await dialog.getByText("Not restricted").waitFor();
    await dialog.getByRole("button", { name: "Add someone" }).click();
    await dialog.getByLabel("Who, entry 1").fill(ana.email);
    await dialog.getByLabel("Level, entry 1").selectOption("edit");
    await dialog.getByRole("button", { name: "Save access" }).click();
    await dialog.getByText("Access saved.").waitFor();
    await dialog.getByText("Restricted", { exact: false }).first().waitFor();
    const people = dialog.getByRole("list", { name: "Effective access per member" });
    await people.getByText(`${ana.name}: edit, from hr/`).waitFor();
    await people.getByText(`${bob.name}: no access`).waitFor();
    await screenshot(admin.page, "40-access-dialog");
    await dialog.getByRole("button", { name: "Close" }).click();
    // The tree marks the folder for those who see it.
    await admin.page.reload();
    await tree.locator('.tree-row[data-path="hr"]').getByRole("img", { name: "Restricted" }).waitFor();
    const rules = await owner.client.get(`/api/v1/workspaces/${owner.workspaceId}/access`);
    expect(rules.body.restricted).toEqual({ "hr/": [{ who: ana.email.toLowerCase(), level: "edit" }] });
    // The members screen says, per member, what each restricted folder gives them.
    await admin.page.goto(`${server.url}/w/${owner.workspaceSlug}/settings/members`);
    const rowOf = (name: string) => admin.page.getByRole("row").filter({ hasText: name });
    await rowOf(ana.name).getByText("hr/: edit").waitFor();
    await rowOf(bob.name).getByText("hr/: no access").waitFor();
    await rowOf(owner.name).getByText("hr/: edit").waitFor();
    await screenshot(admin.page, "41-members-restricted-column");

    const other = await signedIn(bob);
    const bobTree = other.page.getByRole("tree", { name: "Pages" });
    await bobTree.getByRole("link").first().waitFor();
    expect(await bobTree.getByText("HR", { exact: true }).count()).toBe(0);
    expect(await bobTree.getByText("Salaries").count()).toBe(0);
    await other.page.keyboard.press("Control+k");
    const search = other.page.getByRole("dialog", { name: "Search pages" });
    await search.getByRole("combobox").waitFor();
    // Waited for from before typing, so an answer that comes quickly is not missed.
    const answered = other.page.waitForResponse((r) => r.url().includes(`q=${SECRET}`));
    await other.page.keyboard.type(SECRET);
    await answered;
    await other.page.waitForTimeout(200);
    expect(await search.getByRole("option").count()).toBe(0);
    expect(await search.textContent()).not.toContain("Salaries");
  });

  test("once the admin lets editors manage access, Ana (edit on hr/) shares it with Bob from the tree", async () => {
    const anaTab = await signedIn(ana);
    const anaTree = anaTab.page.getByRole("tree", { name: "Pages" });
    await anaTree.getByText("HR").first().waitFor();
    await anaTab.page.getByRole("button", { name: "Actions for HR" }).click();
    await anaTab.page.getByRole("menu").waitFor();
    expect(await anaTab.page.getByRole("menuitem", { name: "Share / access…" }).count()).toBe(0);
    await anaTab.page.keyboard.press("Escape");

    const admin = await newTab(browser);
    await admin.page.goto(`${server.url}/w/${owner.workspaceSlug}/settings/general`);
    await signInInUi(admin.page, owner);
    const toggle = admin.page.getByLabel("Set the access list of folders and pages they can edit");
    await toggle.check();
    await admin.page.getByRole("button", { name: "Save settings" }).click();
    await admin.page.getByText("Settings saved.").waitFor();
    expect((await owner.client.get(`/api/v1/workspaces/${owner.workspaceId}/admin/settings`)).body.editors_manage_access).toBe(true);

    await anaTab.page.reload();
    const dialog = await openAccessDialog(anaTab.page, "HR", "hr/");
    await dialog.getByLabel("Who, entry 1").waitFor();
    await dialog.getByRole("button", { name: "Add someone" }).click();
    await dialog.getByLabel("Who, entry 2").fill(bob.email);
    await dialog.getByLabel("Level, entry 2").selectOption("view");
    await dialog.getByRole("button", { name: "Save access" }).click();
    await dialog.getByText("Access saved.").waitFor();
    expect((await bob.client.get(`/api/v1/content/${owner.workspaceSlug}/hr/salaries.md`)).status).toBe(200);
  });

  test("the admin lets anyone with a share link open hr/'s pages with the dialog's toggle; Ana's dialog has no toggle and keeps it", async () => {
    const link = await owner.client.post(`/api/v1/workspaces/${owner.workspaceId}/share-links`, { role: "viewer", path: "hr/salaries.md" });
    expect(link.body).toMatchObject({ path: "hr/salaries.md", anyone: false });
    const opened = async () => (await fetch(`${server.url}/api/v1/share-links/${link.body.token}/page`)).status;
    expect(await opened()).toBe(404);

    const admin = await signedIn(owner);
    const dialog = await openAccessDialog(admin.page, "HR", "hr/");
    await dialog.getByLabel("Who, entry 1").waitFor();
    await dialog.getByText("Share links to pages here work only for people with access.").waitFor();
    const toggle = dialog.getByLabel("Anyone with a share link may open pages here");
    expect(await toggle.isChecked()).toBe(false);
    await toggle.check();
    await dialog.getByText("Anyone holding a share link to a page here then reads it", { exact: false }).waitFor();
    await dialog.getByLabel("Share link level").selectOption("comment");
    await dialog.getByRole("button", { name: "Save access" }).click();
    await dialog.getByText("Access saved.").waitFor();
    await screenshot(admin.page, "42-access-dialog-share-links");
    const rules = (await owner.client.get(`/api/v1/workspaces/${owner.workspaceId}/access`)).body.restricted["hr/"];
    expect(rules).toContainEqual({ who: "link:anyone", level: "comment" });
    expect(await opened()).toBe(200);
    // The list of members in the dialog does not show the allowance as a person.
    expect(await dialog.locator('input[aria-label^="Who, entry"]').evaluateAll((els) => els.map((e) => (e as HTMLInputElement).value))).not.toContain("link:anyone");

    // Ana (an editor managing access) sees no toggle; her save keeps the allowance as the admin set it.
    const anaTab = await signedIn(ana);
    const anaDialog = await openAccessDialog(anaTab.page, "HR", "hr/");
    await anaDialog.getByLabel("Who, entry 2").waitFor();
    expect(await anaDialog.getByLabel("Anyone with a share link may open pages here").count()).toBe(0);
    await anaDialog.getByLabel("Level, entry 2").selectOption("comment");
    await anaDialog.getByRole("button", { name: "Save access" }).click();
    await anaDialog.getByText("Access saved.").waitFor();
    const after = (await owner.client.get(`/api/v1/workspaces/${owner.workspaceId}/access`)).body.restricted["hr/"];
    expect(after).toContainEqual({ who: bob.email.toLowerCase(), level: "comment" });
    expect(after).toContainEqual({ who: "link:anyone", level: "comment" });

    // Off again: the link answers as a missing page at once.
    await toggle.uncheck();
    await dialog.getByRole("button", { name: "Save access" }).click();
    await dialog.getByText("Access saved.").waitFor();
    expect(await opened()).toBe(404);
  });

  test("the admin makes a share link to a page in the dialog; signed out, it opens the page only while hr/ allows anyone with a link", async () => {
    const admin = await signedIn(owner);
    const dialog = await openAccessDialog(admin.page, "Salaries", "hr/salaries.md");
    await dialog.getByRole("button", { name: "Create a share link to this page" }).click();
    await dialog.getByText("This link works only for people with access to this page", { exact: false }).waitFor();
    const url = await dialog.getByRole("textbox", { name: "Share link to this page" }).inputValue();
    expect(url).toStartWith(`${server.url}/shared/`);

    const outsider = await newTab(browser);
    await outsider.page.goto(url);
    await outsider.page.getByRole("heading", { name: "This link opens no page" }).waitFor();
    expect(await outsider.page.content()).not.toContain(SECRET);

    const hr = (await owner.client.get(`/api/v1/workspaces/${owner.workspaceId}/access`)).body.restricted["hr/"] as object[];
    expect((await owner.client.put(`/api/v1/workspaces/${owner.workspaceId}/access`, { path: "hr/", entries: [...hr, { who: "link:anyone", level: "view" }] })).status).toBe(200);
    await outsider.page.reload();
    await outsider.page.getByRole("heading", { name: "Salaries", exact: true }).first().waitFor();
    await outsider.page.getByText(SECRET).waitFor();
    await outsider.page.getByText("you can view").waitFor();
    await screenshot(outsider.page, "43-shared-page-signed-out");
    expect((await owner.client.put(`/api/v1/workspaces/${owner.workspaceId}/access`, { path: "hr/", entries: hr })).status).toBe(200);
  });

  test("Carl, a member without access to hr/, signs in from a comment-level link and comments on the page; the page's people see it", async () => {
    const carl = await memberWithRole(server, owner, owner.workspaceId, "editor");
    const base = `/api/v1/workspaces/${owner.workspaceId}`;
    const hr = (await owner.client.get(`${base}/access`)).body.restricted["hr/"] as object[];
    expect((await owner.client.put(`${base}/access`, { path: "hr/", entries: [...hr, { who: "link:anyone", level: "comment" }] })).status).toBe(200);
    // The admin makes the comment link in the dialog.
    const admin = await signedIn(owner);
    const dialog = await openAccessDialog(admin.page, "Salaries", "hr/salaries.md");
    await dialog.getByLabel("New share link lets its holder").selectOption("commenter");
    await dialog.getByRole("button", { name: "Create a share link to this page" }).click();
    const url = await dialog.getByRole("textbox", { name: "Share link to this page" }).inputValue();
    const token = decodeURIComponent(url.slice(`${server.url}/shared/`.length));
    const made = (await owner.client.get(`${base}/share-links`)).body.items.find((l: any) => l.path === "hr/salaries.md" && l.role === "commenter");
    expect(made).toBeDefined();

    const tab = await newTab(browser);
    await tab.page.goto(`${server.url}/shared/${token}`);
    await tab.page.getByText("you can comment").waitFor();
    // Signed out: the page reads, and commenting asks to sign in first.
    await tab.page.getByRole("link", { name: "Sign in" }).click();
    await signInInUi(tab.page, carl);
    await tab.page.waitForURL(`${server.url}/shared/${token}`);
    const comments = tab.page.getByRole("region", { name: "Comments" });
    await comments.getByText("No comments on this page yet.").waitFor();
    await comments.getByRole("textbox", { name: "New comment" }).fill("Do the bands include bonuses?");
    await comments.getByRole("button", { name: "Comment", exact: true }).click();
    await comments.getByRole("article", { name: `Comment by ${carl.name}` }).getByText("Do the bands include bonuses?").waitFor();
    await comments.getByRole("button", { name: "Reply" }).click();
    await comments.getByRole("textbox", { name: `Reply to ${carl.name}` }).fill("And the stock plan?");
    await comments.getByRole("button", { name: "Reply", exact: true }).click();
    await comments.getByRole("list", { name: "Replies" }).getByText("And the stock plan?").waitFor();
    await screenshot(tab.page, "44-shared-page-comments");

    const thread = (await owner.client.get(`${base}/comments?page=hr/salaries.md`)).body.items;
    expect(thread.map((c: any) => [c.author.id, c.body, c.parent_id === null])).toEqual([
      [carl.id, "Do the bands include bonuses?", true],
      [carl.id, "And the stock plan?", false],
    ]);
    // The page stays hidden from Carl everywhere else.
    expect((await carl.client.get(`/api/v1/content/${owner.workspaceSlug}/hr/salaries.md`)).status).toBe(404);
    expectNoConsoleErrors(tab);
    expect((await owner.client.put(`${base}/access`, { path: "hr/", entries: hr })).status).toBe(200);
  });
});
