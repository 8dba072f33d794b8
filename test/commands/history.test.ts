/**
 * `quire history` and `quire restore` as real processes: beside a running server (history reads its
 * database read-only; restore goes through its API with a key) and alone with the data directory's
 * lock. Bad input is refused with its exit code and a message, and changes nothing.
 */
import { afterAll, expect, test, setDefaultTimeout } from "bun:test";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../helpers/server.ts";
import { registerUser } from "../helpers/factories.ts";
import { git } from "../helpers/git-remote.ts";
import { createKey } from "../mcp/fixture.ts";
import { runCli, startServe } from "../cli/spawn.ts";

setDefaultTimeout(60_000);
const dir = tempDir("quire-history-cli-");
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const commits = async (ws: string) => Number((await git(["rev-list", "--count", "HEAD"], { cwd: join(dir, "workspaces", ws) })).trim());

test("history and restore beside a running server, then alone", async () => {
  const s = await startServe(dir);
  let ws: string;
  let versions: any[];
  try {
    const user = await registerUser(s.base, { name: "Ada", email: "ada@example.test" });
    ws = user.workspaceId;
    const content = `/api/v1/content/${user.workspaceSlug}/plan.md`;
    // The commits are made after the answers (one person's saves in a burst can share one): each
    // save waits until the index lists its version, so the three are three versions.
    const versionsListed = async (n: number) => {
      for (let i = 0; i < 200; i++) {
        const h = await user.client.get(`/api/v1/workspaces/${ws}/history?path=plan.md`);
        if (h.status === 200 && h.body.items.length >= n) return;
        await Bun.sleep(50);
      }
      throw new Error(`the history never listed ${n} versions`);
    };
    expect((await user.client.post(content, { title: "Plan", body: "One.\n" })).status).toBe(201);
    await versionsListed(1);
    for (const [i, body] of ["Two.\n", "Three.\n"].entries()) {
      const page = (await user.client.get(content)).body;
      expect((await user.client.put(content, { body, lastKnownHash: page.content_hash })).status).toBe(200);
      await versionsListed(i + 2);
    }

    const listed = await runCli(["history", "-w", ws, "plan.md", "--json", "--data-dir", dir]);
    expect(listed.code).toBe(0);
    versions = JSON.parse(listed.stdout).items;
    expect(versions.map((v: any) => v.channel)).toEqual(["web", "web", "web"]);
    const human = await runCli(["history", "-w", ws, "plan.md", "--limit", "2", "--data-dir", dir]);
    expect(human.code).toBe(0);
    expect(human.stdout.trim().split("\n")).toHaveLength(2);
    expect(human.stdout).toContain(versions[0].commit.slice(0, 12));
    expect(human.stdout).toContain("Ada <ada@example.test>");

    // Restoring needs the server's API: without a key it says how, and nothing changes.
    const before = await commits(ws);
    const noKey = await runCli(["restore", "-w", ws, "plan.md", "--commit", versions[2].commit, "--data-dir", dir]);
    expect(noKey.code).toBe(1);
    expect(noKey.stderr).toContain("pass --api-key");
    const key = (await createKey(user, ["read", "write"])).key;
    const unknown = await runCli(["restore", "-w", ws, "plan.md", "--commit", "0123456789abcdef0123456789abcdef01234567", "--api-key", key, "--data-dir", dir]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain("Version not found");
    const restored = await runCli(["restore", "-w", ws, "plan.md", "--commit", versions[2].commit, "--api-key", key, "--json", "--data-dir", dir]);
    expect(restored.code).toBe(0);
    expect(JSON.parse(restored.stdout)).toMatchObject({ path: "plan.md", content: "One.\n" });
    for (let i = 0; i < 100 && (await commits(ws)) === before; i++) await Bun.sleep(50);
    expect(await commits(ws)).toBe(before + 1);
  } finally {
    s.proc.kill("SIGTERM");
    await s.exited;
  }

  // Alone: the command takes the lock, reads what the index lacks, and restores with one commit.
  const alone = await runCli(["history", "-w", ws!, "plan.md", "--json", "--data-dir", dir]);
  expect(alone.code).toBe(0);
  const now = JSON.parse(alone.stdout).items;
  expect(now[0]).toMatchObject({ channel: "restore" });
  const before = await commits(ws!);
  const back = await runCli(["restore", "-w", ws!, "plan.md", "--commit", versions![0].commit, "--data-dir", dir]);
  expect(back.code).toBe(0);
  expect(back.stdout).toContain(`Restored plan.md to ${versions![0].commit}`);
  expect(await commits(ws!)).toBe(before + 1);
  expect((await git(["show", "HEAD:plan.md"], { cwd: join(dir, "workspaces", ws!) })).endsWith("Three.\n")).toBe(true);
});

test("bad input: exit 2 with the reason, and a page or workspace that is not there", async () => {
  const badCommit = await runCli(["restore", "-w", "01HZZZZZZZZZZZZZZZZZZZZZZZ", "plan.md", "--commit", "not-a-commit", "--data-dir", dir]);
  expect(badCommit.code).toBe(2);
  expect(badCommit.stderr).toContain("--commit must be a commit id");
  const badWs = await runCli(["history", "-w", "nope", "plan.md", "--data-dir", dir]);
  expect(badWs.code).toBe(2);
  expect(badWs.stderr).toContain("--workspace must be a workspace id");
  const badLimit = await runCli(["history", "-w", "01HZZZZZZZZZZZZZZZZZZZZZZZ", "plan.md", "--limit", "1000", "--data-dir", dir]);
  expect(badLimit.code).toBe(2);
  const noWs = await runCli(["history", "-w", "01HZZZZZZZZZZZZZZZZZZZZZZZ", "plan.md", "--data-dir", dir]);
  expect(noWs.code).toBe(1);
  expect(noWs.stderr).toContain("No workspace with id");
});
