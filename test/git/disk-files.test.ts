/**
 * Files beside the pages (images under assets/, .gitignore, manifests) changed on disk by hand
 * enter the history like pages changed on disk: one debounced commit authored by Quire, the exact
 * bytes, pushed by the normal sync. Ignored files, symlinks and files over the size limit never
 * go in; page saves through the API commit exactly as before.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { mkdirSync, mkdtempSync, renameSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { registerUser, type TestUser } from "../helpers/factories.ts";
import { git, tryGit, IdeClone, startGitHttpRemote, type GitHttpRemote } from "../helpers/git-remote.ts";
import { GIT_ENV, createFromRemote, row, settled, waitFor } from "./support.ts";

let server: TestServer;
let owner: TestUser;
let remote: GitHttpRemote;
let ws: { id: string; slug: string };
let dir: string;
/** The file watcher's reports to git for the workspace, in order: the paths of each (after its debounce). */
const reports: string[][] = [];
const outside = mkdtempSync(join(tmpdir(), "quire-outside-"));

beforeAll(async () => {
  server = await startTestServer(GIT_ENV);
  owner = await registerUser(server.url, { name: "Ada Lovelace", email: "ada@example.test" });
  remote = await startGitHttpRemote({ branch: "main" });
  const r = await createFromRemote(owner, "files", remote.url);
  expect(r.status).toBe(201);
  ws = r.body;
  await settled(server);
  dir = server.services.ledger.dir(ws.id).root;
  server.services.watcher!.onFiles((id, paths) => {
    if (id === ws.id) reports.push(paths);
  });
}, 20_000);
afterAll(async () => {
  await server.close();
  await remote.close();
  rmSync(outside, { recursive: true, force: true });
}, 20_000);

interface Commit {
  subject: string;
  author: string;
  files: string[];
}

/** Newest-first commits of the remote's branch with the files each touched. */
async function remoteLog(): Promise<Commit[]> {
  const r = await tryGit(["log", "--format=\x1e%s\x1f%an <%ae>", "--name-only", "--no-renames", "refs/heads/main"], { cwd: remote.bareDir });
  if (r.code !== 0) return [];
  return r.stdout
    .split("\x1e")
    .filter((s) => s.trim() !== "")
    .map((s) => {
      const [head, ...rest] = s.split("\n");
      const [subject, author] = head!.split("\x1f");
      return { subject: subject!, author: author!, files: rest.map((l) => l.trim()).filter((l) => l !== "") };
    });
}

/** Every path any commit on the remote ever touched. */
async function everCommitted(): Promise<Set<string>> {
  return new Set((await remoteLog()).flatMap((c) => c.files));
}

const put = (path: string, data: string | Uint8Array) => {
  mkdirSync(join(dir, path, ".."), { recursive: true });
  writeFileSync(join(dir, path), data);
};

/** Bytes that are not UTF-8: a PNG signature, a marker, invalid sequences and a NUL. */
const png = (marker: number, size = 64) => {
  const bytes = new Uint8Array(size);
  bytes.set([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, marker, 0xff, 0xfe, 0xc3, 0x28, 0x00]);
  for (let i = 14; i < size; i++) bytes[i] = (i * 31 + marker) & 0xff;
  return bytes;
};
const blobId = (bytes: Uint8Array) => createHash("sha1").update(`blob ${bytes.length}\0`).update(bytes).digest("hex");
/** The blob id the remote's branch holds at `path`, or null. */
async function remoteBlob(path: string): Promise<string | null> {
  const r = await tryGit(["rev-parse", "--verify", "--quiet", `refs/heads/main:${path}`], { cwd: remote.bareDir });
  return r.code === 0 ? r.stdout.trim() : null;
}

const onRemote = (subject: string, ms = 6000) => waitFor(async () => (await remoteLog()).find((c) => c.subject === subject), ms, `"${subject}" on the remote`);

/**
 * Waits until the watcher has reported each of `paths` (or a folder holding it) in a report after
 * the `from`-th, then for everything git queued on those reports: a change on disk has then had
 * every effect it will have.
 */
async function reported(from: number, ...paths: string[]): Promise<void> {
  const covered = (path: string) => reports.slice(from).some((r) => r.some((p) => p === path || path.startsWith(`${p}/`)));
  await waitFor(() => paths.every(covered), 6000, `the watcher's report of ${paths.join(", ")}`);
  await settled(server);
}

/** For writes the watcher reports nothing of (pages saved by the ledger): its debounce, then everything git queued. */
async function quiet(): Promise<void> {
  await Bun.sleep(700);
  await settled(server);
}

