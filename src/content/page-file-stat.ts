import type { BigIntStats } from "node:fs";

/**
 * The stat a page record keeps of its file, so the start-up reconcile can leave unread a file
 * nothing touched since the last pass read it (docs/decisions/startup-reconcile.md).
 *
 * The key is size, modification time and status-change time in nanoseconds, and the inode. Any
 * write to a file moves its ctime, and no tool can set ctime back (utimes sets mtime and atime
 * only, and moves ctime itself); replacing the file (an editor's save-by-rename, git checkout,
 * delete + create) gives it a new inode or a new ctime. So a file whose key is unchanged holds the
 * bytes it held when the key was taken.
 */
export function statKey(st: BigIntStats): string {
  return `${st.size}:${st.mtimeNs}:${st.ctimeNs}:${st.ino}`;
}

/** A file system that keeps whole seconds (ctime without nanoseconds) may round to 2 s (FAT). */
const COARSE_MARGIN_NS = 2_000_000_000n;
/** Nanosecond file systems stamp with the kernel's coarse clock: one tick, at most 10 ms. */
const FINE_MARGIN_NS = 100_000_000n;

/**
 * Whether a stat taken just before reading a file may be recorded with what was read. A write
 * landing after the stat in the same tick of the file system's clock would leave the ctime as it
 * was (the racy case git guards against with its index's own mtime): so a stat is kept only once
 * the clock has moved past its ctime by more than a tick. A fresh file (Quire's own write, an
 * edit a moment ago) is recorded by a later pass. No inode (some file systems report 0): never.
 */
export function trustworthy(st: BigIntStats, nowMs: number): boolean {
  if (st.ino === 0n) return false;
  const margin = st.ctimeNs % 1_000_000_000n === 0n ? COARSE_MARGIN_NS : FINE_MARGIN_NS;
  return BigInt(nowMs) * 1_000_000n - st.ctimeNs >= margin;
}
