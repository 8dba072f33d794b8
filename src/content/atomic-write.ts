import { close, closeSync, fsync, fsyncSync, mkdirSync, open, openSync, renameSync, rmSync, writeSync, constants } from "node:fs";
import { open as openAsync, rename as renameAsync, rm as rmAsync } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { randomBytes } from "node:crypto";

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
  mkdirSync(dir, { recursive: true, mode: 0o755 });
  // Dot-prefixed: the reconciler and page listings skip it if a crash leaves one behind.
  const tmp = join(dir, `.${basename(path)}.${randomBytes(6).toString("hex")}.tmp`);
  const fd = openSync(tmp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o644);
  try {
    const bytes = typeof data === "string" ? Buffer.from(data, "utf8") : data;
    let offset = 0;
    while (offset < bytes.length) offset += writeSync(fd, bytes, offset, bytes.length - offset);
    fsyncSync(fd);
  } catch (error) {
    closeSync(fd);
    rmSync(tmp, { force: true });
    throw error;
  }
  closeSync(fd);
  try {
    renameSync(tmp, path);
  } catch (error) {
    rmSync(tmp, { force: true });
    throw error;
  }
  if (opts.syncDir === "now") syncDir(dir);
  else syncDirSoon(dir);
}

/**
 * Many atomic writes at once (ids injected into a whole cloned repository): each file gets the
 * same treatment as `writeFileAtomic` (temporary file, fsync, rename: never torn), but the fsyncs
 * run `concurrency` at a time on the I/O thread pool instead of one after another on the main
 * thread; the disk commits parallel fsyncs together. Resolves with one entry per file: null when
 * it was written, the error otherwise (the others are written regardless).
 */
export async function writeFilesAtomic(files: Array<{ path: string; data: string | Uint8Array }>, concurrency = 32): Promise<Array<Error | null>> {
  const results: Array<Error | null> = new Array(files.length).fill(null);
  let next = 0;
  const worker = async () => {
    while (next < files.length) {
      const i = next++;
      try {
        await writeOneAsync(files[i]!.path, files[i]!.data);
      } catch (error) {
        results[i] = error as Error;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, files.length) }, worker));
  return results;
}

async function writeOneAsync(path: string, data: string | Uint8Array): Promise<void> {
  const dir = dirname(path);
  mkdirSync(dir, { recursive: true, mode: 0o755 });
  const tmp = join(dir, `.${basename(path)}.${randomBytes(6).toString("hex")}.tmp`);
  const handle = await openAsync(tmp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o644);
  try {
    await handle.writeFile(typeof data === "string" ? Buffer.from(data, "utf8") : data);
    await handle.sync();
  } catch (error) {
    await handle.close();
    await rmAsync(tmp, { force: true });
    throw error;
  }
  await handle.close();
  try {
    await renameAsync(tmp, path);
  } catch (error) {
    await rmAsync(tmp, { force: true });
    throw error;
  }
  syncDirSoon(dir);
}

export function syncDir(dir: string): void {
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
export function syncDirSoon(dir: string): void {
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
