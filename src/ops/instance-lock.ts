/**
 * Single writer per data directory: `serve` (and `init`, `rebuild`, `mcp`, …) hold an exclusive
 * lock on `{DATA_DIR}/quire.lock` for their lifetime, one the operating system itself drops when
 * the process dies however it dies (killed, crashed), so it can never go stale the way a pid file
 * can, and one the kernel grants to one process at a time, so two starting at once cannot both win.
 *
 * - Linux and macOS: flock(2) through libc. Bun opens descriptors close-on-exec, so child
 *   processes (git) never inherit it and never keep a dead server's lock alive.
 * - Windows: the lock file opened for reading and writing while sharing only reading
 *   (CreateFileW, kernel32). Windows refuses any further open that asks to write or delete it
 *   (ERROR_SHARING_VIOLATION) until the handle is closed, which it does itself when the process
 *   ends. Bun's own `open` always shares everything (it ignores libuv's UV_FS_O_EXLOCK), hence
 *   the direct call; see docs/decisions/windows-instance-lock.md.
 */
import { closeSync, existsSync, mkdirSync, openSync, constants } from "node:fs";
import { join, win32 } from "node:path";
import { readRunState } from "./runstate.ts";

export const LOCK_FILE = "quire.lock";

/** How one platform takes, tests and gives up an exclusive lock on a file. */
interface LockPrimitive {
  /** Takes the lock without waiting (creating the file): its release, or null when another holds it. */
  take(path: string): (() => void) | null;
  /** Whether some process holds the lock; never creates the file. */
  held(path: string): boolean;
}

let cached: LockPrimitive | undefined;

/** This platform's primitive, built on first use so that commands which never lock do not pay for dlopen. */
function primitive(): LockPrimitive {
  if (cached) return cached;
  if (process.platform === "linux") cached = flockPrimitive("libc.so.6");
  else if (process.platform === "darwin") cached = flockPrimitive("libc.dylib");
  else if (process.platform === "win32") cached = windowsPrimitive();
  else throw new Error(`the instance lock is not supported on ${process.platform}`);
  return cached;
}

const LOCK_EX = 2;
const LOCK_NB = 4;
const LOCK_UN = 8;

function flockPrimitive(libc: string): LockPrimitive {
  const { dlopen, FFIType } = require("bun:ffi") as typeof import("bun:ffi");
  const lib = dlopen(libc, { flock: { args: [FFIType.i32, FFIType.i32], returns: FFIType.i32 } });
  const flock = (fd: number, op: number) => lib.symbols.flock(fd, op) as number;
  return {
    take(path) {
      const fd = openSync(path, constants.O_RDWR | constants.O_CREAT, 0o600);
      if (flock(fd, LOCK_EX | LOCK_NB) !== 0) {
        closeSync(fd);
        return null;
      }
      return () => {
        flock(fd, LOCK_UN);
        closeSync(fd);
      };
    },
    held(path) {
      if (!existsSync(path)) return false;
      const fd = openSync(path, constants.O_RDONLY);
      try {
        if (flock(fd, LOCK_EX | LOCK_NB) !== 0) return true;
        flock(fd, LOCK_UN);
        return false;
      } finally {
        closeSync(fd);
      }
    },
  };
}

const GENERIC_READ = 0x80000000;
const GENERIC_WRITE = 0x40000000;
const FILE_SHARE_READ = 0x1;
const OPEN_EXISTING = 3;
const OPEN_ALWAYS = 4;
const FILE_ATTRIBUTE_NORMAL = 0x80;
const INVALID_HANDLE_VALUE = -1n;
const ERROR_FILE_NOT_FOUND = 2;
const ERROR_PATH_NOT_FOUND = 3;
const ERROR_SHARING_VIOLATION = 32;
/** How long `take` keeps trying while a sharing violation may be a probe's instant (`held`) or a reader's. */
const WINDOWS_PROBE_GRACE_MS = 200;

function windowsPrimitive(): LockPrimitive {
  const { dlopen, FFIType } = require("bun:ffi") as typeof import("bun:ffi");
  const k32 = dlopen("kernel32.dll", {
    CreateFileW: {
      args: [FFIType.ptr, FFIType.u32, FFIType.u32, FFIType.ptr, FFIType.u32, FFIType.u32, FFIType.ptr],
      returns: FFIType.i64,
    },
    CloseHandle: { args: [FFIType.i64], returns: FFIType.i32 },
    GetLastError: { args: [], returns: FFIType.u32 },
  });
  /** The handle, or the Windows error code when the open failed. */
  const open = (path: string, disposition: number): { handle: bigint } | { error: number } => {
    const wide = Buffer.from(`${extendedPath(path)}\0`, "utf16le");
    const handle = BigInt(
      k32.symbols.CreateFileW(wide, GENERIC_READ | GENERIC_WRITE, FILE_SHARE_READ, null, disposition, FILE_ATTRIBUTE_NORMAL, null),
    );
    // Read at once: the next call into the system may overwrite the thread's last error.
    if (handle === INVALID_HANDLE_VALUE) return { error: k32.symbols.GetLastError() as number };
    return { handle };
  };
  const failure = (path: string, code: number) => new Error(`cannot open the instance lock ${path} (Windows error ${code})`);
  return {
    take(path) {
      // Another process's `held` holds the file for an instant, as may a backup or virus scanner
      // reading it: a sharing violation is final only once it outlasts a short grace.
      const until = Date.now() + WINDOWS_PROBE_GRACE_MS;
      for (;;) {
        const r = open(path, OPEN_ALWAYS);
        if ("handle" in r) return () => void k32.symbols.CloseHandle(r.handle);
        if (r.error !== ERROR_SHARING_VIOLATION) throw failure(path, r.error);
        if (Date.now() >= until) return null;
        Bun.sleepSync(10);
      }
    },
    held(path) {
      const r = open(path, OPEN_EXISTING);
      if ("handle" in r) {
        k32.symbols.CloseHandle(r.handle);
        return false;
      }
      if (r.error === ERROR_SHARING_VIOLATION) return true;
      if (r.error === ERROR_FILE_NOT_FOUND || r.error === ERROR_PATH_NOT_FOUND) return false;
      throw failure(path, r.error);
    },
  };
}

/**
 * The `\\?\` form of an absolute Windows path, which CreateFileW takes beyond MAX_PATH (260)
 * characters; relative and already-prefixed paths are left as they are.
 */
export function extendedPath(path: string): string {
  if (path.startsWith("\\\\?\\")) return path;
  const abs = win32.resolve(path);
  if (/^[A-Za-z]:\\/.test(abs)) return `\\\\?\\${abs}`;
  if (abs.startsWith("\\\\")) return `\\\\?\\UNC\\${abs.slice(2)}`;
  return path;
}

export interface InstanceLock {
  readonly path: string;
  /** Releases the lock and closes the file; safe to call twice. */
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

/** Takes the lock without waiting; null when another process (or descriptor) holds it. */
export function tryLock(dataDir: string): InstanceLock | null {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const path = join(dataDir, LOCK_FILE);
  const release = primitive().take(path);
  if (release === null) return null;
  let held = true;
  return {
    path,
    release() {
      if (!held) return;
      held = false;
      release();
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
  return primitive().held(join(dataDir, LOCK_FILE));
}
