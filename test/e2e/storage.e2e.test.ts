/**
 * A full disk as the writer sees it: the data directory is a small tmpfs, filled for real. The
 * editor's save is refused with a 507; the page says why, keeps the text typed, and — once space
 * is freed — saves it by itself. An administrator sees the storage banner meanwhile. Where
 * mounting is refused (not root) the test is skipped with a message saying so.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, statfsSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser } from "playwright-core";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { registerUser, type TestUser } from "../helpers/factories.ts";
import { clickIntoText, expectNoConsoleErrors, hasChromium, launch, newTab, signInInUi } from "./browser.ts";

const MOUNT = mkdtempSync(join(tmpdir(), "quire-tmpfs-e2e-"));
const mounted = hasChromium && spawnSync("mount", ["-t", "tmpfs", "-o", "size=16m", "tmpfs", MOUNT]).status === 0;
if (hasChromium && !mounted) console.warn(`test/e2e/storage.e2e.test.ts: skipped, mounting a tmpfs on ${MOUNT} was refused (needs root)`);
const DATA = join(MOUNT, "data");
const BALLAST = join(DATA, "ballast.bin");

describe.skipIf(!mounted)("the editor on a full disk", () => {
  let server: TestServer;
  let browser: Browser;
  let user: TestUser;
  beforeAll(async () => {
    [server, browser] = await Promise.all([startTestServer({ STORAGE_MIN_FREE_MB: "1" }, { dataDir: DATA, keepDir: true }), launch()]);
    user = await registerUser(server.url);
  }, 30_000);
  afterAll(async () => {
    await browser?.close();
    await server?.close();
    spawnSync("umount", ["-l", MOUNT]);
    rmSync(MOUNT, { recursive: true, force: true });
  });

  const fileOnDisk = (path: string) => readFileSync(join(server.dataDir, "workspaces", user.workspaceId, path), "utf8");

  /** Fills the filesystem to the last byte (one ballast file as large as the free space, then small ones until refused). */
  function fillDisk(): void {
    const s = statfsSync(DATA);
    writeFileSync(BALLAST, Buffer.alloc(Math.max(0, s.bavail * s.bsize - 4096), 1));
    for (let i = 0; ; i++) {
      try {
        writeFileSync(`${BALLAST}.${i}`, Buffer.alloc(4096, 1));
      } catch {
        break;
      }
    }
  }

  test("a refused save says the disk is full, keeps the text, and goes through by itself once space is freed", async () => {
    expect((await user.client.post(`/api/v1/content/${user.workspaceSlug}/notes.md`, { title: "Notes", body: "First line.\n" })).status).toBe(201);
    const tab = await newTab(browser);
    const { page } = tab;
    await page.goto(`${server.url}/w/${user.workspaceSlug}/p/notes.md`);
    await signInInUi(page, user);
    const editor = page.getByRole("textbox", { name: "Page content" });
    await editor.waitFor();
    expect(await page.locator(".storage-banner").count()).toBe(0);

    fillDisk();
    await clickIntoText(editor.getByText("First line."));
    await page.keyboard.press("End");
    await page.keyboard.type(" Typed while the disk was full.");
    await page.keyboard.press("Control+s");
    await page.locator('[data-status="error"]').waitFor({ timeout: 10_000 });
    const alert = page.getByRole("alert").filter({ hasText: "The server's disk is full; nothing was saved." });
    await alert.waitFor();
    expect(await alert.textContent()).toContain("Your text is kept here");
    expect(await page.getByText(/session (has )?ended/i).count()).toBe(0);
    // The text on screen is the writer's; the file on disk is the one saved before.
    expect(await editor.textContent()).toContain("Typed while the disk was full.");
    expect(fileOnDisk("notes.md")).not.toContain("Typed while the disk was full.");
    // The administrator (the workspace's owner) is told the storage refuses writes.
    await page.locator(".storage-banner").getByText("refusing writes").waitFor({ timeout: 10_000 });

    // Space comes back: the automatic retry saves the text without anyone touching the editor.
    spawnSync("sh", ["-c", `rm -f ${BALLAST}*`]);
    await page.locator('[data-status="saved"]').waitFor({ timeout: 20_000 });
    expect(fileOnDisk("notes.md")).toContain("First line. Typed while the disk was full.");
    expect(await page.getByRole("alert").filter({ hasText: "nothing was saved" }).count()).toBe(0);
    // The save that went through re-reads readiness: the banner goes.
    await page.locator(".storage-banner").waitFor({ state: "detached", timeout: 10_000 });
    expectNoConsoleErrors(tab, [507]);
  }, 60_000);
});
