/**
 * Blobs a commit from bytes wrote into a pack (a burst of saves, an import) are staged a moment
 * later without being written a second time as loose files (docs/decisions/git-commits.md §13):
 * git finds every one of them, and a file changed since its commit is still staged from its bytes.
 */
import { afterEach, beforeEach, expect, test } from "bun:test";
import { mkdirSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Repo, SYSTEM_AUTHOR } from "../../src/git/repo.ts";
import { tempDir } from "../helpers/server.ts";
import { git } from "../helpers/git-remote.ts";

let dir: string;
let repo: Repo;
beforeEach(async () => {
  dir = tempDir("quire-packed-");
  repo = new Repo(dir);
  await repo.init("main");
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** Twenty pages written and committed from their bytes, as an import does: one pack. */
async function importPages(): Promise<Array<{ path: string; data: string }>> {
  const files = Array.from({ length: 20 }, (_, i) => ({ path: `imported/page-${i}.md`, data: `# Page ${i}\n\nImported text ${i}.\n` }));
  mkdirSync(join(dir, "imported"), { recursive: true });
  for (const f of files) writeFileSync(join(dir, f.path), f.data);
  await repo.commitContents(files, "Import", SYSTEM_AUTHOR);
  return files;
}

/** Ids of the loose objects (files under .git/objects/xx/). */
function looseIds(): string[] {
  const objects = join(dir, ".git", "objects");
  return readdirSync(objects)
    .filter((d) => /^[0-9a-f]{2}$/.test(d))
    .flatMap((d) => readdirSync(join(objects, d)).map((rest) => d + rest));
}

const blobId = async (spec: string) => (await git(["rev-parse", spec], { cwd: dir })).trim();

test("packed blobs are staged without loose copies; git status is clean and fsck finds every object", async () => {
  const files = await importPages();
  const packedIds = await Promise.all(files.map((f) => blobId(`HEAD:${f.path}`)));
  await repo.syncIndex();

  const loose = new Set(looseIds());
  expect(packedIds.filter((id) => loose.has(id))).toEqual([]);
  expect((await git(["status", "--porcelain"], { cwd: dir })).trim()).toBe("");
  expect((await git(["ls-files", "-s", "imported"], { cwd: dir })).trim().split("\n").map((l) => l.split(/\s+/)[1])).toEqual(
    (await git(["ls-tree", "-r", "HEAD", "imported"], { cwd: dir })).trim().split("\n").map((l) => l.split(/\s+/)[2]),
  );
  await git(["fsck", "--strict", "--no-dangling"], { cwd: dir });
  for (const f of files) expect(await git(["cat-file", "-p", `:${f.path}`], { cwd: dir })).toBe(f.data);
});

test("a file changed after its packed commit is staged from its new bytes, written as its own object", async () => {
  const files = await importPages();
  const changed = "# Page 3\n\nChanged on disk before the index caught up.\n";
  writeFileSync(join(dir, files[3]!.path), changed);
  await repo.syncIndex();

  expect((await git(["status", "--porcelain"], { cwd: dir })).trim()).toBe(`M  ${files[3]!.path}`);
  expect(await git(["cat-file", "-p", `:${files[3]!.path}`], { cwd: dir })).toBe(changed);
  expect(looseIds()).toContain(await blobId(`:${files[3]!.path}`));
  await git(["fsck", "--strict", "--no-dangling"], { cwd: dir });
});
