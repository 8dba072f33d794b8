/**
 * Reading a ref from the `.git` files gives isomorphic-git's answer wherever it answers at all,
 * and declines (undefined) wherever the layout is not the plain one, on real repositories made
 * by the git command.
 */
import { afterAll, expect, test } from "bun:test";
import * as fs from "node:fs";
import { join } from "node:path";
import git from "isomorphic-git";
import { readRefFromFiles } from "../../src/git/ref-files.ts";
import { tempDir } from "../helpers/server.ts";

const root = tempDir("quire-ref-files-");
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

function sh(cwd: string, ...args: string[]): string {
  const r = Bun.spawnSync(["git", ...args], {
    cwd,
    env: { ...process.env, GIT_AUTHOR_NAME: "T", GIT_AUTHOR_EMAIL: "t@example.test", GIT_COMMITTER_NAME: "T", GIT_COMMITTER_EMAIL: "t@example.test" },
  });
  if (r.exitCode !== 0) throw new Error(`git ${args.join(" ")}: ${r.stderr.toString()}`);
  return r.stdout.toString().trim();
}

function repo(name: string): string {
  const dir = join(root, name);
  fs.mkdirSync(dir, { recursive: true });
  sh(dir, "init", "-q", "-b", "main");
  return dir;
}

function commit(dir: string, text: string): string {
  fs.writeFileSync(join(dir, "page.md"), text);
  sh(dir, "add", "page.md");
  sh(dir, "commit", "-q", "-m", text);
  return sh(dir, "rev-parse", "HEAD");
}

const library = (dir: string, ref: string) => git.resolveRef({ fs, dir, ref }).catch(() => null);

test("HEAD through a loose branch ref is the branch's commit, as isomorphic-git reads it", async () => {
  const dir = repo("loose");
  const head = commit(dir, "one");
  expect(readRefFromFiles(dir, "HEAD")).toBe(head);
  expect(await library(dir, "HEAD")).toBe(head);
  expect(readRefFromFiles(dir, "refs/heads/main")).toBe(head);
});

test("a branch that only packed-refs holds is read from there (peeled tag lines skipped)", async () => {
  const dir = repo("packed");
  const first = commit(dir, "one");
  sh(dir, "tag", "-a", "v1", "-m", "release");
  const head = commit(dir, "two");
  sh(dir, "pack-refs", "--all");
  expect(fs.existsSync(join(dir, ".git/refs/heads/main"))).toBe(false);
  expect(readRefFromFiles(dir, "HEAD")).toBe(head);
  expect(await library(dir, "HEAD")).toBe(head);
  // The annotated tag names its tag object, not the commit its ^ line peels to.
  const tagObject = sh(dir, "rev-parse", "refs/tags/v1");
  expect(tagObject).not.toBe(first);
  expect(readRefFromFiles(dir, "refs/tags/v1")).toBe(tagObject);
  expect(await library(dir, "refs/tags/v1")).toBe(tagObject);
});

test("a detached HEAD is the commit it holds", async () => {
  const dir = repo("detached");
  const first = commit(dir, "one");
  commit(dir, "two");
  sh(dir, "checkout", "-q", "--detach", first);
  expect(readRefFromFiles(dir, "HEAD")).toBe(first);
  expect(await library(dir, "HEAD")).toBe(first);
});

test("what the plain layout cannot answer is left to the library: an unborn branch, a linked work tree, a short name, a path out of .git", async () => {
  const unborn = repo("unborn");
  expect(readRefFromFiles(unborn, "HEAD")).toBeUndefined();
  expect(await library(unborn, "HEAD")).toBeNull();

  const main = repo("linked-main");
  const head = commit(main, "one");
  const linked = join(root, "linked");
  sh(main, "worktree", "add", "-q", "--detach", linked);
  expect(fs.statSync(join(linked, ".git")).isFile()).toBe(true);
  expect(readRefFromFiles(linked, "HEAD")).toBeUndefined();

  expect(readRefFromFiles(main, "main")).toBeUndefined();
  expect(await library(main, "main")).toBe(head);
  expect(readRefFromFiles(main, "refs/../HEAD")).toBeUndefined();
  expect(readRefFromFiles(join(root, "no-such-repo"), "HEAD")).toBeUndefined();
});
