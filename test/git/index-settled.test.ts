/**
 * After a large import the git index is brought up to date last: a second after the last commit,
 * in chunks of 200 files (docs/decisions/git-commits.md §1). `gitSync.settled()` waits for that
 * too, where `idle()` stops at the commits — what a measure of a settled workspace needs.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
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

test("settled() returns once the index holds every imported file: git status is clean, nothing waits", async () => {
  const dir = join(server.dataDir, "workspaces", owner.workspaceId);
  mkdirSync(join(dir, "imported"), { recursive: true });
  // Three chunks' worth of files written beside the server, as an import or a copy would.
  for (let i = 0; i < 450; i++) writeFileSync(join(dir, "imported", `page-${i}.md`), `# Page ${i}\n\nImported text ${i}.\n`);
  await server.services.reconciler.reconcile(owner.workspaceId);
  await server.services.gitSync.settled();
  expect(server.services.gitSync.repo(owner.workspaceId).indexLag).toBe(0);
  expect((await git(["status", "--porcelain"], { cwd: dir })).trim()).toBe("");
  expect((await git(["ls-files", "imported"], { cwd: dir })).trim().split("\n")).toHaveLength(450);
}, 60_000);