describe("an image dropped into assets/ by hand", () => {
  const path = "assets/diagram.png";

  test("is committed by Quire, byte for byte, and reaches the remote", async () => {
    const bytes = png(1);
    put(path, bytes);
    const commit = await onRemote(`Create ${path} via filesystem`);
    expect(commit).toMatchObject({ author: "Quire <quire@localhost>", files: [path] });
    expect(await remoteBlob(path)).toBe(blobId(bytes));
    await settled(server);
    expect(row(server, ws.id).sync_status).toBe("synced");
    expect(await remote.head()).toBe((await git(["rev-parse", "HEAD"], { cwd: dir })).trim());
  }, 20_000);

  test("replaced on disk, the new bytes are committed as an update", async () => {
    const bytes = png(2, 300);
    put(path, bytes);
    await onRemote(`Update ${path} via filesystem`);
    expect(await remoteBlob(path)).toBe(blobId(bytes));
  }, 20_000);

  test("deleted on disk, it disappears from the remote", async () => {
    rmSync(join(dir, path));
    const commit = await onRemote(`Delete ${path} via filesystem`);
    expect(commit.files).toEqual([path]);
    expect(await remoteBlob(path)).toBeNull();
    // The work tree and HEAD agree; the index caught up.
    await waitFor(async () => ((await git(["status", "--porcelain"], { cwd: dir })).trim() === "" ? "clean" : null), 8000, "a clean status");
  }, 20_000);
});

test("a burst of 50 files is one or few commits, every file on the remote exactly", async () => {
  const before = (await remoteLog()).length;
  const from = reports.length;
  const files = Array.from({ length: 50 }, (_, i) => ({ path: `assets/burst/img-${String(i).padStart(2, "0")}.png`, bytes: png(i + 10, 100 + i) }));
  for (const f of files) put(f.path, f.bytes);
  await onRemote("Sync 50 files changed on disk").catch(() => null);
  await waitFor(async () => ((await remoteBlob(files[49]!.path)) !== null ? true : null), 8000, "the last file on the remote");
  await reported(from, ...files.map((f) => f.path));
  const added = (await remoteLog()).slice(0, (await remoteLog()).length - before);
  expect(added.length).toBeGreaterThanOrEqual(1);
  expect(added.length).toBeLessThanOrEqual(3);
  for (const c of added) expect(c.author).toBe("Quire <quire@localhost>");
  expect(added.flatMap((c) => c.files).sort()).toEqual(files.map((f) => f.path));
  for (const f of files) expect(await remoteBlob(f.path)).toBe(blobId(f.bytes));
}, 20_000);

test("a folder moved in whole is committed; removed whole, its files go", async () => {
  const staging = join(outside, "icons");
  mkdirSync(join(staging, "small"), { recursive: true });
  writeFileSync(join(staging, "a.svg"), "<svg xmlns='http://www.w3.org/2000/svg'/>\n");
  writeFileSync(join(staging, "small/b.png"), png(3));
  renameSync(staging, join(dir, "assets/icons"));
  const commit = await onRemote("Sync 2 files changed on disk");
  expect(commit.files.sort()).toEqual(["assets/icons/a.svg", "assets/icons/small/b.png"]);
  expect(await remoteBlob("assets/icons/small/b.png")).toBe(blobId(png(3)));

  rmSync(join(dir, "assets/icons"), { recursive: true });
  await waitFor(async () => ((await remoteBlob("assets/icons/a.svg")) === null && (await remoteBlob("assets/icons/small/b.png")) === null ? true : null), 6000, "the folder gone from the remote");
}, 20_000);

test(".gitignore is committed and what it matches never is; manifests are committed, editor litter is not", async () => {
  put(".gitignore", "*.log\nbuild/\n");
  await onRemote("Create .gitignore via filesystem");
  const from = reports.length;
  put("debug.log", "noise\n");
  put("build/out.bin", png(4));
  put("assets/notes/.diagram.png.swp", "swap");
  put("assets/notes/diagram.png~", "backup");
  put(".quire/nav.yaml", "- file: index.md\n");
  await onRemote("Create .quire/nav.yaml via filesystem");
  await reported(from, "debug.log", "build/out.bin", ".quire/nav.yaml");
  const committed = await everCommitted();
  for (const path of ["debug.log", "build/out.bin", "assets/notes/.diagram.png.swp", "assets/notes/diagram.png~"]) expect(committed.has(path)).toBe(false);
  expect(await remote.show(".quire/nav.yaml")).toBe("- file: index.md\n");
  expect(await remote.show(".gitignore")).toBe("*.log\nbuild/\n");
  // An ignored file changed again is still never committed.
  const again = reports.length;
  put("debug.log", "more noise\n");
  await reported(again, "debug.log");
  expect((await everCommitted()).has("debug.log")).toBe(false);
  rmSync(join(dir, "debug.log"));
  rmSync(join(dir, "build"), { recursive: true });
  rmSync(join(dir, "assets/notes"), { recursive: true });
}, 20_000);

