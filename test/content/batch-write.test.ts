/**
 * Batched atomic writes (the reconciler's id injection): one syncfs for the batch on Linux, or
 * one fsync per file (the fallback, e.g. macOS). Both must write the exact bytes, report a file
 * that cannot be written without stopping the others, and never leave a temporary file behind.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { chmodSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startTestServer, tempDir, type TestServer } from "../helpers/server.ts";
import { batchFlush, setBatchFlush, SYNCFS_CHUNK, SYNCFS_MIN_FILES, writeFilesAtomic, type BatchFlush } from "../../src/content/atomic-write.ts";
import { closeFilesystem, openFilesystem, syncfs, syncfsAvailable } from "../../src/content/syncfs.ts";
import { owner, pageRows } from "./support.ts";

const MODES: BatchFlush[] = ["syncfs", "per-file"];

/** Every entry under `dir`, relative, folders with a trailing slash. */
function tree(dir: string, rel = ""): string[] {
  return readdirSync(join(dir, rel), { withFileTypes: true }).flatMap((e) => {
    const path = rel === "" ? e.name : `${rel}/${e.name}`;
    return e.isDirectory() ? [`${path}/`, ...tree(dir, path)] : [path];
  }).sort();
}
const temps = (dir: string) => tree(dir).filter((p) => p.endsWith(".tmp"));

/**
 * Makes a folder refuse new entries, even for root (an immutable folder), or returns null when
 * this machine cannot (no chattr, no CAP_LINUX_IMMUTABLE, a filesystem without the flag).
 */
