/**
 * What a running `serve` leaves in its data directory for other commands (status, open, stop):
 * `runstate.json` (who is running and where) and `control.token` (a per-boot secret, 0600).
 * Both are written atomically (temporary file + rename) so a reader never sees half a file,
 * and removed on a clean exit. A crash can leave them behind; readers therefore trust them only
 * while the instance lock is held (see instance-lock.ts).
 */
import { existsSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { randomBytes } from "node:crypto";

export interface RunState {
  pid: number;
  port: number;
  url: string;
  version: string;
  instance_id: string;
  started_at: string;
  /** The loopback control endpoint's port (control.ts); absent in run states of older versions. */
  control_port?: number;
}

const RUNSTATE_FILE = "runstate.json";
const CONTROL_TOKEN_FILE = "control.token";

function writeAtomic(path: string, data: string, mode: number): void {
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, data, { mode });
  renameSync(tmp, path);
}

export function writeRunState(dataDir: string, state: RunState): void {
  writeAtomic(join(dataDir, RUNSTATE_FILE), JSON.stringify(state, null, 2) + "\n", 0o644);
}

/** The recorded run state, or null when absent or unreadable. */
export function readRunState(dataDir: string): RunState | null {
  try {
    const parsed = JSON.parse(readFileSync(join(dataDir, RUNSTATE_FILE), "utf8")) as Partial<RunState>;
    if (typeof parsed.pid !== "number" || typeof parsed.port !== "number") return null;
    return parsed as RunState;
  } catch {
    return null;
  }
}

/** Creates a fresh per-boot control token (64 hex characters, mode 0600) and returns it. */
export function writeControlToken(dataDir: string): string {
  const token = randomBytes(32).toString("hex");
  writeAtomic(join(dataDir, CONTROL_TOKEN_FILE), token + "\n", 0o600);
  return token;
}

export function readControlToken(dataDir: string): string | null {
  const path = join(dataDir, CONTROL_TOKEN_FILE);
  return existsSync(path) ? readFileSync(path, "utf8").trim() : null;
}

/** Removes both files, but only when they describe this process (never another instance's). */
export function removeRunState(dataDir: string, pid: number = process.pid): void {
  const state = readRunState(dataDir);
  if (state !== null && state.pid !== pid) return;
  rmSync(join(dataDir, RUNSTATE_FILE), { force: true });
  rmSync(join(dataDir, CONTROL_TOKEN_FILE), { force: true });
}
