import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, rmdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { NotFoundError, ValidationError } from "../core/errors.ts";
import { sha256Hex } from "../core/crypto.ts";

/**
 * Conflict artifacts on disk (docs/architecture.md §4 and §6): `{DATA_DIR}/conflicts/{page_id}/{timestamp}/`
 * holds `ours.md` (the local file, kept in the work tree), `theirs.md` (the remote version),
 * `base.md` (the last version both sides agreed on; empty when the page is new on both sides)
 * and `meta.json` (workspace, path, hashes). The timestamp is `YYYYMMDDTHHMMSSZ`.
 *
 * A conflict's id in the workspace-scoped API is `{page_id}-{timestamp}`. The pair is unique
 * across workspaces and occurrences: a file that is not a page gets an id naming its workspace
 * and path (see pull.ts), and a folder is never reused (`claim`).
 */
export interface ConflictMeta {
  workspace_id: string;
  path: string;
  page_id: string;
  timestamp: string;
  ours_hash: string;
  theirs_hash: string;
  /** True when the remote deleted the file (theirs.md is then empty). */
  theirs_deleted: boolean;
  remote_commit: string;
}

const PAGE_ID = /^[A-Za-z0-9_-]{1,80}$/;
const TIMESTAMP = /^\d{8}T\d{6}Z$/;

export const conflictId = (m: Pick<ConflictMeta, "page_id" | "timestamp">) => `${m.page_id}-${m.timestamp}`;

/** Splits `{page_id}-{timestamp}`; a malformed id is a 404 like an unknown one. */
export function parseConflictId(id: string): { pageId: string; timestamp: string } {
  const m = /^(.+)-(\d{8}T\d{6}Z)$/.exec(id);
  if (!m || !PAGE_ID.test(m[1]!)) throw new NotFoundError("Conflict not found");
  return { pageId: m[1]!, timestamp: m[2]! };
}

export function compactTimestamp(date = new Date()): string {
  return date.toISOString().replace(/[-:]/g, "").replace(/\.\d{3}/, "");
}

/** The compact timestamp one second later. */
function nextSecond(stamp: string): string {
  const m = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(stamp)!;
  const ms = Date.UTC(+m[1]!, +m[2]! - 1, +m[3]!, +m[4]!, +m[5]!, +m[6]!);
  return compactTimestamp(new Date(ms + 1000));
}

const hashOf = (bytes: Uint8Array | string) => `sha256:${sha256Hex(typeof bytes === "string" ? bytes : Buffer.from(bytes))}`;

export class ConflictStore {
  readonly root: string;
  constructor(dataDir: string) {
    this.root = join(dataDir, "conflicts");
  }

  save(meta: Omit<ConflictMeta, "ours_hash" | "theirs_hash">, files: { ours: Uint8Array; theirs: Uint8Array | null; base: Uint8Array | null }): ConflictMeta {
    const { dir, timestamp } = this.claim(meta.page_id, meta.timestamp);
    const full: ConflictMeta = {
      ...meta,
      timestamp,
      ours_hash: hashOf(files.ours),
      theirs_hash: files.theirs ? hashOf(files.theirs) : "",
    };
    writeFileSync(join(dir, "ours.md"), files.ours);
    writeFileSync(join(dir, "theirs.md"), files.theirs ?? new Uint8Array());
    writeFileSync(join(dir, "base.md"), files.base ?? new Uint8Array());
    writeFileSync(join(dir, "meta.json"), JSON.stringify(full, null, 2));
    return full;
  }

  /**
   * Creates the occurrence's folder, never reusing one: `{page_id}/{timestamp}` is the conflict's
   * public key (the routes of docs/interfaces.md §3), so a second conflict of the same id in the same second (another
   * pull, or a same-named id in another workspace) takes the next free second instead of
   * overwriting the first. The folder is made with a plain mkdir, which fails when it exists.
   */
  private claim(pageId: string, timestamp: string): { dir: string; timestamp: string } {
    mkdirSync(join(this.root, pageId), { recursive: true, mode: 0o700 });
    let stamp = timestamp;
    for (let i = 0; ; i++) {
      const dir = this.dirOf(pageId, stamp);
      try {
        mkdirSync(dir, { mode: 0o700 });
        return { dir, timestamp: stamp };
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "EEXIST" || i >= 3600) throw error;
      }
      stamp = nextSecond(stamp);
    }
  }

  /** Every open conflict of a workspace, oldest first. */
  list(workspaceId: string): ConflictMeta[] {
    if (!existsSync(this.root)) return [];
    const out: ConflictMeta[] = [];
    for (const pageId of readdirSync(this.root)) {
      if (!PAGE_ID.test(pageId)) continue;
      let stamps: string[];
      try {
        stamps = readdirSync(join(this.root, pageId));
      } catch {
        continue;
      }
      for (const ts of stamps) {
        const meta = this.readMeta(pageId, ts);
        if (meta && meta.workspace_id === workspaceId) out.push(meta);
      }
    }
    return out.sort((a, b) => a.timestamp.localeCompare(b.timestamp) || a.path.localeCompare(b.path));
  }

  get(pageId: string, timestamp: string): ConflictMeta {
    const meta = PAGE_ID.test(pageId) && TIMESTAMP.test(timestamp) ? this.readMeta(pageId, timestamp) : null;
    if (!meta) throw new NotFoundError("Conflict not found");
    return meta;
  }

  read(meta: ConflictMeta, version: "ours" | "theirs" | "base"): Buffer {
    return readFileSync(join(this.dirOf(meta.page_id, meta.timestamp), `${version}.md`));
  }

  remove(meta: ConflictMeta): void {
    rmSync(this.dirOf(meta.page_id, meta.timestamp), { recursive: true, force: true });
    try {
      rmdirSync(join(this.root, meta.page_id)); // only when no other conflict of the page is left
    } catch {
      // not empty
    }
  }

  private readMeta(pageId: string, timestamp: string): ConflictMeta | null {
    if (!TIMESTAMP.test(timestamp)) return null;
    try {
      return JSON.parse(readFileSync(join(this.dirOf(pageId, timestamp), "meta.json"), "utf8")) as ConflictMeta;
    } catch {
      return null;
    }
  }

  private dirOf(pageId: string, timestamp: string): string {
    if (!PAGE_ID.test(pageId) || !TIMESTAMP.test(timestamp)) throw new ValidationError("Invalid conflict reference", "conflict_id");
    return join(this.root, pageId, timestamp);
  }
}
