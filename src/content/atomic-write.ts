import { close, closeSync, fstatSync, fsync, fsyncSync, mkdirSync, open, openSync, renameSync, rmSync, writeSync, constants } from "node:fs";
import { open as openAsync, rename as renameAsync, rm as rmAsync, writeFile as writeFileAsync } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { randomBytes } from "node:crypto";
import { closeFilesystem, openFilesystem, syncfs, syncfsAvailable } from "./syncfs.ts";

/**
 * Writes a file so that a crash leaves either the old or the new content, never a torn one: a
 * temporary file in the same folder (same filesystem, so rename is atomic), fsync of the file,
 * rename. The fsync of the folder, which makes the rename itself survive a power cut, is batched
 * and done off the request path (docs/decisions/durability.md): at most `DIR_SYNC_DELAY_MS` after
 * the write, one fsync per touched folder, on libuv's thread pool. Until then a power cut can
 * bring back the previous version of the file, complete, never a mix, which the reconciler
 * handles like any change on disk. `{ syncDir: "now" }` keeps the old, synchronous behaviour.
 */
export const DIR_SYNC_DELAY_MS = 20;

export function writeFileAtomic(path: string, data: string | Uint8Array, opts: { syncDir?: "now" | "batched" } = {}): void {
  const dir = dirname(path);
  let tmp: string;
  try {
    tmp = writeTemp(path, data, true);
  } catch (error) {
    // The folder is usually there (a save of an existing page): it is created only when the
    // temporary file could not be, rather than asked for on every write.
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
    mkdirSync(dir, { recursive: true, mode: 0o755 });
    tmp = writeTemp(path, data, true);
  }
  try {
    renameSync(tmp, path);
  } catch (error) {
    rmSync(tmp, { force: true });
    throw error;
  }
  if (opts.syncDir === "now") syncDir(dir);
  else syncDirSoon(dir);
}

/** Dot-prefixed: the reconciler and page listings skip it if a crash leaves one behind. */
function tempPathFor(path: string): string {
  return join(dirname(path), `.${basename(path)}.${randomBytes(6).toString("hex")}.tmp`);
}

/**
 * Writes `data` to a new temporary file next to `path` (fsync'd when `flush`) and returns its
 * path; on failure removes it and throws.
 */
function writeTemp(path: string, data: string | Uint8Array, flush: boolean): string {
  const tmp = tempPathFor(path);
  const fd = openSync(tmp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o644);
  try {
    const bytes = typeof data === "string" ? Buffer.from(data, "utf8") : data;
    let offset = 0;
    while (offset < bytes.length) offset += writeSync(fd, bytes, offset, bytes.length - offset);
    if (flush) fsyncSync(fd);
  } catch (error) {
    closeSync(fd);
    rmSync(tmp, { force: true });
    throw error;
  }
  closeSync(fd);
  return tmp;
}

/**
 * How a batch (`writeFilesAtomic`) makes its files durable:
 * - "syncfs" (Linux): by chunks of `SYNCFS_CHUNK` files, the chunk's temporary files written,
 *   one syncfs(2) for all their data, the chunk's renames; one more syncfs after the last chunk
 *   for its renames. 1,000 files cost 11 flushes instead of 1,000.
 * - "per-file": each temporary file fsync'd on its own (in parallel on the I/O thread pool), then
 *   renamed, then one fsync per touched folder: one flush per file (everywhere else, e.g. macOS,
 *   where durable flushes are per file).
 * Both give the guarantee `writeFileAtomic` gives, and both resolve only once the new names are
 * durable too: a power cut after the batch reports a file written leaves the new file, whole.
 */
export type BatchFlush = "syncfs" | "per-file";

/**
 * Below this many files the default is "per-file": their fsyncs run in parallel and cost about
 * one journal commit, while syncfs also writes back whatever else is dirty on the filesystem
 * (other processes' files, SQLite's WAL), which only pays when it replaces many flushes.
 */
export const SYNCFS_MIN_FILES = 8;
/** Files per flush in the "syncfs" batch (why not all at once: see `writeAllThenSyncfs`). */
export const SYNCFS_CHUNK = 100;
/** How many file operations of a batch run at once on the I/O thread pool. */
const CONCURRENCY = 32;

/** Runs `op` over `items` (indexes), `CONCURRENCY` at a time. */
async function inParallel(items: number[], op: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await op(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, items.length) }, worker));
}

