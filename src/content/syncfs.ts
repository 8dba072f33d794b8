/**
 * syncfs(2) through bun:ffi: one call writes back every dirty file of the filesystem that holds
 * a descriptor, and commits its journal, so a batch of 1,000 new files costs one flush instead of
 * 1,000 fsyncs (docs/decisions/durability.md). Linux only: on macOS a durable flush is
 * fcntl(F_FULLFSYNC) per file, which has no whole-filesystem form, so there (and wherever libc
 * or the symbol cannot be loaded) `syncfsAvailable()` is false and callers keep per-file fsync.
 */
import { closeSync, openSync, constants } from "node:fs";

type SyncfsFn = (fd: number) => number;
let syncfsFn: SyncfsFn | null | undefined;

function binding(): SyncfsFn | null {
  if (syncfsFn !== undefined) return syncfsFn;
  syncfsFn = null;
  if (process.platform !== "linux") return syncfsFn;
  try {
    // Loaded on first use, like the instance lock's flock(2): most commands never need it.
    const { dlopen, FFIType } = require("bun:ffi") as typeof import("bun:ffi");
    const lib = dlopen("libc.so.6", { syncfs: { args: [FFIType.i32], returns: FFIType.i32 } });
    syncfsFn = (fd) => lib.symbols.syncfs(fd) as number;
  } catch {
    syncfsFn = null; // not glibc (musl names its libc differently), or no such symbol: per-file fsync
  }
  return syncfsFn;
}

export function syncfsAvailable(): boolean {
  return binding() !== null;
}

/**
 * A descriptor on the filesystem of `dir`, to flush later with `syncfs`. Open it *before* the
 * writes it must cover: since Linux 5.8 syncfs reports a writeback error (EIO, ENOSPC) that
 * happened on the filesystem after the descriptor was opened, never one from before.
 */
export function openFilesystem(dir: string): number {
  return openSync(dir, constants.O_RDONLY | constants.O_DIRECTORY);
}

/** Flushes the filesystem holding `fd`; throws when the kernel reports a failure (or syncfs is missing). */
export function syncfs(fd: number): void {
  const fn = binding();
  if (fn === null) throw new Error("syncfs(2) is not available on this platform");
  if (fn(fd) !== 0) throw new Error("syncfs(2) failed: the filesystem reported a write error");
}

export function closeFilesystem(fd: number): void {
  try {
    closeSync(fd);
  } catch {
    // already closed: nothing to release
  }
}
