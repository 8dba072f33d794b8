/**
 * A full disk, for real: the data directory is a small tmpfs, filled by real saves and uploads
 * from several clients at once. Every refusal is a 507 in the error shape, logged at warn (never
 * as an unhandled error); every acknowledged save keeps its file, record, search entry, and
 * reaches git history and the loopback remote once space is freed, without a restart. A read-only
 * remount answers 503. Tests run as root here and in CI; where mounting is refused they are
 * skipped with a message saying so.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statfsSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { registerUser, type TestUser } from "../helpers/factories.ts";
import { Client } from "../helpers/client.ts";
import { git, startGitHttpRemote, type GitHttpRemote } from "../helpers/git-remote.ts";
import { isAtomicTemp } from "../../src/content/atomic-write.ts";
import { runDoctor } from "../../src/ops/doctor.ts";
import { GIT_ENV, createFromRemote, settled } from "../git/support.ts";

const MOUNT = mkdtempSync(join(tmpdir(), "quire-tmpfs-"));
const mounted = spawnSync("mount", ["-t", "tmpfs", "-o", "size=24m", "tmpfs", MOUNT]).status === 0;
if (!mounted) console.warn(`test/ops/storage.test.ts: skipped, mounting a tmpfs on ${MOUNT} was refused (needs root)`);
const DATA = join(MOUNT, "data");
const BALLAST = join(DATA, "ballast.bin");
const FULL_MESSAGE = "The server's disk is full; nothing was saved. Ask your administrator to free space.";

let server: TestServer;
let owner: TestUser;
let remote: GitHttpRemote;
let ws: { id: string; slug: string };
let dir: string;

beforeAll(async () => {
  if (!mounted) return;
  server = await startTestServer({ ...GIT_ENV, STORAGE_MIN_FREE_MB: "8" }, { dataDir: DATA, keepDir: true });
  owner = await registerUser(server.url, { name: "Ada Lovelace", email: "ada@example.test" });
  remote = await startGitHttpRemote({ branch: "main" });
  ws = (await createFromRemote(owner, "full", remote.url)).body;
  await settled(server);
  dir = server.services.ledger.dir(ws.id).root;
});

afterAll(async () => {
  if (!mounted) return;
  if (dir) spawnSync("umount", [dir]); // the read-only bind mount, if a failure left it
  await server?.close();
  await remote?.close();
  spawnSync("umount", ["-l", MOUNT]);
  rmSync(MOUNT, { recursive: true, force: true });
});

/** Text that does not compress (git stores it whole): `n` KB, tagged with a word search can find. */
function pageBody(word: string, kb: number): string {
  const lines = [`The word ${word} marks this page.`];
  while (lines.join("\n").length < kb * 1024) lines.push(crypto.getRandomValues(new Uint8Array(48)).toBase64());
  return lines.join("\n") + "\n";
}

function freeBytes(): number {
  const s = statfsSync(DATA);
  return s.bavail * s.bsize;
}

function logLines(): Array<Record<string, unknown>> {
  return server.logs.map((l) => JSON.parse(l) as Record<string, unknown>);
}

function tempFilesUnder(root: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(root, { withFileTypes: true, recursive: true })) if (entry.isFile() && isAtomicTemp(entry.name)) out.push(entry.name);
  return out;
}

/**
 * Unmounts `dir`, trying again while the kernel calls it busy: the server keeps retrying its
 * commits and reads the pages for them, and a file it has open at that instant holds the mount
 * for a moment (umount's exit status 32, "target is busy").
 */
async function unmount(dir: string): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    const r = spawnSync("umount", [dir]);
    if (r.status === 0) return;
    const why = r.stderr.toString();
    if (!why.includes("busy") || attempt === 50) throw new Error(`umount ${dir} failed (${r.status}): ${why}`);
    await Bun.sleep(100);
  }
}