function makeReadOnly(dir: string): (() => void) | null {
  const root = process.getuid?.() === 0;
  const undo = root
    ? () => void Bun.spawnSync(["chattr", "-i", dir])
    : () => chmodSync(dir, 0o755);
  try {
    if (root) {
      if (Bun.spawnSync(["chattr", "+i", dir], { stderr: "ignore" }).exitCode !== 0) return null;
    } else chmodSync(dir, 0o555);
    writeFileSync(join(dir, ".probe"), "x");
  } catch {
    return undo; // refused: the folder is read-only
  }
  rmSync(join(dir, ".probe"), { force: true });
  undo();
  return null;
}
const readOnlyFolders = (() => {
  const dir = tempDir();
  try {
    const undo = makeReadOnly(dir);
    undo?.();
    return undo !== null;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
})();

test("syncfs(2) is bound on Linux, flushes a filesystem, and reports a failure as an error", () => {
  if (process.platform !== "linux") {
    expect(syncfsAvailable()).toBe(false);
    expect(batchFlush(1000)).toBe("per-file");
    return;
  }
  expect(syncfsAvailable()).toBe(true);
  const dir = tempDir();
  try {
    const fd = openFilesystem(dir);
    expect(() => syncfs(fd)).not.toThrow();
    closeFilesystem(fd);
    expect(() => syncfs(fd)).toThrow(/syncfs/); // a closed descriptor: EBADF
    // Large batches take it by default; a few files keep their own parallel fsyncs.
    expect(batchFlush(1000)).toBe("syncfs");
    expect(batchFlush(SYNCFS_MIN_FILES)).toBe("syncfs");
    expect(batchFlush(SYNCFS_MIN_FILES - 1)).toBe("per-file");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

describe.each(MODES)("a batch flushed with %s", (mode) => {
  test("writes the exact bytes: new files, replaced files, new folders, text and binary", async () => {
    const dir = tempDir();
    try {
      writeFileSync(join(dir, "old.md"), "the previous, longer content of this page\n");
      const binary = new Uint8Array([0, 255, 10, 13, 10, 0xef, 0xbb, 0xbf, 7]);
      const files = [
        { path: join(dir, "old.md"), data: "---\nid: 01J0000000000000000000000A\n---\nnew\n" },
        { path: join(dir, "a", "b", "deep.md"), data: "crlf\r\nünïcödé ✓ 𝄞\r\n" },
        { path: join(dir, "a", "empty.md"), data: "" },
        { path: join(dir, "bin.dat"), data: binary },
        // More than one chunk of the syncfs batch.
        ...Array.from({ length: SYNCFS_CHUNK + 40 }, (_, i) => ({ path: join(dir, `s${i % 4}`, `p${i}.md`), data: `page ${i}\n`.repeat(i + 1) })),
      ];
      const results = await writeFilesAtomic(files, { flush: mode });
      expect(results).toEqual(files.map(() => null));
      for (const f of files) {
        const expected = typeof f.data === "string" ? Buffer.from(f.data, "utf8") : Buffer.from(f.data);
        expect(readFileSync(f.path).equals(expected)).toBe(true);
      }
      expect(statSync(join(dir, "old.md")).mode & 0o777).toBe(0o644);
      expect(temps(dir)).toEqual([]);
      expect(tree(dir).filter((p) => !p.endsWith("/")).length).toBe(files.length);
      expect(await writeFilesAtomic([], { flush: mode })).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("a file that cannot be written is reported alone; the others are written; no temporary file is left", async () => {
    const dir = tempDir();
    try {
      // A page path now taken by a folder (the rename fails after the data was flushed).
      mkdirSync(join(dir, "taken.md"));
      writeFileSync(join(dir, "taken.md", "inside.md"), "inside\n");
      // A page under a path that is a file (its folder cannot be made).
      writeFileSync(join(dir, "plain.md"), "plain\n");
      // A name whose temporary name is too long for the filesystem (the temp file cannot be created).
      const long = `${"n".repeat(240)}.md`;
      const good = Array.from({ length: SYNCFS_CHUNK + 12 }, (_, i) => ({ path: join(dir, `ok${i % 3}`, `page-${i}.md`), data: `good ${i}\n` }));
      // The failures in the first and in the second chunk of the syncfs batch.
      const files = [
        good[0]!,
        { path: join(dir, "taken.md"), data: "into a folder\n" },
        ...good.slice(1, 6),
        { path: join(dir, "plain.md", "child.md"), data: "under a file\n" },
        ...good.slice(6, SYNCFS_CHUNK + 6),
        { path: join(dir, long), data: "long\n" },
        ...good.slice(SYNCFS_CHUNK + 6),
      ];
      const results = await writeFilesAtomic(files, { flush: mode });
      const code = (e: Error | null) => (e as NodeJS.ErrnoException | null)?.code ?? null;
      expect(code(results[1]!)).toBe("EISDIR");
      expect(String(code(results[7]!))).toMatch(/^(ENOTDIR|EEXIST)$/);
      expect(code(results[SYNCFS_CHUNK + 8]!)).toBe("ENAMETOOLONG");
      expect(results.filter((r) => r !== null).length).toBe(3);
      for (const g of good) expect(readFileSync(g.path, "utf8")).toBe(g.data);
      expect(readFileSync(join(dir, "taken.md", "inside.md"), "utf8")).toBe("inside\n");
      expect(readFileSync(join(dir, "plain.md"), "utf8")).toBe("plain\n");
      expect(temps(dir)).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("the reconciler's id injection", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ QUIRE_WATCH_FILES: "false" }); // the reconciler is driven by hand
  });
  afterAll(() => server.close());

  const plain = (i: number) => `---\ntitle: Page ${i}\ntags: [t${i % 3}]\n---\n\n# Page ${i}\n\nBody ${i}, [[docs/p${(i + 1) % 12}]].\n`;

  test.each(MODES)("gives the same files with %s: one id line inserted, the rest byte for byte", async (mode) => {
    const o = await owner(server);
    for (let i = 0; i < 12; i++) {
      mkdirSync(join(o.dir, `docs/f${i % 2}`), { recursive: true });
      writeFileSync(join(o.dir, `docs/f${i % 2}/p${i}.md`), plain(i));
    }
    setBatchFlush(mode);
    try {
      const r = await server.services.reconciler.reconcile(o.wsId);
      expect(r).toMatchObject({ inserted: 12, problems: [], aborted: false });
    } finally {
      setBatchFlush(null);
    }
    const rows = pageRows(server, o.wsId).filter((p) => p.path.startsWith("docs/"));
    expect(rows.length).toBe(12);
    for (const row of rows) {
      const i = Number(/p(\d+)\.md$/.exec(row.path)![1]);
      const text = readFileSync(join(o.dir, row.path), "utf8");
      expect(text).toBe(`---\nid: ${row.id}\n${plain(i).slice(4)}`);
      expect(server.services.ledger.ownWrites.isOwn(join(o.dir, row.path))).toBe(true);
    }
    expect(temps(o.dir)).toEqual([]);
  });

  test.skipIf(!readOnlyFolders).each(MODES)("with %s: files in a read-only folder are problems, the others get their ids, no temporary file", async (mode) => {
    const o = await owner(server);
    mkdirSync(join(o.dir, "ro"), { recursive: true });
    mkdirSync(join(o.dir, "rw"), { recursive: true });
    for (let i = 0; i < 2; i++) writeFileSync(join(o.dir, `ro/p${i}.md`), plain(i));
    for (let i = 0; i < SYNCFS_MIN_FILES + 2; i++) writeFileSync(join(o.dir, `rw/p${i}.md`), plain(i));
    const undo = makeReadOnly(join(o.dir, "ro"))!;
    let r;
    setBatchFlush(mode);
    try {
      r = await server.services.reconciler.reconcile(o.wsId);
    } finally {
      undo();
      setBatchFlush(null);
    }
    expect(r.problems.map((p) => [p.kind, p.path])).toEqual([["unreadable", "ro/p0.md"], ["unreadable", "ro/p1.md"]]);
    expect(r.problems[0]!.message).toContain("could not add an id");
    // Every file has its record; the refused ones are untouched and their notes do not claim them.
    expect(r.inserted).toBe(SYNCFS_MIN_FILES + 4);
    const rows = pageRows(server, o.wsId);
    for (let i = 0; i < 2; i++) {
      expect(readFileSync(join(o.dir, `ro/p${i}.md`), "utf8")).toBe(plain(i));
      expect(server.services.ledger.ownWrites.isOwn(join(o.dir, `ro/p${i}.md`))).toBe(false);
    }
    for (const row of rows.filter((p) => p.path.startsWith("rw/"))) {
      expect(readFileSync(join(o.dir, row.path), "utf8")).toBe(`---\nid: ${row.id}\n${plain(Number(/p(\d+)/.exec(row.path)![1])).slice(4)}`);
    }
    expect(temps(o.dir)).toEqual([]);
    // Once the folder can be written again, the next pass gives them the ids of their records.
    const again = await server.services.reconciler.reconcile(o.wsId);
    expect(again).toMatchObject({ inserted: 0, problems: [] });
    for (const row of rows.filter((p) => p.path.startsWith("ro/"))) {
      expect(readFileSync(join(o.dir, row.path), "utf8")).toStartWith(`---\nid: ${row.id}\n`);
    }
  });
});
