/**
 * Commits made off the save path by the git worker: one commit per write, in order, with the
 * write's message and author, holding exactly the bytes that write put on disk (not whatever the
 * file holds when the worker gets to it); trees and index that the git command agrees with; a pull
 * that sees every commit queued before it; nothing lost when the server stops right after saves;
 * ids injected into a cloned repository written whole and committed once.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { readdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { startTestServer, tempDir, type TestServer } from "../helpers/server.ts";
import { registerUser, type TestUser } from "../helpers/factories.ts";
import { git, tryGit, IdeClone, startGitHttpRemote } from "../helpers/git-remote.ts";
import { GIT_ENV, createFromRemote, settled, waitFor } from "./support.ts";

let server: TestServer;
let owner: TestUser;
beforeAll(async () => {
  server = await startTestServer(GIT_ENV);
  owner = await registerUser(server.url, { name: "Margaret Hamilton", email: "margaret@example.test" });
});
afterAll(() => server.close());

const sha256 = (text: string) => `sha256:${createHash("sha256").update(text, "utf8").digest("hex")}`;
const wsDir = (s: TestServer, id: string) => join(s.dataDir, "workspaces", id);

/** Every file below `dir` (recursively, `.git` skipped). */
function filesUnder(dir: string, rel = ""): string[] {
  return readdirSync(join(dir, rel), { withFileTypes: true }).flatMap((e) => {
    const path = rel === "" ? e.name : `${rel}/${e.name}`;
    if (e.name === ".git") return [];
    return e.isDirectory() ? filesUnder(dir, path) : [path];
  });
}

/** `git status` of the work tree, once the index has caught up (it does so a moment after the last commit). */
async function cleanStatus(dir: string): Promise<string> {
  return waitFor(async () => ((await git(["status", "--porcelain"], { cwd: dir })).trim() === "" ? "clean" : null), 8000, "a clean git status");
}

test("each save is its own commit, in order, as its author, holding the exact text that save wrote", async () => {
  const slug = owner.workspaceSlug;
  const dir = wsDir(server, owner.workspaceId);
  const created = await owner.client.post(`/api/v1/content/${slug}/notes/worker`, { title: "Worker", body: "v0\n" });
  expect(created.status).toBe(201);
  const hashes = [created.body.content_hash as string];
  // Back to back, without waiting for git: later saves overwrite the file before earlier commits are made.
  for (let i = 1; i <= 8; i++) {
    const r = await owner.client.put(`/api/v1/content/${slug}/notes/worker.md`, { body: `v${i}\n`, lastKnownHash: hashes.at(-1) });
    expect(r.status).toBe(200);
    hashes.push(r.body.content_hash);
  }
  await settled(server);
  const log = (await git(["log", "--max-count=9", "--format=%H%x09%P%x09%an%x09%ae%x09%s"], { cwd: dir })).trim().split("\n").map((l) => l.split("\t"));
  expect(log.map((c) => c[4])).toEqual([...Array(8).fill("Update notes/worker.md via web editor"), "Create notes/worker.md via web editor"]);
  for (const c of log) expect([c[2], c[3]]).toEqual(["Margaret Hamilton", "margaret@example.test"]);
  // A straight line: each commit's parent is the one before it.
  for (let i = 0; i < log.length - 1; i++) expect(log[i]![1]).toBe(log[i + 1]![0]!);
  // Oldest first: commit i holds exactly the bytes save i answered with.
  const committed = await Promise.all([...log].reverse().map((c) => git(["show", `${c[0]}:notes/worker.md`], { cwd: dir })));
  expect(committed.map(sha256)).toEqual(hashes);
  expect(committed.at(-1)).toEndWith("v8\n");
});

test("moves, deletions and uploads commit too; git fsck accepts the trees; the index catches up (clean status)", async () => {
  const slug = owner.workspaceSlug;
  const dir = wsDir(server, owner.workspaceId);
  expect((await owner.client.post(`/api/v1/content/${slug}/deep/a/b/page`, { title: "Deep", body: "deep\n" })).status).toBe(201);
  expect((await owner.client.post(`/api/v1/content/${slug}/linker`, { title: "Linker", body: "See [[deep/a/b/page]].\n" })).status).toBe(201);
  const moved = await owner.client.patch(`/api/v1/content/${slug}/deep/a/b/page.md`, { new_path: "flat/page" });
  expect(moved.status).toBe(200);
  expect((await owner.client.delete(`/api/v1/content/${slug}/notes/worker.md`)).status).toBe(204);
  const form = new FormData();
  form.append("file", new File(["plain notes\n"], "Notes.txt", { type: "text/plain" }));
  const upload = await owner.client.request("POST", `/api/v1/content/${slug}/uploads`, { body: form });
  expect(upload.status).toBe(201);
  await settled(server);

  const subjects = (await git(["log", "--max-count=5", "--format=%s"], { cwd: dir })).trim().split("\n");
  expect(subjects).toEqual([
    `Upload assets/${upload.body.filename} via web editor`,
    "Delete notes/worker.md via web editor",
    "Move flat/page.md via web editor",
    "Create linker.md via web editor",
    "Create deep/a/b/page.md via web editor",
  ]);
  const tracked = (await git(["ls-tree", "-r", "--name-only", "HEAD"], { cwd: dir })).trim().split("\n");
  expect(tracked).toContain("flat/page.md");
  expect(tracked).toContain(`assets/${upload.body.filename}`);
  expect(tracked.filter((p) => p.startsWith("deep/") || p.startsWith("notes/worker"))).toEqual([]);
  // The rewritten link went into the move's commit, with the moved page.
  expect(await git(["show", "HEAD~2:linker.md"], { cwd: dir })).toContain("[[flat/page]]");
  // Every file in the work tree is the one HEAD has, byte for byte.
  const work = filesUnder(dir).sort();
  expect(work).toEqual([...tracked].sort());
  for (const path of work) expect(await git(["show", `HEAD:${path}`], { cwd: dir })).toBe(readFileSync(join(dir, path), "utf8"));
  const fsck = await tryGit(["fsck", "--strict", "--no-dangling"], { cwd: dir });
  expect({ code: fsck.code, stderr: fsck.stderr.trim() }).toEqual({ code: 0, stderr: "" });
  expect(await cleanStatus(dir)).toBe("clean");
});