describe.skipIf(!mounted)("a full disk", () => {
  test("refuses with 507, keeps every acknowledged save whole, and git catches up once space is freed", async () => {
    const ready = async () => (await owner.client.get("/api/ready")).body;
    expect((await ready()).checks.storage).toEqual({ status: "ok" });
    // Leave about 3 MB: a few pages fit, then the disk is full.
    writeFileSync(BALLAST, Buffer.alloc(Math.max(0, freeBytes() - 3 * 1024 * 1024), 1));
    // Under STORAGE_MIN_FREE_MB (8 here): visible before anything fails.
    const low = await ready();
    expect(low.status).toBe("ready");
    expect(low.checks.storage.status).toBe("degraded");
    const gauge = Number(/^quire_storage_free_bytes (\d+)$/m.exec(server.services.metrics.render())?.[1]);
    expect(Math.abs(gauge - freeBytes())).toBeLessThan(512 * 1024);
    const before = (await owner.client.get(`/api/v1/content/${ws.slug}/index.md`)).body;

    const acked: Array<{ path: string; body: string; word: string }> = [];
    const uploads: string[] = [];
    const refusals: Array<{ status: number; body: any }> = [];
    let n = 0;
    // Four clients at once, each saving 100 KB pages (one of them also uploads) until refused three times.
    const clientLoop = async (k: number) => {
      const client = new Client(server.url);
      client.token = owner.client.token;
      let refused = 0;
      while (refused < 3) {
        const i = n++;
        const word = `fillword${i}x`;
        const body = pageBody(word, 100);
        const res = await client.post(`/api/v1/content/${ws.slug}/fill/p-${i}`, { title: `Fill ${i}`, body });
        if (res.status === 201) acked.push({ path: `fill/p-${i}.md`, body, word });
        else {
          refusals.push({ status: res.status, body: res.body });
          refused++;
        }
        if (k === 0) {
          const form = new FormData();
          form.append("file", new File([pageBody(`upload${i}`, 60)], `notes-${i}.txt`, { type: "text/plain" }));
          const up = await client.request("POST", `/api/v1/content/${ws.slug}/uploads`, { body: form });
          if (up.status === 201) uploads.push(up.body.path ?? up.body.filename);
          else refusals.push({ status: up.status, body: up.body });
        }
        if (i > 400) throw new Error("the disk never filled");
      }
    };
    await Promise.all([0, 1, 2, 3].map(clientLoop));

    expect(acked.length).toBeGreaterThan(0);
    expect(refusals.length).toBeGreaterThanOrEqual(12);
    for (const r of refusals) {
      if (r.status !== 507) console.log(JSON.stringify(r.body));
      expect(r.status).toBe(507);
      expect(r.body).toMatchObject({ error: "INSUFFICIENT_STORAGE", message: FULL_MESSAGE });
      expect(typeof r.body.request_id).toBe("string");
    }
    // While writes fail, readiness says so; reads are still served (the instance stays ready).
    const failing = await ready();
    expect(failing.status).toBe("ready");
    expect(failing.checks.storage).toEqual({ status: "unavailable", message: "writes are failing: the disk is full" });
    // `quire doctor`'s storage check fails on the full disk and says what to do.
    const storageCheck = runDoctor(DATA, { env: { ...process.env, QUIRE_ENV: "test", STORAGE_MIN_FREE_MB: "8" } }).checks.find((c) => c.name === "storage")!;
    expect(storageCheck.status).not.toBe("pass");
    expect(storageCheck.message).toMatch(/MB free of/);
    expect(storageCheck.hint).toContain("free space");
    const logs = logLines();
    expect(logs.filter((l) => l.msg === "unhandled error")).toEqual([]);
    const warned = logs.filter((l) => l.level === "warn" && String(l.msg).startsWith("write refused"));
    expect(warned.length).toBeGreaterThanOrEqual(1);
    expect(warned.length).toBeLessThanOrEqual(2); // once a minute (the HTTP refusal and the commit's share one kind)
    expect(typeof warned[0]!.free_bytes).toBe("number");

    // Reads go on; an edit refused on the full disk left the page as it was, and no temporary file.
    const edit = await owner.client.put(`/api/v1/content/${ws.slug}/index.md`, { body: pageBody("neverSaved", 200), lastKnownHash: before.content_hash });
    expect(edit.status).toBe(507);
    const after = await owner.client.get(`/api/v1/content/${ws.slug}/index.md`);
    expect(after.body.content_hash).toBe(before.content_hash);
    expect(tempFilesUnder(dir)).toEqual([]);

    // A read-only remount: 503, and the page still as it was. The kernel refuses to remount the
    // whole filesystem read-only while SQLite holds its files open for writing, so the workspace
    // folder is bind-mounted over itself and that mount made read-only.
    expect(spawnSync("mount", ["--bind", dir, dir]).status).toBe(0);
    const remounted = spawnSync("mount", ["-o", "remount,ro,bind", dir]);
    expect(remounted.stderr.toString()).toBe("");
    const ro = await owner.client.put(`/api/v1/content/${ws.slug}/index.md`, { body: "read-only\n", lastKnownHash: before.content_hash });
    expect(ro.status).toBe(503);
    expect(ro.body.error).toBe("SERVICE_UNAVAILABLE");
    expect(ro.body.message).toContain("read-only");
    await unmount(dir);

    // Space freed: without a restart or another save, every acknowledged save reaches the history and the remote.
    const missing = async () => {
      const committed = new Set((await git(["log", "--name-only", "--format=", "HEAD"], { cwd: dir })).split("\n").filter(Boolean));
      return acked.filter((a) => !committed.has(a.path));
    };
    // The full disk did keep acknowledged saves out of the history: what follows is a catch-up.
    const uncommitted = (await missing()).length;
    expect(uncommitted).toBeGreaterThan(0);
    rmSync(BALLAST);
    const freedAt = performance.now();
    for (;;) {
      const left = await missing();
      const status = await git(["status", "--porcelain"], { cwd: dir });
      const pushed = (await remote.head()) === (await git(["rev-parse", "HEAD"], { cwd: dir })).trim();
      if (left.length === 0 && status.trim() === "" && pushed) break;
      if (performance.now() - freedAt > 30_000) throw new Error(`after 30 s: ${left.length} acknowledged saves not committed, status ${JSON.stringify(status)}, pushed ${pushed}`);
      await Bun.sleep(250);
    }
    const catchUpMs = performance.now() - freedAt;
    console.log(`storage: ${uncommitted} uncommitted of ${acked.length} saves and ${uploads.length} uploads acknowledged, ${refusals.length} refused; git and the remote caught up ${Math.round(catchUpMs)} ms after space was freed`);

    // Every acknowledged save: its file whole, its record, its search entry, its commit's author, its remote copy.
    // A search index update the full disk refused is caught up at the index's next use.
    for (let t = performance.now(); ; ) {
      const probe = await owner.client.get(`/api/v1/workspaces/${ws.id}/search?q=fill`);
      if (probe.body.indexing === undefined) break;
      if (performance.now() - t > 10_000) throw new Error("the search index never caught up");
      await Bun.sleep(50);
    }
    const authors = new Set((await git(["log", "--format=%an", "HEAD"], { cwd: dir })).split("\n").filter(Boolean));
    expect(authors.has("Ada Lovelace")).toBe(true);
    for (const a of acked) {
      expect(readFileSync(join(dir, a.path), "utf8").includes(a.body)).toBe(true);
      const page = await owner.client.get(`/api/v1/content/${ws.slug}/${a.path}`);
      expect(page.status).toBe(200);
      expect(page.body.content === a.body).toBe(true);
      const found = await owner.client.get(`/api/v1/workspaces/${ws.id}/search?q=${a.word}`);
      expect(found.body.items.map((x: any) => x.path)).toContain(a.path);
      expect((await remote.show(a.path))?.includes(a.body)).toBe(true);
    }
    const whoSaved = (await git(["log", "--format=%an", "--", ...acked.map((a) => a.path)], { cwd: dir })).split("\n").filter(Boolean);
    expect(new Set(whoSaved)).toEqual(new Set(["Ada Lovelace"]));
    expect(tempFilesUnder(dir)).toEqual([]);

    // And new writes succeed again.
    const again = await owner.client.post(`/api/v1/content/${ws.slug}/after-full`, { title: "After", body: "room again\n" });
    expect(again.status).toBe(201);
  }, 60_000);
});
