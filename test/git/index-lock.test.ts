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
import { git } from "../helpers/git-remote.ts";

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

test("a lock left by a writer killed mid-write is cleared once stale; the index it guarded is intact", async () => {
  await commitFromBytes(["a.md"]);
  const index = join(dir, ".git", "index");
  const before = readFileSync(index);
  writeFileSync(`${index}.lock`, before.subarray(0, 20)); // a copy cut short by the kill
  const old = new Date(Date.now() - 60_000);
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
