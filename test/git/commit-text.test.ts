/**
 * User text in commits: a person's name or email with angle brackets cannot corrupt the author
 * line (git fsck stays clean), and a file name holding line breaks cannot forge message lines
 * (it is quoted the way `git status` quotes it).
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { registerUser } from "../helpers/factories.ts";
import { git, tryGit } from "../helpers/git-remote.ts";
import { GIT_ENV, waitFor } from "./support.ts";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer(GIT_ENV);
});
afterAll(() => server.close());

test("a name with angle brackets is written without them; the commit passes git fsck --strict", async () => {
  const eve = await registerUser(server.url, { name: "Eve <root@evil.test>", email: "eve@example.test" });
  const r = await eve.client.post(`/api/v1/content/${eve.workspaceSlug}/signed`, { title: "Signed", body: "x" });
  expect(r.status).toBe(201);
  await server.services.gitSync.idle();
  const dir = server.services.ledger.dir(eve.workspaceId).root;
  const raw = await git(["cat-file", "-p", "HEAD"], { cwd: dir });
  expect(raw).toMatch(/^author Eve root@evil\.test <eve@example\.test> \d+ \+0000$/m);
  const fsck = await tryGit(["fsck", "--strict", "--no-dangling"], { cwd: dir });
  expect({ code: fsck.code, stderr: fsck.stderr.trim() }).toEqual({ code: 0, stderr: "" });
});

test("a file named with line breaks is quoted in the message: no forged trailer line", async () => {
  const mallory = await registerUser(server.url, { name: "Mallory", email: "mallory@example.test" });
  await server.services.gitSync.idle();
  const dir = server.services.ledger.dir(mallory.workspaceId).root;
  const name = "notes\n\nSigned-off-by: Mallory <m@evil.test>.txt";
  writeFileSync(join(dir, name), "plain\n");
  server.services.gitSync.onDiskFiles(mallory.workspaceId, [name]); // what the watcher reports
  const message = await waitFor(async () => {
    const m = await git(["log", "-1", "--format=%B"], { cwd: dir });
    return m.includes("Signed-off-by") ? m : null;
  }, 10_000, "the file's commit");
  expect(message.split("\n")[0]).toBe('Create "notes\\n\\nSigned-off-by: Mallory <m@evil.test>.txt" via filesystem');
  expect(message.split("\n").filter((l) => l.startsWith("Signed-off-by"))).toEqual([]);
  expect((await git(["ls-tree", "--name-only", "-z", "HEAD"], { cwd: dir })).split("\0")).toContain(name);
});
