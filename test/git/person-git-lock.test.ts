/**
 * A person's git command in a workspace's work tree holds `.git/index.lock` for as long as it
 * runs: `git commit` while its editor is open, `git add -p` while they answer. The server never
 * removes that lock (doing so breaks the command: "unable to write new_index file"). Its commits
 * go on — they are made from the saved bytes, without the index — and its update of the index
 * waits a moment, gives up, and is tried again until the command is done
 * (docs/decisions/git-commits.md §15).
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { existsSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { registerUser, type TestUser } from "../helpers/factories.ts";
import { git } from "../helpers/git-remote.ts";

let server: TestServer;
let owner: TestUser;
beforeAll(async () => {
  server = await startTestServer();
  owner = await registerUser(server.url);
});
afterAll(() => server?.close());

const waits = () => server.logs.filter((l) => l.includes("git index update waits for another git command") && l.includes("another git command holds"));

test("saves are committed while a person's git command holds the index lock; the lock is left alone, and the index catches up once it is done", async () => {
  const dir = join(server.dataDir, "workspaces", owner.workspaceId);
  await server.services.gitSync.settled();
  const index = join(dir, ".git", "index");
  const lock = `${index}.lock`;
  writeFileSync(lock, "", { flag: "wx" }); // the person's `git commit` opens its editor

  const saved = await owner.client.post(`/api/v1/content/${owner.workspaceSlug}/notes/while-locked.md`, { title: "While locked", body: "Saved while git held the index.\n" });
  expect(saved.status).toBe(201);
  await server.services.gitSync.idle();
  expect(await git(["log", "-1", "--name-only", "--format="], { cwd: dir })).toContain("notes/while-locked.md");

  // The index update meets the lock, waits, and gives up; the lock is the person's still.
  for (let waited = 0; waits().length === 0; waited += 50) {
    if (waited > 15_000) throw new Error("the index update never met the lock");
    await Bun.sleep(50);
  }
  expect(existsSync(lock)).toBe(true);
  expect(readFileSync(lock).byteLength).toBe(0);
  expect(server.logs.filter((l) => l.includes("git index update failed"))).toEqual([]); // a wait, not a failure

  // The command ends: git renames its index into place (this one unchanged), and the server's retry stages the page.
  writeFileSync(lock, readFileSync(index));
  renameSync(lock, index);
  await server.services.gitSync.settled();
  expect((await git(["status", "--porcelain"], { cwd: dir })).trim()).toBe("");
  expect(await git(["ls-files", "notes"], { cwd: dir })).toContain("notes/while-locked.md");
}, 30_000);
