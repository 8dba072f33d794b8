import { expect, test } from "bun:test";
import { readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../helpers/server.ts";
import { DIR_SYNC_DELAY_MS, flushDirSyncs, pendingDirSyncs, writeFileAtomic } from "../../src/content/atomic-write.ts";

test("atomic writes replace the file whole, leave no temporary file, and share one batched folder fsync", async () => {
  const dir = tempDir();
  try {
    const file = join(dir, "docs", "page.md");
    writeFileAtomic(file, "first\n");
    for (let i = 0; i < 20; i++) writeFileAtomic(file, `version ${i}\n`);
    writeFileAtomic(join(dir, "docs", "other.md"), "other\n");
    expect(readFileSync(file, "utf8")).toBe("version 19\n");
    expect(readdirSync(join(dir, "docs")).sort()).toEqual(["other.md", "page.md"]);
    // 22 renames in one folder: one folder fsync queued, done off the request path soon after.
    expect(pendingDirSyncs()).toBe(1);
    await Bun.sleep(DIR_SYNC_DELAY_MS + 30);
    expect(pendingDirSyncs()).toBe(0);
    // The synchronous form, and an explicit flush (what shutdown calls), both work.
    writeFileAtomic(join(dir, "now.md"), "now\n", { syncDir: "now" });
    expect(pendingDirSyncs()).toBe(0);
    writeFileAtomic(join(dir, "later.md"), "later\n");
    await flushDirSyncs();
    expect(pendingDirSyncs()).toBe(0);
    // A folder removed before its fsync runs is no error.
    writeFileAtomic(join(dir, "gone", "x.md"), "x\n");
    rmSync(join(dir, "gone"), { recursive: true });
    await flushDirSyncs();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("a file that exists as a directory is refused without touching anything", () => {
  const dir = tempDir();
  try {
    writeFileSync(join(dir, "keep.md"), "keep\n");
    expect(() => writeFileAtomic(dir, "x")).toThrow();
    expect(readFileSync(join(dir, "keep.md"), "utf8")).toBe("keep\n");
    expect(readdirSync(dir)).toEqual(["keep.md"]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("a folder missing at write time is created: a new nested one, or one removed since the last write", () => {
  const dir = tempDir();
  try {
    const deep = join(dir, "a", "b", "c", "page.md");
    writeFileAtomic(deep, "one\n");
    expect(readFileSync(deep, "utf8")).toBe("one\n");
    rmSync(join(dir, "a"), { recursive: true });
    writeFileAtomic(deep, "two\n");
    expect(readFileSync(deep, "utf8")).toBe("two\n");
    expect(readdirSync(join(dir, "a", "b", "c"))).toEqual(["page.md"]);
    // A file where a folder should be is still refused, and nothing is written.
    writeFileSync(join(dir, "plain"), "not a folder\n");
    expect(() => writeFileAtomic(join(dir, "plain", "page.md"), "x\n")).toThrow();
    expect(readFileSync(join(dir, "plain"), "utf8")).toBe("not a folder\n");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
