/**
 * The server's recent log lines, kept in the data directory for `quire doctor --bundle`:
 * `{DATA_DIR}/logs/quire.log`, JSON lines, rotated to `quire.log.1` past 1 MiB (so at most
 * about 2 MiB on disk, the last few thousand requests). Lines are the logger's own output, with
 * secret-looking fields already replaced (core/log.ts); the bundle scrubs them again.
 *
 * Writes are batched (every second, or at 64 KiB) so a request never waits for a disk write; a
 * crash loses at most the last second, which stderr (the primary log) still has.
 */
import { appendFileSync, existsSync, mkdirSync, readFileSync, renameSync, statSync } from "node:fs";
import { join } from "node:path";

const LOG_DIR = "logs";
const LOG_FILE = "quire.log";
const MAX_LOG_BYTES = 1024 * 1024;
const FLUSH_MS = 1000;
const FLUSH_BYTES = 64 * 1024;

export class LogFile {
  readonly path: string;
  private buffer: string[] = [];
  private bytes = 0;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private size: number;

  constructor(dataDir: string) {
    const dir = join(dataDir, LOG_DIR);
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    this.path = join(dir, LOG_FILE);
    this.size = existsSync(this.path) ? statSync(this.path).size : 0;
  }

  write(line: string): void {
    this.buffer.push(line + "\n");
    this.bytes += line.length + 1;
    if (this.bytes >= FLUSH_BYTES) this.flush();
    else if (!this.timer) {
      this.timer = setTimeout(() => this.flush(), FLUSH_MS);
      this.timer.unref?.();
    }
  }

  flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.buffer.length === 0) return;
    const chunk = this.buffer.join("");
    this.buffer = [];
    this.bytes = 0;
    // Counted in bytes, not characters: lines with non-ASCII text would otherwise let the file
    // outgrow its cap.
    const chunkBytes = Buffer.byteLength(chunk);
    try {
      // The cap: this file and one older (the rename replaces the previous `.1`), so the log can
      // never take more than twice MAX_LOG_BYTES however long the server runs. A failed rename
      // skips the append too, so the file never grows past its cap.
      if (this.size + chunkBytes > MAX_LOG_BYTES && this.size > 0) {
        renameSync(this.path, `${this.path}.1`);
        this.size = 0;
      }
      appendFileSync(this.path, chunk, { mode: 0o600 });
      this.size += chunkBytes;
    } catch {
      // The log file is a convenience for diagnostics; stderr has every line anyway.
    }
  }
}

/** The last `max` lines of the server's log files (older file first), or [] when there are none. */
export function recentLogLines(dataDir: string, max = 500): string[] {
  const base = join(dataDir, LOG_DIR, LOG_FILE);
  const lines: string[] = [];
  for (const path of [`${base}.1`, base]) {
    if (!existsSync(path)) continue;
    lines.push(...readFileSync(path, "utf8").split("\n").filter((l) => l.trim() !== ""));
  }
  return lines.slice(-max);
}
