/**
 * Pages changed on disk outside Quire (an editor writing into the workspace folder) are committed
 * on their own, through the same git worker as saves: one commit per reconcile pass, authored by
 * Quire, holding what the file holds (the injected id included), pushed when a remote is set.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { registerUser, type TestUser } from "../helpers/factories.ts";
import { git, tryGit, startGitHttpRemote, type GitHttpRemote } from "../helpers/git-remote.ts";
import { GIT_ENV, createFromRemote, row, settled, waitFor } from "./support.ts";

let server: TestServer;
let owner: TestUser;
beforeAll(async () => {
  server = await startTestServer(GIT_ENV);
  owner = await registerUser(server.url, { name: "Ada Lovelace", email: "ada@example.test" });
});
afterAll(() => server.close());

interface Commit {
  subject: string;
  author: string;
  files: string[];
}

/** Newest-first commits of the work tree (none before the first), with the files each one touched. */
async function localLog(dir: string): Promise<Commit[]> {
  const r = await tryGit(["log", "--format=\x1e%s\x1f%an <%ae>", "--name-only", "--no-renames"], { cwd: dir });
  if (r.code !== 0) return []; // no commit yet
  return r.stdout
    .split("\x1e")
    .filter((s) => s.trim() !== "")
    .map((s) => {
      const [head, ...rest] = s.split("\n");
      const [subject, author] = head!.split("\x1f");
      return { subject: subject!, author: author!, files: rest.map((l) => l.trim()).filter((l) => l !== "") };
    });
}

const write = (root: string, path: string, text: string) => {
  mkdirSync(join(root, path, ".."), { recursive: true });
  writeFileSync(join(root, path), text);
};

/** Waits for a commit with this subject in the work tree's history. */
const commitNamed = (dir: string, subject: string) =>
  waitFor(async () => (await localLog(dir)).find((c) => c.subject === subject), 5000, `a commit "${subject}"`);

/** What HEAD holds at `path`, or null. */
async function atHead(dir: string, path: string): Promise<string | null> {
  const r = await tryGit(["show", `HEAD:${path}`], { cwd: dir });
  return r.code === 0 ? r.stdout : null;
}

