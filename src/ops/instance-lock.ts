/**
 * Single writer per data directory: `serve` (and later `init`, `rebuild`, `mcp`) hold an
 * exclusive flock(2) on `{DATA_DIR}/quire.lock` for their lifetime. The kernel drops the lock
 * when the process dies however it dies (SIGKILL, crash, power loss of the process), so the lock
 * can never go stale the way a pid file can. Bun opens descriptors close-on-exec, so child
 * processes (git) never inherit it and never keep a dead server's lock alive.
 */
import { closeSync, existsSync, mkdirSync, openSync, constants } from "node:fs";
import { join } from "node:path";
import { readRunState } from "./runstate.ts";

export const LOCK_FILE = "quire.lock";

const LOCK_EX = 2;
const LOCK_NB = 4;
const LOCK_UN = 8;

type FlockFn = (fd: number, op: number) => number;
let flockFn: FlockFn | undefined;

function flock(): FlockFn {
  if (flockFn) return flockFn;
  const libc =
    process.platform === "darwin" ? "libc.dylib" : process.platform === "linux" ? "libc.so.6" : undefined;
  if (libc === undefined) throw new Error(`the instance lock is not supported on ${process.platform}`);
  // Loaded on first use so that commands which never lock do not pay for dlopen.
  const { dlopen, FFIType } = require("bun:ffi") as typeof import("bun:ffi");
  const lib = dlopen(libc, { flock: { args: [FFIType.i32, FFIType.i32], returns: FFIType.i32 } });
  flockFn = (fd, op) => lib.symbols.flock(fd, op) as number;
  return flockFn;
}

export interface InstanceLock {
  readonly path: string;
  /** Releases the lock and closes the descriptor; safe to call twice. */
  release(): void;
}

/** Raised when another process holds the data directory; names it when its run state says who. */
export class InstanceLockedError extends Error {
  readonly pid?: number;
  readonly port?: number;
  constructor(readonly dataDir: string) {
    const state = readRunState(dataDir);
    super(
      state
        ? `another Quire instance is already running on ${dataDir} (port ${state.port}, pid ${state.pid}); stop it first`
        : `another Quire process holds the lock on ${dataDir} (it is starting, or a command is running); try again when it is done`,
    );
    this.name = "InstanceLockedError";
    if (state) {
      this.pid = state.pid;
      this.port = state.port;
    }
  }
}

function openLockFile(path: string, create: boolean): number | null {
  if (!create && !existsSync(path)) return null;
  return openSync(path, create ? constants.O_RDWR | constants.O_CREAT : constants.O_RDONLY, 0o600);
}

/** Takes the lock without waiting; null when another process (or descriptor) holds it. */
export function tryLock(dataDir: string): InstanceLock | null {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const path = join(dataDir, LOCK_FILE);
  const fd = openLockFile(path, true)!;
  if (flock()(fd, LOCK_EX | LOCK_NB) !== 0) {
    closeSync(fd);
    return null;
  }
  let held = true;
  return {
    path,
    release() {
      if (!held) return;
      held = false;
      flock()(fd, LOCK_UN);
      closeSync(fd);
    },
  };
}

/** Takes the lock or throws InstanceLockedError naming the running instance. */
export function acquireLock(dataDir: string): InstanceLock {
  const lock = tryLock(dataDir);
  if (lock === null) throw new InstanceLockedError(dataDir);
  return lock;
}

/** Whether some process holds the lock right now (read-only: never creates the directory or file). */
export function isLocked(dataDir: string): boolean {
  const fd = openLockFile(join(dataDir, LOCK_FILE), false);
  if (fd === null) return false;
  try {
    if (flock()(fd, LOCK_EX | LOCK_NB) !== 0) return true;
    flock()(fd, LOCK_UN);
    return false;
  } finally {
    closeSync(fd);
  }
}