test("a symlink to a file outside the workspace is never committed (not even by a merge)", async () => {
  writeFileSync(join(outside, "secret.txt"), "top secret\n");
  symlinkSync(join(outside, "secret.txt"), join(dir, "assets/leak.txt"));
  put("assets/beside-the-link.txt", "visible\n");
  await onRemote("Create assets/beside-the-link.txt via filesystem");
  await mergeFromIde();
  expect((await everCommitted()).has("assets/leak.txt")).toBe(false);
  expect(server.services.gitSync.skipped(ws.id)).toContainEqual(expect.objectContaining({ path: "assets/leak.txt", reason: "symlink" }));
  expect(server.logs.some((l) => l.includes("file on disk not committed") && l.includes("assets/leak.txt"))).toBe(true);
  rmSync(join(dir, "assets/leak.txt"));
}, 20_000);

test("a file over the 10 MB limit is skipped and logged, also by the next merge; a smaller one beside it goes in", async () => {
  const big = new Uint8Array(10 * 1024 * 1024 + 1).fill(7);
  put("assets/video.mp4", big);
  put("assets/poster.png", png(5));
  await onRemote("Create assets/poster.png via filesystem");
  await mergeFromIde();
  expect((await everCommitted()).has("assets/video.mp4")).toBe(false);
  expect(server.services.gitSync.skipped(ws.id)).toContainEqual({ path: "assets/video.mp4", reason: "too_large", size: big.length });
  const lines = server.logs.filter((l) => l.includes("file on disk not committed") && l.includes("assets/video.mp4"));
  expect(lines).toHaveLength(1); // logged once, not at every look
  expect(lines[0]).toContain("10 MB");
  rmSync(join(dir, "assets/video.mp4"));
}, 20_000);

test("page saves through the API (a signed-in browser) commit as before: one commit per save, by the user, nothing else in it", async () => {
  const created = await owner.client.post(`/api/v1/content/${ws.slug}/guide/api-page`, { title: "API page", body: "One.\n" });
  expect(created.status).toBe(201);
  const c1 = await onRemote("Create guide/api-page.md via web editor");
  expect(c1).toMatchObject({ author: "Ada Lovelace <ada@example.test>", files: ["guide/api-page.md"] });
  const updated = await owner.client.put(`/api/v1/content/${ws.slug}/guide/api-page`, { body: "Two.\n", lastKnownHash: created.body.content_hash });
  expect(updated.status).toBe(200);
  await onRemote("Update guide/api-page.md via web editor");
  await quiet();
  // The page's own file events made no extra commit.
  const log = await remoteLog();
  expect(log.filter((c) => c.files.includes("guide/api-page.md")).map((c) => c.subject)).toEqual(["Update guide/api-page.md via web editor", "Create guide/api-page.md via web editor"]);
  expect(log[0]!.subject).toBe("Update guide/api-page.md via web editor");
}, 20_000);

test("an upload through the API is committed once, by the user; the watcher adds nothing", async () => {
  const from = reports.length;
  const form = new FormData();
  form.append("file", new File([png(6)], "Upload.png", { type: "image/png" }));
  const r = await owner.client.request("POST", `/api/v1/content/${ws.slug}/uploads`, { body: form });
  expect(r.status).toBe(201);
  const filename: string = r.body.filename;
  await onRemote(`Upload assets/${filename} via web editor`);
  await reported(from, `assets/${filename}`);
  const touching = (await remoteLog()).filter((c) => c.files.includes(`assets/${filename}`));
  expect(touching).toHaveLength(1);
}, 20_000);

test("with auto-commit off an image on disk is not committed", async () => {
  expect((await owner.client.put(`/api/v1/workspaces/${ws.id}/admin/settings`, { git_auto_commit: false })).status).toBe(200);
  const head = await remote.head();
  const from = reports.length;
  put("assets/unmanaged.png", png(8));
  await reported(from, "assets/unmanaged.png");
  expect(await remote.head()).toBe(head);
  expect((await git(["log", "--format=%s", "-1"], { cwd: dir })).trim()).not.toContain("unmanaged");
  expect((await owner.client.put(`/api/v1/workspaces/${ws.id}/admin/settings`, { git_auto_commit: true })).status).toBe(200);
  const removed = reports.length;
  rmSync(join(dir, "assets/unmanaged.png"));
  await reported(removed, "assets/unmanaged.png");
}, 20_000);

/** An IDE pushes a page; a manual sync merges it (a status walk of the work tree). */
async function mergeFromIde(): Promise<void> {
  await settled(server);
  const ide = await IdeClone.clone(remote.url);
  try {
    ide.writeFile(`ide-${Date.now()}.md`, "# From the IDE\n");
    await ide.commit("Page from the IDE");
    await ide.push();
  } finally {
    await ide.close();
  }
  // A local commit first, so the pull is a real merge (not a fast-forward).
  const from = reports.length;
  const local = `assets/local-${Date.now()}.txt`;
  put(local, "local\n");
  await reported(from, local);
  const result = await server.services.gitSync.trigger(ws.id, { reason: "manual" });
  expect(result.status).toBe("completed");
  await settled(server);
}