describe("local history (no remote)", () => {
  let ws: { id: string; slug: string };
  let dir: string;
  beforeAll(async () => {
    const r = await owner.client.post("/api/v1/workspaces", { name: "On disk", slug: "on-disk" });
    expect(r.status).toBe(201);
    ws = r.body;
    dir = server.services.ledger.dir(ws.id).root;
    // A page that stays: a folder left without Markdown is the reconciler's safety stop, not a deletion.
    expect((await owner.client.post(`/api/v1/content/${ws.slug}/index`, { title: "Home", body: "Home" })).status).toBe(201);
    await settled(server);
  });

  test("a new file written into the folder is committed by Quire with the id it was given", async () => {
    write(dir, "notes/from-editor.md", "---\ntitle: From the editor\n---\n\nWritten on disk.\n");
    const commit = await commitNamed(dir, "Create notes/from-editor.md via filesystem");
    expect(commit.author).toBe("Quire <quire@localhost>");
    expect(commit.files).toEqual(["notes/from-editor.md"]);
    const id = server.services.ledger.records.live(ws.id, "notes/from-editor.md")!.id;
    const committed = await atHead(dir, "notes/from-editor.md");
    expect(committed).toBe(`---\nid: ${id}\ntitle: From the editor\n---\n\nWritten on disk.\n`);
    expect(committed).toBe(readFileSync(join(dir, "notes/from-editor.md"), "utf8"));
  });

  test("an edit, a rename and a deletion on disk are each committed; the page id survives the rename", async () => {
    const path = "notes/from-editor.md";
    const id = server.services.ledger.records.live(ws.id, path)!.id;
    write(dir, path, readFileSync(join(dir, path), "utf8").replace("Written on disk.", "Edited on disk."));
    await commitNamed(dir, `Update ${path} via filesystem`);
    expect(await atHead(dir, path)).toContain("Edited on disk.");

    renameSync(join(dir, path), join(dir, "notes/renamed.md"));
    const move = await commitNamed(dir, "Move notes/renamed.md via filesystem");
    expect(move.files.sort()).toEqual(["notes/from-editor.md", "notes/renamed.md"]);
    expect(await atHead(dir, path)).toBeNull();
    expect(await atHead(dir, "notes/renamed.md")).toContain("Edited on disk.");
    expect(server.services.ledger.records.live(ws.id, "notes/renamed.md")?.id).toBe(id);

    rmSync(join(dir, "notes/renamed.md"));
    await commitNamed(dir, "Delete notes/renamed.md via filesystem");
    expect(await atHead(dir, "notes/renamed.md")).toBeNull();
  });

  test("several files changed together are one commit; the tree then matches the folder", async () => {
    const before = (await localLog(dir)).length;
    for (let i = 0; i < 3; i++) write(dir, `batch/file-${i}.md`, `# Batch ${i}\n`);
    const commit = await commitNamed(dir, "Sync 3 files changed on disk");
    expect(commit.files.sort()).toEqual(["batch/file-0.md", "batch/file-1.md", "batch/file-2.md"]);
    await settled(server);
    expect((await localLog(dir)).length).toBe(before + 1);
    for (let i = 0; i < 3; i++) expect(await atHead(dir, `batch/file-${i}.md`)).toBe(readFileSync(join(dir, `batch/file-${i}.md`), "utf8"));
    expect((await tryGit(["fsck", "--strict", "--no-dangling"], { cwd: dir })).code).toBe(0);
    const status = await waitFor(async () => ((await git(["status", "--porcelain"], { cwd: dir })).trim() === "" ? "clean" : null), 8000, "a clean status");
    expect(status).toBe("clean");
  });

  test("with auto-commit off a change on disk is reconciled but not committed", async () => {
    const off = await owner.client.put(`/api/v1/workspaces/${ws.id}/admin/settings`, { git_auto_commit: false });
    expect(off.status).toBe(200);
    const before = (await localLog(dir)).length;
    write(dir, "uncommitted.md", "# Not committed\n");
    await waitFor(() => server.services.ledger.records.live(ws.id, "uncommitted.md"), 5000, "the page record");
    await Bun.sleep(200);
    await settled(server);
    expect((await localLog(dir)).length).toBe(before);
    expect((await owner.client.put(`/api/v1/workspaces/${ws.id}/admin/settings`, { git_auto_commit: true })).status).toBe(200);
  });
});

describe("with a remote", () => {
  let remote: GitHttpRemote;
  beforeAll(async () => {
    remote = await startGitHttpRemote({ branch: "main" });
  });
  afterAll(() => remote?.close());

  test("a file written into the folder is committed and pushed like any other commit", async () => {
    const r = await createFromRemote(owner, "disk-remote", remote.url);
    expect(r.status).toBe(201);
    const ws = r.body;
    await settled(server);
    const dir = server.services.ledger.dir(ws.id).root;
    write(dir, "guide/from-disk.md", "---\ntitle: From disk\n---\n\nPushed without the browser.\n");
    await commitNamed(dir, "Create guide/from-disk.md via filesystem");
    const top = await waitFor(async () => (await remote.log()).find((c) => c.subject === "Create guide/from-disk.md via filesystem"), 5000, "the commit on the remote");
    expect(top).toMatchObject({ author_name: "Quire", author_email: "quire@localhost" });
    const id = server.services.ledger.records.live(ws.id, "guide/from-disk.md")!.id;
    expect(await remote.show("guide/from-disk.md")).toBe(`---\nid: ${id}\ntitle: From disk\n---\n\nPushed without the browser.\n`);
    await settled(server);
    expect(row(server, ws.id).sync_status).toBe("synced");
    expect(await remote.head()).toBe((await git(["rev-parse", "HEAD"], { cwd: dir })).trim());
  });
});
