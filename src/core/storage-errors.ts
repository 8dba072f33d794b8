import { readdirSync, statfsSync, statSync } from "node:fs";
import { join } from "node:path";
import { AppError, InsufficientStorageError, ServiceUnavailableError } from "./errors.ts";
import type { Logger } from "./log.ts";

/**
 * A write the filesystem refused for want of space or because it is read-only is neither the
 * caller's fault nor a bug: it becomes a 507 (full, over quota, SQLite's "database or disk is
 * full") or a 503 (read-only), with a message a person understands, and the operator gets one
 * `warn` a minute with the free space instead of an "unhandled error" per request
 * (docs/decisions/storage.md).
 */
type StorageFailure = "full" | "read-only";

const FULL_CODES = new Set(["ENOSPC", "EDQUOT", "SQLITE_FULL"]);
const READ_ONLY_CODES = new Set(["EROFS", "SQLITE_READONLY"]);
/**
 * What native git and libraries that rethrow put in their message when the code is lost — and
 * this module's own refusals as a child `quire` process prints them ("disk is full", "storage is
 * read-only"), so a parent reading its stderr (the scheduled backup) knows the cause too.
 */
const FULL_TEXT = /\b(ENOSPC|EDQUOT)\b|No space left on device|Disk quota exceeded|disk is full/i;
const READ_ONLY_TEXT = /\bEROFS\b|Read-only file system|storage is read-only/i;

const READ_ONLY_MESSAGE = "The server's storage is read-only; nothing was saved. Ask your administrator to check the disk.";

/** Which storage failure `error` is (looking through `cause` chains), or null when it is none. */
export function storageFailureOf(error: unknown): StorageFailure | null {
  for (let e = error, depth = 0; e !== null && e !== undefined && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    if (e instanceof InsufficientStorageError) return "full";
    if (e instanceof AppError) return null;
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string") {
      if (FULL_CODES.has(code)) return "full";
      if (READ_ONLY_CODES.has(code)) return "read-only";
    }
    const message = e instanceof Error ? e.message : typeof e === "string" ? e : "";
    if (FULL_TEXT.test(message)) return "full";
    if (READ_ONLY_TEXT.test(message)) return "read-only";
  }
  return null;
}

/** The application error a storage failure answers with; null when `error` is not one. */
export function storageRefusal(error: unknown): AppError | null {
  if (error instanceof InsufficientStorageError) return error;
  const failure = storageFailureOf(error);
  if (failure === "full") return new InsufficientStorageError();
  if (failure === "read-only") return new ServiceUnavailableError(READ_ONLY_MESSAGE);
  return null;
}

/** Free and total space (bytes) and inodes of the filesystem holding `dir`; null when it cannot be read. */
export function diskSpace(dir: string): { freeBytes: number; totalBytes: number; freeInodes: number; totalInodes: number } | null {
  try {
    const s = statfsSync(dir);
    return { freeBytes: s.bavail * s.bsize, totalBytes: s.blocks * s.bsize, freeInodes: s.ffree, totalInodes: s.files };
  } catch {
    return null;
  }
}

const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;

/**
 * Refuses, before anything is written, a job that would fill the disk holding `dir`: it expects
 * to write about `neededBytes` (an export, a diagnostics bundle). The refusal is the full-disk
 * one (507 over HTTP, exit 1 on the CLI) with the figures; when the free space cannot be read the
 * job goes ahead and its own write failure, if any, says so.
 */
export function requireFreeSpace(dir: string, neededBytes: number, what: string): void {
  const free = diskSpace(dir)?.freeBytes;
  if (free === undefined || free >= neededBytes) return;
  throw new InsufficientStorageError(
    `Not enough free disk space for ${what}: it needs about ${mib(neededBytes)} and the disk holding ${dir} has ${mib(free)} free. ` +
      "Nothing was written; free space or write it elsewhere, then try again.",
  );
}

/** The size in bytes of the files under `dir`, leaving out dot-entries (a work tree's `.git`). */
export function filesBytes(dir: string): number {
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name.startsWith(".")) continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) total += filesBytes(path);
    else if (entry.isFile()) total += statSync(path).size;
  }
  return total;
}

/** How long a refused write keeps readiness `unavailable` after it, unless a write succeeded since. */
const FAILURE_HOLD_MS = 60_000;
/** At most one `warn` per failure kind per this long. */
const LOG_EVERY_MS = 60_000;

/**
 * The instance's view of its data directory's storage: the last refused write (readiness says
 * `unavailable` for a while after one), the rate-limited warning, and the free space.
 */
export class StorageHealth {
  private lastFailure: { kind: StorageFailure; at: number } | null = null;
  private readonly lastLogged = new Map<StorageFailure, number>();
  private suppressed = 0;

  constructor(
    readonly dataDir: string,
    private readonly log: Logger,
    /** Below this many free bytes readiness says `degraded` (STORAGE_MIN_FREE_MB). */
    readonly minFreeBytes: number,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * `storageRefusal`, plus the bookkeeping: the failure is remembered for readiness and logged at
   * `warn` at most once a minute (with how many were not logged since). `where` names the write path.
   */
  refusal(error: unknown, where: string): AppError | null {
    const refusal = storageRefusal(error);
    if (refusal === null) return null;
    const kind: StorageFailure = refusal instanceof InsufficientStorageError ? "full" : "read-only";
    const now = this.now();
    this.lastFailure = { kind, at: now };
    const last = this.lastLogged.get(kind);
    if (last !== undefined && now - last < LOG_EVERY_MS) {
      this.suppressed++;
      return refusal;
    }
    this.lastLogged.set(kind, now);
    const space = diskSpace(this.dataDir);
    this.log.warn(kind === "full" ? "write refused: the data directory's disk is full" : "write refused: the data directory is read-only", {
      where,
      error: String((error as Error)?.message ?? error),
      free_bytes: space?.freeBytes ?? null,
      free_inodes: space?.freeInodes ?? null,
      data_dir: this.dataDir,
      not_logged_since: this.suppressed,
    });
    this.suppressed = 0;
    return refusal;
  }

  /** A write went through: readiness need not wait out the hold of an earlier refusal. */
  writeSucceeded(): void {
    this.lastFailure = null;
  }

  /** The refused write of the last minute, if any. */
  recentFailure(): StorageFailure | null {
    if (this.lastFailure === null || this.now() - this.lastFailure.at > FAILURE_HOLD_MS) return null;
    return this.lastFailure.kind;
  }

  /**
   * Readiness' storage check: `unavailable` while writes fail (a refusal in the last minute and no
   * write through since), `degraded` under the minimum free space. Names no path or figure: the
   * endpoint is public (the free bytes are on /metrics and in `quire doctor`).
   */
  check(): { status: "ok" | "degraded" | "unavailable"; message?: string } {
    const failure = this.recentFailure();
    if (failure === "full") return { status: "unavailable", message: "writes are failing: the disk is full" };
    if (failure === "read-only") return { status: "unavailable", message: "writes are failing: the storage is read-only" };
    const free = this.freeBytes();
    if (free !== null && free < this.minFreeBytes) {
      return { status: "degraded", message: "free disk space is under the configured minimum (STORAGE_MIN_FREE_MB)" };
    }
    return { status: "ok" };
  }

  freeBytes(): number | null {
    return diskSpace(this.dataDir)?.freeBytes ?? null;
  }
}
