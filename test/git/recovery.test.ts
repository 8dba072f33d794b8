/**
 * The history repair after an unclean stop, by author. The state a kill leaves is made with real
 * saves and real git: two people save, the branch is moved back to before their last saves (the
 * commits the killed worker never made) and the worker's pending marker left in place; the server
 * restarts on that data directory. (The marker holds the time through which the worker had
 * committed everything; saves before it are not looked at.) Each person's pages come back in a recovery commit authored by
 * them, the page both edited in one by Quire that says it cannot tell, never a commit carrying
 * another author's change; the index is rebuilt (clean `git status`), the marker goes.
 */
import { expect, test } from "bun:test";
import { existsSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startTestServer, tempDir } from "../helpers/server.ts";
import { registerUser } from "../helpers/factories.ts";
import { git, startGitHttpRemote } from "../helpers/git-remote.ts";
import { createFromRemote, GIT_ENV, waitFor } from "./support.ts";
import { recoveryGroups } from "../../src/git/recovery.ts";

test("after an unclean stop each person's uncommitted saves are committed as theirs; shared ones by Quire; status clean", async () => {
  const dataDir = tempDir();
  try {
    let server = await startTestServer(GIT_ENV, { dataDir, keepDir: true });
    const ada = await registerUser(server.url, { name: "Ada Lovelace", email: "ada@example.test" });
    const bob = await registerUser(server.url, { name: "Bob Kahn", email: "bob@example.test" });
    server.services.db.query("INSERT INTO workspace_members (workspace_id, user_id, role, joined_at) VALUES (?, ?, 'editor', ?)").run(ada.workspaceId, bob.id, new Date().toISOString());
    const slug = ada.workspaceSlug;
    const hashes: Record<string, string> = {};
    const save = async (who: typeof ada, path: string, body: string) => {
      const r = hashes[path]
        ? await who.client.put(`/api/v1/content/${slug}/${path}`, { body, lastKnownHash: hashes[path] })
        : await who.client.post(`/api/v1/content/${slug}/${path}`, { title: path, body });
      expect([200, 201]).toContain(r.status);
      hashes[path] = r.body.content_hash;
    };
    await save(ada, "ada.md", "Ada 1\n");
    await save(bob, "bob.md", "Bob 1\n");
    await save(ada, "shared.md", "Shared 1\n");
    await server.services.gitSync.idle();
    const dir = server.services.ledger.dir(ada.workspaceId).root;
    const before = (await git(["rev-parse", "HEAD"], { cwd: dir })).trim();
    const committedThrough = Date.now(); // what the worker's marker says once these are committed
    await save(ada, "ada.md", "Ada 2\n");
    await save(bob, "bob.md", "Bob 2\n");
    await save(bob, "bob-new.md", "Bob new\n");
    await save(ada, "shared.md", "Shared 2 by Ada\n");
    await save(bob, "shared.md", "Shared 3 by Bob\n");
    await server.stop(1000);

    // What a SIGKILL leaves: the saves' files and rows, no commits for them, the marker.
    await git(["update-ref", "refs/heads/main", before], { cwd: dir });
    writeFileSync(join(dir, ".git", "quire-pending"), String(committedThrough - 1000));
    expect((await git(["status", "--porcelain"], { cwd: dir })).trim()).not.toBe("");

    server = await startTestServer(GIT_ENV, { dataDir, keepDir: true });
    await waitFor(() => !existsSync(join(dir, ".git", "quire-pending")), 10_000, "the repair");
    await server.services.gitSync.idle();
    const log = (await git(["log", `${before}..HEAD`, "--format=%an <%ae>%x1f%B%x1e"], { cwd: dir }))
      .split("\x1e")
      .map((s) => s.trim())
      .filter(Boolean)
      .map((s) => {
        const [author, message] = s.split("\x1f");
        return { author: author!, message: message! };
      });
    const files = async (n: number) => (await git(["show", "--format=", "--name-only", `HEAD~${n}`], { cwd: dir })).trim().split("\n").sort();
    // Oldest first: Ada's, Bob's, then Quire's for the page both saved.
    expect(log.map((c) => c.author).reverse()).toEqual(["Ada Lovelace <ada@example.test>", "Bob Kahn <bob@example.test>", "Quire <quire@localhost>"]);
    expect(await files(2)).toEqual(["ada.md"]);
    expect(await files(1)).toEqual(["bob-new.md", "bob.md"]);
    expect(await files(0)).toEqual(["shared.md"]);
    const [quire, bobs, adas] = log;
    expect(adas!.message).toStartWith("Recover ada.md saved before an unclean stop via Quire");
    expect(adas!.message).toContain("Saved by Ada Lovelace");
    expect(bobs!.message).toStartWith("Recover 2 files saved before an unclean stop via Quire");
    expect(bobs!.message).toContain("- bob-new.md\n- bob.md");
    expect(quire!.message).toContain("cannot be told");
    expect(quire!.message).toContain("- shared.md");
    // HEAD holds exactly what each save answered with, and git agrees the work tree is clean.
    for (const [path, hash] of Object.entries(hashes)) {
      const text = await git(["show", `HEAD:${path}`], { cwd: dir });
      expect(`sha256:${new Bun.CryptoHasher("sha256").update(text).digest("hex")}`).toBe(hash);
    }
    expect((await git(["status", "--porcelain"], { cwd: dir })).trim()).toBe("");
    expect((await git(["fsck", "--strict", "--no-dangling"], { cwd: dir })).trim()).toBe("");
    expect(server.logs.some((l) => l.includes("git history repaired after an unclean stop"))).toBe(true);
    await server.stop(1000);
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}, 30_000);

test("recovery commits follow the order of the saves: Ada, Bob, then Ada again make three commits, each file at its last save", () => {
  const ada = { name: "Ada Lovelace", email: "ada@example.test" };
  const bob = { name: "Bob Kahn", email: "bob@example.test" };
  const people: Record<string, typeof ada> = { ada, bob };
  // Saves in this order: ada a1, bob b1, ada a2, ada a1 again (its last save comes after a2), bob+ada on shared.
  const savers = new Map([
    ["a1.md", { actors: new Set<string | null>(["ada"]), last: 3 }],
    ["b1.md", { actors: new Set<string | null>(["bob"]), last: 1 }],
    ["a2.md", { actors: new Set<string | null>(["ada"]), last: 2 }],
    ["shared.md", { actors: new Set<string | null>(["ada", "bob"]), last: 4 }],
  ]);
  const groups = recoveryGroups(["a1.md", "a2.md", "b1.md", "shared.md", "upload.png"], savers, (id) => people[id] ?? null, "failure");
  expect(groups.map((g) => [g.author.name, g.paths])).toEqual([
    ["Bob Kahn", ["b1.md"]],
    ["Ada Lovelace", ["a1.md", "a2.md"]],
    ["Quire", ["shared.md", "upload.png"]],
  ]);
  expect(groups[0]!.message).toStartWith("Recover b1.md saved while a commit failed via Quire");
  expect(groups[0]!.message).toContain("not committed when a commit failed");

  // Interleaved saves by two people: one commit per run, in save order.
  const interleaved = new Map([
    ["x.md", { actors: new Set<string | null>(["ada"]), last: 0 }],
    ["y.md", { actors: new Set<string | null>(["bob"]), last: 1 }],
    ["z.md", { actors: new Set<string | null>(["ada"]), last: 2 }],
  ]);
  expect(recoveryGroups(["x.md", "y.md", "z.md"], interleaved, (id) => people[id] ?? null).map((g) => [g.author.name, g.paths])).toEqual([
    ["Ada Lovelace", ["x.md"]],
    ["Bob Kahn", ["y.md"]],
    ["Ada Lovelace", ["z.md"]],
  ]);
});

test("an index that lost entries of committed pages (no unclean stop recorded) is repaired at start: git status clean", async () => {
  const dataDir = tempDir();
  const remote = await startGitHttpRemote({ branch: "main" });
  try {
    let server = await startTestServer(GIT_ENV, { dataDir, keepDir: true });
    const ada = await registerUser(server.url, { name: "Ada Lovelace", email: "ada@example.test" });
    const ws = (await createFromRemote(ada, "lost-index", remote.url)).body;
    for (const path of ["one.md", "two.md"]) expect((await ada.client.post(`/api/v1/content/${ws.slug}/${path}`, { title: path, body: `${path}\n` })).status).toBe(201);
    await server.services.gitSync.idle();
    const dir = server.services.ledger.dir(ws.id).root;
    await server.stop(1000);

    // What an index write lost to a concurrent `git status` left (docs/decisions/git-commits.md §15).
    await git(["rm", "--cached", "--quiet", "one.md", "two.md"], { cwd: dir });
    expect((await git(["status", "--porcelain"], { cwd: dir })).trim()).toBe("D  one.md\nD  two.md\n?? one.md\n?? two.md");
    expect(existsSync(join(dir, ".git", "quire-pending"))).toBe(false);

    server = await startTestServer(GIT_ENV, { dataDir, keepDir: true });
    await waitFor(async () => (await git(["status", "--porcelain"], { cwd: dir })).trim() === "", 10_000, "the index repaired");
    await server.services.gitSync.idle();
    expect((await git(["status", "--porcelain"], { cwd: dir })).trim()).toBe("");
    expect((await git(["log", "-1", "--format=%s"], { cwd: dir })).trim()).not.toStartWith("Recover"); // nothing to commit: only the index was wrong
    await server.stop(1000);
  } finally {
    await remote.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}, 30_000);
