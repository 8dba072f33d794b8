import { readFileSync } from "node:fs";
import { hashOf } from "./page-file.ts";

/**
 * What the ledger itself just wrote or removed, so the file watcher can tell its own writes from
 * an editor's: a watched change whose file still holds exactly what the ledger wrote (same hash),
 * or is still absent after the ledger removed it, is ours and needs no reconcile. Entries are
 * compared by content, not by time alone, so an edit made right after a save is never missed.
 */
const KEEP_MS = 10_000;

interface Entry {
  /** `sha256:` hash of what was written; null for a removal. */
  hash: string | null;
  at: number;
}

export class OwnWrites {
  private readonly entries = new Map<string, Entry>();

  /** Records a write (`text` given) or a removal (`null`) of an absolute path. */
  note(abs: string, text: string | null): void {
    const now = Date.now();
    if (this.entries.size > 256) this.prune(now);
    this.entries.set(abs, { hash: text === null ? null : hashOf(text), at: now });
  }

  /**
   * True when `abs` is in the state the ledger recently left it in: a file holding what the
   * ledger wrote, a path the ledger removed that is still absent, or a folder (created or
   * emptied and removed by the ledger) under which the ledger recently wrote or removed a file.
   * A file's entry is used once: after it is checked, the next change of that path is someone
   * else's (an editor restoring the very text the ledger wrote after deleting it must count).
   */
  isOwn(abs: string): boolean {
    const now = Date.now();
    const entry = this.entries.get(abs);
    if (entry) this.entries.delete(abs);
    if (entry && now - entry.at <= KEEP_MS) {
      let text: string | null;
      try {
        text = readFileSync(abs, "utf8");
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "ENOENT") return false;
        text = null;
      }
      return text === null ? entry.hash === null : entry.hash !== null && hashOf(text) === entry.hash;
    }
    // A folder event: own when the ledger touched something inside it just now.
    const prefix = abs + "/";
    for (const [path, e] of this.entries) if (path.startsWith(prefix) && now - e.at <= KEEP_MS) return true;
    return false;
  }

  get size(): number {
    return this.entries.size;
  }

  private prune(now: number): void {
    for (const [abs, entry] of this.entries) if (now - entry.at > KEEP_MS) this.entries.delete(abs);
  }
}
