/**
 * The index of a work tree is written as git writes it: through `index.lock`, renamed over
 * `index`. A `git status` run in the work tree takes that lock to write its refreshed copy of the
 * index it read; the entries staged meanwhile must survive it (before, an in-place write landing
 * while git held the lock was replaced by git's copy, and the pages committed before it showed as
 * deleted and untracked at once, for good). A lock a killed writer left behind does not stop the
 * index for good.
 */
import { afterEach, beforeEach, expect, test } from "bun:test";
import { existsSync, readFileSync, renameSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Repo, SYSTEM_AUTHOR } from "../../src/git/repo.ts";
import { tempDir } from "../helpers/server.ts";
import { git, tryGit } from "../helpers/git-remote.ts";
import { IndexLockedError, lockLeftBehind, withIndexLock } from "../../src/git/index-lock.ts";
import { copyFileSync } from "node:fs";

let dir: string;
let repo: Repo;
beforeEach(async () => {
  dir = tempDir("quire-index-lock-");
  repo = new Repo(dir);
  await repo.init("main");
  writeFileSync(join(dir, "home.md"), "# Home\n");
  await repo.commitPaths(["home.md"], "Add home", SYSTEM_AUTHOR);
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** Pages committed from their bytes (the git worker's path): HEAD holds them, the index not yet. */
async function commitFromBytes(paths: string[]): Promise<void> {
  for (const path of paths) {
    const data = `# ${path}\n`;
    writeFileSync(join(dir, path), data);
    await repo.commitContents([{ path, data }], `Add ${path}`, SYSTEM_AUTHOR);
  }
}

const status = async () => (await git(["status", "--porcelain"], { cwd: dir })).trim();
const tracked = async () => (await git(["ls-files"], { cwd: dir })).trim().split("\n");

test("entries staged while a git status holds the index lock survive its write", async () => {
  await commitFromBytes(["a.md", "b.md", "c.md"]);
  expect(await status()).toContain("D  a.md"); // the index is behind HEAD until staged

  // git status has read this index and holds index.lock to write its refreshed copy of it.
  const index = join(dir, ".git", "index");
  const read = readFileSync(index);
  writeFileSync(`${index}.lock`, read, { flag: "wx" });
  const staging = repo.syncIndex();
  await Bun.sleep(150);
  expect(readFileSync(index).equals(read)).toBe(true); // nothing written while git holds the lock
  renameSync(`${index}.lock`, index); // git's copy goes in, then the lock is free
  await staging;

  expect(await status()).toBe("");
  expect(await tracked()).toEqual(["a.md", "b.md", "c.md", "home.md"]);
  expect(existsSync(`${index}.lock`)).toBe(false);
});

test("a lock left by a writer killed mid-write (taken before this process started) is cleared; the index it guarded is intact", async () => {
  await commitFromBytes(["a.md"]);
  const index = join(dir, ".git", "index");
  const before = readFileSync(index);
  writeFileSync(`${index}.lock`, before.subarray(0, 20)); // a copy cut short by the kill
  const old = new Date(performance.timeOrigin - 60_000); // taken before this process started
  utimesSync(`${index}.lock`, old, old);
  expect(await status()).toContain("D  a.md"); // git reads the old, whole index meanwhile

  await repo.syncIndex();
  expect(await status()).toBe("");
  expect(await tracked()).toEqual(["a.md", "home.md"]);
  expect(existsSync(`${index}.lock`)).toBe(false);
});

test("the index is replaced whole by each write, never rewritten in place", async () => {
  const index = join(dir, ".git", "index");
  const { ino } = await Bun.file(index).stat();
  await commitFromBytes(["a.md"]);
  await repo.syncIndex();
  expect((await Bun.file(index).stat()).ino).not.toBe(ino);
  expect(await status()).toBe("");
});

test("an entry lost from the index (HEAD and the work tree agree) is put back by the next status walk, and is no change", async () => {
  await commitFromBytes(["a.md", "b.md"]);
  await repo.syncIndex();
  await git(["rm", "--cached", "--quiet", "a.md"], { cwd: dir }); // what a lost write leaves
  expect(await status()).toBe("D  a.md\n?? a.md");

  expect(await repo.dirtyPaths()).toEqual([]);
  expect(await status()).toBe("");
  expect(await tracked()).toEqual(["a.md", "b.md", "home.md"]);
});

test("a person's git add made while the server waits to stage is kept: the server reads the index only under the lock", async () => {
  await commitFromBytes(["a.md", "b.md"]);
  writeFileSync(join(dir, "mine.md"), "# Mine\n");
  const index = join(dir, ".git", "index");
  // git add holds index.lock from before it reads the index until its new one is renamed in.
  writeFileSync(`${index}.lock`, "", { flag: "wx" });
  const staging = repo.syncIndex();
  await Bun.sleep(150);
  // What git add writes into its lock: the index with mine.md staged (made here on a copy).
  const copy = join(dir, ".git", "index.person");
  copyFileSync(index, copy);
  await git(["add", "mine.md"], { cwd: dir, env: { GIT_INDEX_FILE: copy } });
  renameSync(copy, `${index}.lock`);
  renameSync(`${index}.lock`, index);
  await staging;

  expect(await status()).toBe("A  mine.md");
  expect(await tracked()).toEqual(["a.md", "b.md", "home.md", "mine.md"]);
  expect(existsSync(`${index}.lock`)).toBe(false);
});

test("while the server changes the index, a person's git add is refused by git, never undone, and succeeds once run again", async () => {
  await commitFromBytes(["a.md"]);
  writeFileSync(join(dir, "mine.md"), "# Mine\n");
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const { add } = await import("isomorphic-git");
  const staging = withIndexLock(dir, async (fs) => {
    await gate; // the server is between reading the index and writing it back
    await add({ fs, dir, filepath: "a.md" });
  });
  await Bun.sleep(50);
  const refused = await tryGit(["add", "mine.md"], { cwd: dir });
  expect(refused.code).not.toBe(0);
  expect(refused.stderr).toContain("index.lock");
  release();
  await staging;
  expect(existsSync(join(dir, ".git", "index.lock"))).toBe(false);
  expect(await status()).toBe("?? mine.md");

  await git(["add", "mine.md"], { cwd: dir });
  expect(await status()).toBe("A  mine.md");
  expect(await tracked()).toEqual(["a.md", "home.md", "mine.md"]);
});

test("the server's own index changes run one at a time and all land; a failed one leaves no lock", async () => {
  await commitFromBytes(["a.md", "b.md", "c.md", "d.md"]);
  await Promise.all(["a.md", "b.md", "c.md", "d.md"].map((path) => repo.stage([path])));
  expect(await status()).toBe("");
  await expect(withIndexLock(dir, async () => Promise.reject(new Error("failed midway")))).rejects.toThrow("failed midway");
  expect(existsSync(join(dir, ".git", "index.lock"))).toBe(false);
  expect(await tracked()).toEqual(["a.md", "b.md", "c.md", "d.md", "home.md"]);
});

test("a lock another git command took after this process started is never removed, however long it is held", async () => {
  const start = performance.timeOrigin;
  expect(lockLeftBehind(start - 1, start)).toBe(true);
  expect(lockLeftBehind(start + 1, start)).toBe(false); // a `git commit` with its editor open an hour later still

  await commitFromBytes(["a.md"]);
  const index = join(dir, ".git", "index");
  const before = readFileSync(index);
  writeFileSync(`${index}.lock`, "", { flag: "wx" }); // the person's git command holds the lock
  const old = new Date(Math.max(start + 1, Date.now() - 60_000));
  utimesSync(`${index}.lock`, old, old);
  const { add } = await import("isomorphic-git");
  const started = performance.now();
  const attempt = withIndexLock(dir, (fs) => add({ fs, dir, filepath: "a.md" }), 300);
  expect(attempt).rejects.toBeInstanceOf(IndexLockedError);
  await attempt.catch(() => {});
  expect(performance.now() - started).toBeGreaterThanOrEqual(290); // it waited
  expect(existsSync(`${index}.lock`)).toBe(true);
  expect(readFileSync(index).equals(before)).toBe(true);

  writeFileSync(`${index}.lock`, before); // the command is done: git renames its index into place
  renameSync(`${index}.lock`, index);
  await repo.syncIndex();
  expect(await status()).toBe("");
});

test("paths the server could not stage while a git command kept the index are staged by the next catch-up", async () => {
  await commitFromBytes(["a.md"]);
  await repo.syncIndex();
  writeFileSync(join(dir, "b.md"), "# b.md\n");
  await repo.commitContents([{ path: "b.md", data: "# b.md\n" }], "Add b.md", SYSTEM_AUTHOR);
  await repo.syncIndex();
  writeFileSync(join(dir, "a.md"), "# a.md, pulled\n"); // a pull wrote it; its index entry is next
  const index = join(dir, ".git", "index");
  const before = readFileSync(index);
  writeFileSync(`${index}.lock`, "", { flag: "wx" }); // a person's git command holds the index

  const refused = await repo.stage(["a.md"]).then(
    () => null,
    (error: unknown) => error,
  );
  expect(refused).toBeInstanceOf(IndexLockedError);
  expect(repo.indexLag).toBe(1);

  writeFileSync(`${index}.lock`, before); // the command is done
  renameSync(`${index}.lock`, index);
  expect(await repo.syncIndex()).toBe(1);
  expect(await status()).toBe("M  a.md");
}, 15_000);
