/**
 * Who, if anyone, runs on a data directory — the one answer `status`, `open` and `stop` share.
 *
 * runstate.json alone proves nothing: a crash leaves it behind and its pid may since belong to
 * another program. An instance is *confirmed* only when all of these hold:
 *  1. some process holds the data directory's instance lock (the kernel drops it when the
 *     holder dies, so it never goes stale);
 *  2. runstate.json exists;
 *  3. `GET /api/health` on the recorded port answers with the recorded `instance_id` (the id is
 *     stored in quire.db, so only a server on this data directory can give it).
 * Only `lockHolder` says which process holds the lock; it is what `stop` needs before it sends a
 * signal to anything (see `signalTarget`).
 */
import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { isLocked, LOCK_FILE } from "./instance-lock.ts";
import { readRunState, type RunState } from "./runstate.ts";

type ProbeResult =
  | { state: "none"; runstate: RunState | null; stale: boolean }
  | { state: "unconfirmed"; runstate: RunState | null; reason: string }
  | { state: "confirmed"; runstate: RunState; version: string };

const HEALTH_TIMEOUT_MS = 1500;

export async function probeInstance(dataDir: string, timeoutMs = HEALTH_TIMEOUT_MS): Promise<ProbeResult> {
  const runstate = readRunState(dataDir);
  if (!lockHeld(dataDir)) return { state: "none", runstate, stale: runstate !== null };
  if (runstate === null) {
    return { state: "unconfirmed", runstate, reason: "the data directory is locked but no run state was written (a server is starting, or another command holds it)" };
  }
  try {
    const response = await fetch(`http://127.0.0.1:${runstate.port}/api/health`, { signal: AbortSignal.timeout(timeoutMs) });
    const body = (await response.json()) as { instance_id?: unknown; version?: unknown };
    if (response.ok && typeof body.instance_id === "string" && body.instance_id === runstate.instance_id) {
      return { state: "confirmed", runstate, version: typeof body.version === "string" ? body.version : runstate.version };
    }
    return { state: "unconfirmed", runstate, reason: `port ${runstate.port} answers, but not as the instance recorded in runstate.json` };
  } catch {
    return { state: "unconfirmed", runstate, reason: `the data directory is locked but nothing answers as Quire on port ${runstate.port}` };
  }
}

/**
 * Whether some process holds the instance lock. Where the kernel's lock table can be read this
 * takes nothing (a `status` never competes with a `serve` that is starting); elsewhere it tries
 * the lock for an instant (isLocked).
 */
export function lockHeld(dataDir: string, platform: NodeJS.Platform = process.platform): boolean {
  const holder = lockHolder(dataDir, platform);
  return holder === undefined ? isLocked(dataDir) : holder !== null;
}

/**
 * The pid holding the instance lock, read from the kernel's lock table (/proc/locks, Linux):
 * a number when found, null when no process holds it, undefined where there is no such table
 * (macOS, Windows: there `/proc/locks` is not asked at all — under Windows it would name a file on
 * the current drive). flock(2) entries name the process that took the lock and the file's inode.
 */
export function lockHolder(dataDir: string, platform: NodeJS.Platform = process.platform): number | null | undefined {
  if (platform !== "linux") return undefined;
  let inode: number;
  try {
    inode = statSync(join(dataDir, LOCK_FILE)).ino;
  } catch {
    return null;
  }
  let table: string;
  try {
    table = readFileSync("/proc/locks", "utf8");
  } catch {
    return undefined;
  }
  for (const line of table.split("\n")) {
    // "1: FLOCK  ADVISORY  WRITE 12345 08:01:1234567 0 EOF" (blocked waiters carry "->" and are skipped)
    const m = /^\d+:\s+FLOCK\s+\S+\s+WRITE\s+(\d+)\s+[0-9a-f]+:[0-9a-f]+:(\d+)\s/.exec(line);
    if (m && Number(m[2]) === inode) return Number(m[1]);
  }
  return null;
}

/**
 * The pid `stop` may signal, or null when it may not: the instance is confirmed through its
 * health answer AND the recorded pid is positively the lock's holder — from the kernel's lock
 * table, or (where that table cannot be read) from the control endpoint's own answer
 * (`controlPid`, authenticated by the per-boot token). Anything less, and nothing is signalled.
 */
export function signalTarget(dataDir: string, probe: ProbeResult, controlPid?: number, platform: NodeJS.Platform = process.platform): number | null {
  if (probe.state !== "confirmed") return null;
  const pid = probe.runstate.pid;
  if (!Number.isInteger(pid) || pid <= 1 || pid === process.pid) return null;
  const holder = lockHolder(dataDir, platform);
  if (holder === undefined) return controlPid === pid ? pid : null;
  return holder === pid ? pid : null;
}
