/**
 * Commits made from bytes (the git worker's path) against the git command: the tree each commit
 * records is the previous one with exactly the given changes, in the layout git itself accepts
 * (`git fsck --strict`), whatever the shape of the change.
 */
import { afterEach, beforeEach, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { Repo, SYSTEM_AUTHOR } from "../../src/git/repo.ts";
import { tempDir } from "../helpers/server.ts";
import { git, tryGit } from "../helpers/git-remote.ts";

let dir: string;
let repo: Repo;
beforeEach(async () => {
  dir = tempDir("quire-tree-");
  repo = new Repo(dir);
  await repo.init("main");
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const files = async (rev = "HEAD") => (await git(["ls-tree", "-r", rev], { cwd: dir })).trim().split("\n").filter(Boolean).map((l) => l.replace(/ [0-9a-f]{40}\t/, " "));
const fsck = async () => (await tryGit(["fsck", "--strict", "--no-dangling"], { cwd: dir })).code;

test("the first commit, edits deep down, and deletions that empty folders (which then disappear)", async () => {
  const first = await repo.commitContents(
    [
      { path: "index.md", data: "# Home\n" },
      { path: "a/b/c/deep.md", data: "deep\n" },
      { path: "a/b/other.md", data: "other\n" },
      { path: "a-b.md", data: "dash sorts before the folder a/ in git's order\n" },
      { path: "assets/logo.png", data: new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0, 255]) },
    ],
    "First",
    SYSTEM_AUTHOR,
  );
  expect(first).toMatch(/^[0-9a-f]{40}$/);
  expect(await files()).toEqual(["100644 blob a-b.md", "100644 blob a/b/c/deep.md", "100644 blob a/b/other.md", "100644 blob assets/logo.png", "100644 blob index.md"]);
  expect(await git(["cat-file", "-p", "HEAD:assets/logo.png"], { cwd: dir }).then((t) => t.length)).toBeGreaterThan(0);
  const second = await repo.commitContents([{ path: "a/b/c/deep.md", data: null }, { path: "index.md", data: "# Home, edited\n" }], "Second", { name: "Ada", email: "ada@example.test" });
  expect(await files()).toEqual(["100644 blob a-b.md", "100644 blob a/b/other.md", "100644 blob assets/logo.png", "100644 blob index.md"]);
  expect(await git(["show", "HEAD:index.md"], { cwd: dir })).toBe("# Home, edited\n");
  expect((await git(["log", "--format=%P %an <%ae> %s", "-1"], { cwd: dir })).trim()).toBe(`${first} Ada <ada@example.test> Second`);
  expect(second).not.toBe(first);
  expect(await fsck()).toBe(0);
});

test("nothing changed: no commit; a file replaced by a folder and back; the executable bit survives an edit", async () => {
  await repo.commitContents([{ path: "x.md", data: "x\n" }, { path: "run.sh", data: "#!/bin/sh\n" }], "First", SYSTEM_AUTHOR);
  const head = await repo.head();
  expect(await repo.commitContents([{ path: "x.md", data: "x\n" }, { path: "gone.md", data: null }], "Nothing", SYSTEM_AUTHOR)).toBeNull();
  expect(await repo.head()).toBe(head);
  // Made executable the way a user would, outside Quire.
  await git(["update-index", "--add", "--chmod=+x", "--cacheinfo", `100755,${(await git(["rev-parse", "HEAD:run.sh"], { cwd: dir })).trim()},run.sh`], { cwd: dir });
  await git(["-c", "user.name=U", "-c", "user.email=u@example.test", "commit", "--quiet", "-m", "chmod"], { cwd: dir });
  await repo.commitContents([{ path: "x.md", data: null }, { path: "x.md/inside.md", data: "now a folder\n" }, { path: "run.sh", data: "#!/bin/sh\necho hi\n" }], "Folder", SYSTEM_AUTHOR);
  expect(await files()).toEqual(["100755 blob run.sh", "100644 blob x.md/inside.md"]);
  await repo.commitContents([{ path: "x.md/inside.md", data: null }, { path: "x.md", data: "a file again\n" }], "File", SYSTEM_AUTHOR);
  expect(await files()).toEqual(["100755 blob run.sh", "100644 blob x.md"]);
  expect(await fsck()).toBe(0);
});

test("a merge commit records both parents even when the tree does not change", async () => {
  const a = (await repo.commitContents([{ path: "p.md", data: "p\n" }], "A", SYSTEM_AUTHOR))!;
  const b = (await repo.commitContents([{ path: "q.md", data: "q\n" }], "B", SYSTEM_AUTHOR))!;
  const merge = (await repo.commitContents([], "Merge", SYSTEM_AUTHOR, [b, a]))!;
  expect((await git(["log", "--format=%P", "-1", merge], { cwd: dir })).trim()).toBe(`${b} ${a}`);
  expect(await fsck()).toBe(0);
});