let forcedFlush: BatchFlush | null = null;

/** Forces one strategy for every batch (benchmarks and tests compare them); null restores the default. */
export function setBatchFlush(mode: BatchFlush | null): void {
  forcedFlush = mode;
}

/** The strategy a batch of `count` files uses unless told otherwise. */
export function batchFlush(count = SYNCFS_MIN_FILES): BatchFlush {
  if (forcedFlush !== null) return forcedFlush;
  return count >= SYNCFS_MIN_FILES && syncfsAvailable() ? "syncfs" : "per-file";
}

/**
 * Many atomic writes at once (ids injected into a whole cloned repository). Resolves with one
 * entry per file: null when it was written (durably, name included), the error otherwise; the
 * others are written regardless, and no temporary file is left behind either way.
 */
export async function writeFilesAtomic(
  files: Array<{ path: string; data: string | Uint8Array }>,
  opts: { flush?: BatchFlush } = {},
): Promise<Array<Error | null>> {
  if (files.length === 0) return [];
  const flush = opts.flush ?? batchFlush(files.length);
  return flush === "syncfs" && syncfsAvailable() ? writeAllThenSyncfs(files) : writeEachWithFsync(files);
}

/**
 * The "syncfs" batch. The order is what keeps "never torn": no rename happens before the flush
 * that made its temporary file's data durable has returned without error. A file that fails at
 * any step gets its error and its temporary file removed; the others go on.
 */
async function writeAllThenSyncfs(files: Array<{ path: string; data: string | Uint8Array }>): Promise<Array<Error | null>> {
  const results: Array<Error | null> = new Array(files.length).fill(null);
  const temps: Array<string | null> = new Array(files.length).fill(null);
  const filesystems = new Map<number, number>(); // st_dev → descriptor to syncfs
  const folderErrors = new Map<string, Error | null>();
  try {
    // 1. Folders exist, and a descriptor per filesystem is open before any data is written.
    for (const { path } of files) {
      const dir = dirname(path);
      if (folderErrors.has(dir)) continue;
      try {
        mkdirSync(dir, { recursive: true, mode: 0o755 });
        const fd = openFilesystem(dir);
        const dev = fstatSync(fd).dev;
        if (filesystems.has(dev)) closeFilesystem(fd);
        else filesystems.set(dev, fd);
        folderErrors.set(dir, null);
      } catch (error) {
        folderErrors.set(dir, error as Error);
      }
    }
    // 2. Chunk by chunk: the chunk's temporary files written (in parallel on the I/O thread pool,
    //    none flushed yet), one flush for all of them, then their renames. Each flush also makes
    //    the previous chunk's renames durable. Chunks, not the whole batch at once: creating
    //    1,000 files before renaming any costs the filesystem's inode allocator about twice as
    //    much as replacing files as it goes (measured; docs/decisions/durability.md).
    const touched = new Set<string>();
    for (let start = 0; start < files.length; start += SYNCFS_CHUNK) {
      const chunk = Array.from({ length: Math.min(SYNCFS_CHUNK, files.length - start) }, (_, k) => start + k);
      await inParallel(chunk, async (i) => {
        const folderError = folderErrors.get(dirname(files[i]!.path));
        if (folderError) {
          results[i] = folderError;
          return;
        }
        try {
          temps[i] = await writeTempAsync(files[i]!.path, files[i]!.data, false);
        } catch (error) {
          results[i] = error as Error;
        }
      });
      // If the kernel reports an error it cannot say whose: each file of the chunk is then
      // fsync'd on its own, so only the files that really failed fail.
      if (!flushAll(filesystems)) {
        for (const i of chunk) {
          const tmp = temps[i];
          if (!tmp) continue;
          try {
            fsyncPath(tmp);
          } catch (error) {
            results[i] = error as Error;
            rmSync(tmp, { force: true });
            temps[i] = null;
          }
        }
      }
      await inParallel(chunk, async (i) => {
        const tmp = temps[i];
        if (!tmp) return;
        try {
          await renameAsync(tmp, files[i]!.path);
          touched.add(dirname(files[i]!.path));
          temps[i] = null;
        } catch (error) {
          results[i] = error as Error;
        }
      });
    }
    // 3. One more flush for the last renames (or, if it fails, each touched folder's fsync).
    if (touched.size > 0 && !flushAll(filesystems)) for (const dir of touched) syncDir(dir);
  } finally {
    // Whatever went wrong (even an unexpected throw), no temporary file stays behind.
    for (const tmp of temps) if (tmp) rmSync(tmp, { force: true });
    for (const fd of filesystems.values()) closeFilesystem(fd);
  }
  return results;
}

