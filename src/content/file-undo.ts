import { readFileSync, rmdirSync, rmSync } from "node:fs";
import { dirname } from "node:path";
import { writeFileAtomic } from "./atomic-write.ts";
import type { OwnWrites } from "./own-writes.ts";

/**
 * The files a ledger write is about to change, as they were, so a write whose transaction fails
 * (or whose later file write fails) can put every file back: a rejected request changes nothing
 * (docs/architecture.md §10). Bytes are kept exactly as read, so a restored file is byte-identical.
 */
export class FileUndo {
  private readonly before = new Map<string, Buffer | null>();

  constructor(
    private readonly ownWrites: OwnWrites,
    private readonly root: string,
  ) {}

  /** Notes a file's current bytes (or that it does not exist) before the first change to it. */
  remember(abs: string): void {
    if (this.before.has(abs)) return;
    try {
      this.before.set(abs, readFileSync(abs));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
      this.before.set(abs, null);
    }
  }

  /** Puts every remembered file back; returns the files that could not be restored. */
  restore(): Array<{ abs: string; error: string }> {
    const failed: Array<{ abs: string; error: string }> = [];
    for (const [abs, bytes] of [...this.before].reverse()) {
      try {
        if (bytes === null) {
          rmSync(abs, { force: true });
          this.ownWrites.note(abs, null);
          removeEmptyParents(abs, this.root); // folders the write created for a new file
        } else {
          this.ownWrites.note(abs, bytes.toString("utf8"));
          writeFileAtomic(abs, bytes);
        }
      } catch (error) {
        failed.push({ abs, error: String(error) });
      }
    }
    return failed;
  }
}

/** Removes folders a delete or move left empty, up to (never including) the workspace root. */
export function removeEmptyParents(file: string, root: string): void {
  let dir = dirname(file);
  while (dir.startsWith(root + "/") && dir !== root) {
    try {
      rmdirSync(dir);
    } catch {
      return; // not empty (or already gone)
    }
    dir = dirname(dir);
  }
}
