import { closeSync, existsSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, writeSync } from "node:fs";
import { join } from "node:path";
import type { RawData } from "@orama/orama";
import { randomToken } from "../core/ids.ts";

/**
 * Bumped whenever the schema, tokenizer or file layout changes: a file written under another
 * format is treated like a corrupt one and the index is rebuilt.
 */
export const INDEX_FORMAT = 1;

export interface StoredIndex {
  format: number;
  workspace_id: string;
  saved_at: string;
  /** page_id → content_hash of the page as indexed, to spot pages changed while we were down. */
  stamps: Record<string, string>;
  raw: RawData;
}

/** Index files under `{DATA_DIR}/search/`, one per workspace, replaced atomically. */
export class IndexStore {
  readonly dir: string;
  constructor(dataDir: string) {
    this.dir = join(dataDir, "search");
  }

  pathOf(workspaceId: string): string {
    return join(this.dir, `${workspaceId}.json`);
  }

  exists(workspaceId: string): boolean {
    return existsSync(this.pathOf(workspaceId));
  }

  /** The stored index, or null when it is missing, unreadable or of another format. */
  read(workspaceId: string): StoredIndex | null {
    let text: string;
    try {
      text = readFileSync(this.pathOf(workspaceId), "utf8");
    } catch {
      return null;
    }
    try {
      const parsed = JSON.parse(text) as StoredIndex;
      if (parsed?.format !== INDEX_FORMAT || parsed.workspace_id !== workspaceId || typeof parsed.raw !== "object") return null;
      if (typeof parsed.stamps !== "object" || parsed.stamps === null) return null;
      return parsed;
    } catch {
      return null;
    }
  }

  /** Temp file in the same folder, fsync, rename: a crash leaves the old file or the new one. */
  write(stored: StoredIndex): void {
    mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    const target = this.pathOf(stored.workspace_id);
    const temp = join(this.dir, `.${stored.workspace_id}.${randomToken(6)}.tmp`);
    const fd = openSync(temp, "w", 0o600);
    try {
      writeSync(fd, JSON.stringify(stored));
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    try {
      renameSync(temp, target);
    } catch (error) {
      rmSync(temp, { force: true });
      throw error;
    }
  }

  delete(workspaceId: string): void {
    rmSync(this.pathOf(workspaceId), { force: true });
  }
}