/** syncfs on every filesystem of the batch; false when one of them reported an error. */
function flushAll(filesystems: Map<number, number>): boolean {
  let ok = true;
  for (const fd of filesystems.values()) {
    try {
      syncfs(fd);
    } catch {
      ok = false;
    }
  }
  return ok;
}

function fsyncPath(path: string): void {
  const fd = openSync(path, constants.O_RDONLY);
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/**
 * The "per-file" batch: each file gets `writeFileAtomic`'s treatment (temporary file, fsync,
 * rename), the fsyncs in parallel on the I/O thread pool (the disk commits parallel fsyncs
 * together), then one fsync per touched folder before resolving.
 */
async function writeEachWithFsync(files: Array<{ path: string; data: string | Uint8Array }>): Promise<Array<Error | null>> {
  const results: Array<Error | null> = new Array(files.length).fill(null);
  const touched = new Set<string>();
  await inParallel(files.map((_, i) => i), async (i) => {
    const { path, data } = files[i]!;
    try {
      mkdirSync(dirname(path), { recursive: true, mode: 0o755 });
      const tmp = await writeTempAsync(path, data, true);
      try {
        await renameAsync(tmp, path);
      } catch (error) {
        await rmAsync(tmp, { force: true });
        throw error;
      }
      touched.add(dirname(path));
    } catch (error) {
      results[i] = error as Error;
    }
  });
  await Promise.all([...touched].map(syncDirAsync));
  return results;
}

/** `writeTemp` on the I/O thread pool. */
async function writeTempAsync(path: string, data: string | Uint8Array, flush: boolean): Promise<string> {
  const tmp = tempPathFor(path);
  const bytes = typeof data === "string" ? Buffer.from(data, "utf8") : data;
  if (!flush) {
    // One call (open, write, close in one pool task): a third of the round trips of a handle.
    try {
      await writeFileAsync(tmp, bytes, { flag: "wx", mode: 0o644 });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") await rmAsync(tmp, { force: true });
      throw error;
    }
    return tmp;
  }
  const handle = await openAsync(tmp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o644);
  try {
    await handle.writeFile(bytes);
    await handle.sync();
  } catch (error) {
    await handle.close();
    await rmAsync(tmp, { force: true });
    throw error;
  }
  await handle.close();
  return tmp;
}

function syncDir(dir: string): void {
  try {
    const fd = openSync(dir, constants.O_RDONLY);
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  } catch {
    // Some filesystems refuse fsync on directories; the file itself is already durable.
  }
}

const dirtyDirs = new Set<string>();
let flushTimer: ReturnType<typeof setTimeout> | null = null;
let inFlight: Promise<void> = Promise.resolve();

/** Queues an fsync of `dir`; many writes to one folder within the delay share one fsync. */
function syncDirSoon(dir: string): void {
  dirtyDirs.add(dir);
  flushTimer ??= setTimeout(() => void flushDirSyncs(), DIR_SYNC_DELAY_MS);
}

/** Runs the queued folder fsyncs now; resolves when they (and any running) are done. Call on shutdown. */
export function flushDirSyncs(): Promise<void> {
  if (flushTimer) clearTimeout(flushTimer);
  flushTimer = null;
  const dirs = [...dirtyDirs];
  dirtyDirs.clear();
  const batch = Promise.all(dirs.map(syncDirAsync)).then(() => {});
  inFlight = Promise.all([inFlight, batch]).then(() => {});
  return inFlight;
}

/** How many folders wait for their fsync (tests read it). */
export function pendingDirSyncs(): number {
  return dirtyDirs.size;
}

function syncDirAsync(dir: string): Promise<void> {
  return new Promise((resolve) => {
    open(dir, constants.O_RDONLY, (error, fd) => {
      if (error) return resolve(); // removed meanwhile, or not openable: nothing to make durable
      fsync(fd, () => close(fd, () => resolve())); // a refused directory fsync is not an error
    });
  });
}

/** Whether a file name is one of this module's temporary files (`.{name}.{12 hex}.tmp`). */
export function isAtomicTemp(name: string): boolean {
  return /^\..+\.[0-9a-f]{12}\.tmp$/.test(name);
}