test("a pull right after saves includes their commits: they are made before the pull touches anything", async () => {
  const remote = await startGitHttpRemote({ branch: "main" });
  const ide = await IdeClone.clone(remote.url);
  try {
    const ws = (await createFromRemote(owner, "worker-pull", remote.url)).body;
    await settled(server);
    await ide.pull();
    ide.writeFile("from-ide.md", "---\ntitle: From the IDE\n---\n\nIDE\n");
    await ide.commit("IDE page");
    await ide.push();
    for (let i = 0; i < 3; i++) {
      expect((await owner.client.post(`/api/v1/content/${ws.slug}/before-pull-${i}`, { title: `Before ${i}`, body: "b" })).status).toBe(201);
    }
    // No waiting for git between the saves and the pull.
    const result = await server.services.gitSync.trigger(ws.id, { reason: "manual" });
    expect(result.status).toBe("completed");
    await settled(server);
    const subjects = (await remote.log()).map((c) => c.subject);
    for (let i = 0; i < 3; i++) expect(subjects).toContain(`Create before-pull-${i}.md via web editor`);
    expect(subjects).toContain("IDE page");
    expect(await remote.show("before-pull-2.md")).toContain("title: Before 2");
    expect((await owner.client.get(`/api/v1/content/${ws.slug}/from-ide.md`)).status).toBe(200);
    const dir = wsDir(server, ws.id);
    expect((await tryGit(["fsck", "--strict", "--no-dangling"], { cwd: dir })).code).toBe(0);
    expect(await cleanStatus(dir)).toBe("clean");
  } finally {
    await ide.close();
    await remote.close();
  }
});

test("ids injected into a cloned repository: every file written whole, one commit holding them all, no temporary files", async () => {
  const files: Record<string, string> = {};
  for (let i = 0; i < 120; i++) files[`part-${i % 6}/page-${i}.md`] = `---\ntitle: Page ${i}\n---\n\n# Page ${i}\n`;
  const remote = await startGitHttpRemote({ branch: "main", files });
  try {
    const ws = (await createFromRemote(owner, "worker-ids", remote.url)).body;
    await settled(server);
    const dir = wsDir(server, ws.id);
    const work = filesUnder(dir);
    expect(work.filter((p) => p.endsWith(".tmp"))).toEqual([]);
    for (const path of Object.keys(files)) {
      const text = readFileSync(join(dir, path), "utf8");
      expect(text).toMatch(new RegExp(`^---\\nid: [0-9A-Z]{26}\\n${files[path]!.slice(4).replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}$`));
    }
    const [top] = await remote.log();
    expect(top!.subject).toBe("Add page ids via Quire");
    const changed = (await git(["diff-tree", "--no-commit-id", "--name-only", "-r", "HEAD"], { cwd: dir })).trim().split("\n");
    expect(changed.sort()).toEqual(Object.keys(files).sort());
    expect((await tryGit(["fsck", "--strict", "--no-dangling"], { cwd: dir })).code).toBe(0);
    expect(await cleanStatus(dir)).toBe("clean");
  } finally {
    await remote.close();
  }
});

test("nothing is lost when the server stops right after saves: every commit made, the index caught up", async () => {
  const dataDir = tempDir();
  try {
    const s = await startTestServer(GIT_ENV, { dataDir, keepDir: true });
    const user = await registerUser(s.url, { name: "Stop Early", email: "stop@example.test" });
    let hash: string = (await user.client.post(`/api/v1/content/${user.workspaceSlug}/last-words`, { title: "Last words", body: "0\n" })).body.content_hash;
    for (let i = 1; i <= 5; i++) {
      const r = await user.client.put(`/api/v1/content/${user.workspaceSlug}/last-words.md`, { body: `${i}\n`, lastKnownHash: hash });
      expect(r.status).toBe(200);
      hash = r.body.content_hash;
    }
    await s.stop(1000); // no settling first
    const dir = join(dataDir, "workspaces", user.workspaceId);
    const subjects = (await git(["log", "--max-count=6", "--format=%s"], { cwd: dir })).trim().split("\n");
    expect(subjects).toEqual([...Array(5).fill("Update last-words.md via web editor"), "Create last-words.md via web editor"]);
    expect(sha256(await git(["show", "HEAD:last-words.md"], { cwd: dir }))).toBe(hash);
    expect((await git(["status", "--porcelain"], { cwd: dir })).trim()).toBe("");
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});
