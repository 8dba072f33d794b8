/**
 * Commits the disk refused are held with their bytes and retried in order (docs/decisions/storage.md
 * §3): two people save the same page several times while git's object store is full, then space
 * is freed, and without a restart or another save every acknowledged version is in the page's
 * history, in order, each by its author, and on the loopback remote. The object store is a small
 * tmpfs of its own (the work tree keeps room, so the saves are acknowledged while their commits
 * fail with ENOSPC). Needs root to mount; skipped with a message otherwise.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { cpSync, mkdtempSync, rmSync, statfsSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { registerUser, type TestUser } from "../helpers/factories.ts";
import { git, startGitHttpRemote, type GitHttpRemote } from "../helpers/git-remote.ts";
import { GIT_ENV, createFromRemote, settled } from "./support.ts";

const MOUNT = mkdtempSync(join(tmpdir(), "quire-objects-"));
const mounted = spawnSync("mount", ["-t", "tmpfs", "-o", "size=8m", "tmpfs", MOUNT]).status === 0;
if (!mounted) console.warn(`test/git/full-disk-commits.test.ts: skipped, mounting a tmpfs on ${MOUNT} was refused (needs root)`);
const BALLAST = join(MOUNT, "ballast.bin");

let server: TestServer;
let ada: TestUser;
let bob: TestUser;
let remote: GitHttpRemote;
let ws: { id: string; slug: string };
let dir: string;
let objects = "";

beforeAll(async () => {
  if (!mounted) return;
  server = await startTestServer(GIT_ENV);
  ada = await registerUser(server.url, { name: "Ada Lovelace", email: "ada@example.test" });
  bob = await registerUser(server.url, { name: "Bob Babbage", email: "bob@example.test" });
  remote = await startGitHttpRemote({ branch: "main" });
  ws = (await createFromRemote(ada, "held", remote.url)).body;
  server.services.db.query("INSERT INTO workspace_members (workspace_id, user_id, role, joined_at) VALUES (?, ?, 'editor', ?)").run(ws.id, bob.id, new Date().toISOString());
  await settled(server);
  dir = server.services.ledger.dir(ws.id).root;
  // git's object store moves onto the small tmpfs, its contents kept.
  objects = join(dir, ".git", "objects");
  cpSync(objects, MOUNT, { recursive: true });
  expect(spawnSync("mount", ["--bind", MOUNT, objects]).status).toBe(0);
});

afterAll(async () => {
  if (!mounted) return;
  await server?.services.gitSync.stop();
  if (objects) spawnSync("umount", ["-l", objects]); // before the data directory is removed
  await server?.close();
  await remote?.close();
  spawnSync("umount", ["-l", MOUNT]);
  rmSync(MOUNT, { recursive: true, force: true });
});

const freeBytes = () => {
  const s = statfsSync(MOUNT);
  return s.bavail * s.bsize;
};

describe.skipIf(!mounted)("commits refused by a full disk", () => {
  test("are retried in order once space is freed: every acknowledged version in the history, by its author, and pushed", async () => {
    const saved = await ada.client.post(`/api/v1/content/${ws.slug}/shared`, { title: "Shared", body: "version 0\n" });
    expect(saved.status).toBe(201);
    await settled(server);
    const head0 = (await git(["rev-parse", "HEAD"], { cwd: dir })).trim();
    // Fill the object store: no room for a single object.
    writeFileSync(BALLAST, Buffer.alloc(freeBytes(), 1));
    for (let i = 0; freeBytes() > 0 && i < 100; i++) writeFileSync(join(MOUNT, `ballast-${i}.bin`), Buffer.alloc(Math.min(freeBytes(), 4096), 1));

    // Ada and Bob take turns saving the same page; each save is acknowledged (the work tree has room).
    const acked: Array<{ body: string; author: string }> = [];
    let hash = saved.body.content_hash as string;
    for (let i = 1; i <= 6; i++) {
      const who = i % 3 === 0 ? bob : ada; // Ada, Ada, Bob, Ada, Ada, Bob: same-author neighbours too
      const body = `version ${i} by ${who === bob ? "Bob" : "Ada"}\n`;
      const res = await who.client.put(`/api/v1/content/${ws.slug}/shared.md`, { body, lastKnownHash: hash });
      expect(res.status).toBe(200);
      hash = res.body.content_hash;
      acked.push({ body, author: who === bob ? "Bob Babbage" : "Ada Lovelace" });
      await Bun.sleep(150); // each save reaches the worker on its own (a commit each, as without the full disk)
    }
    await Bun.sleep(500);
    // Nothing got into the history while the disk was full.
    expect((await git(["rev-parse", "HEAD"], { cwd: dir })).trim()).toBe(head0);

    for (const f of ["ballast.bin", ...Array.from({ length: 100 }, (_, i) => `ballast-${i}.bin`)]) rmSync(join(MOUNT, f), { force: true });
    const freedAt = performance.now();
    const history = async () => {
      const out = await git(["log", "--reverse", "--format=%H %an", "--", "shared.md"], { cwd: dir });
      return out.split("\n").filter(Boolean).map((l) => ({ oid: l.slice(0, 40), author: l.slice(41) }));
    };
    for (;;) {
      const log = await history();
      const pushed = (await remote.head()) === (await git(["rev-parse", "HEAD"], { cwd: dir })).trim();
      if (log.length >= acked.length + 1 && pushed) break;
      if (performance.now() - freedAt > 30_000) throw new Error(`after 30 s: ${log.length - 1} of ${acked.length} versions committed, pushed ${pushed}`);
      await Bun.sleep(200);
    }
    const caughtUpMs = Math.round(performance.now() - freedAt);
    const log = await history();
    // The first entry is version 0; then each acknowledged version, in order, by its author.
    expect(log.length).toBe(acked.length + 1);
    for (let i = 0; i < acked.length; i++) {
      expect(log[i + 1]!.author).toBe(acked[i]!.author);
      expect(await git(["show", `${log[i + 1]!.oid}:shared.md`], { cwd: dir })).toContain(acked[i]!.body.trim());
    }
    expect((await remote.show("shared.md"))?.includes(acked.at(-1)!.body.trim())).toBe(true);
    // The index is brought up to date a moment after the last commit: then `git status` is clean.
    for (const t = performance.now(); (await git(["status", "--porcelain"], { cwd: dir })).trim() !== ""; await Bun.sleep(200)) {
      if (performance.now() - t > 10_000) expect((await git(["status", "--porcelain"], { cwd: dir })).trim()).toBe("");
    }
    const logs = server.logs.map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(logs.filter((l) => l.level === "error" || l.msg === "unhandled error")).toEqual([]);
    console.log(`full-disk commits: ${acked.length} held saves committed in order and pushed ${caughtUpMs} ms after space was freed`);
  }, 60_000);
});
