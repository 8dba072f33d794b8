import { afterAll, expect, test } from "bun:test";
import { existsSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../helpers/server.ts";
import { acquireLock, InstanceLockedError, isLocked, tryLock } from "../../src/ops/instance-lock.ts";
import { readRunState, removeRunState, writeRunState, type RunState } from "../../src/ops/runstate.ts";

const dirs: string[] = [];
function dir(): string {
  const d = tempDir("quire-lock-");
  dirs.push(d);
  return d;
}
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const LOCK_MODULE = join(import.meta.dir, "../../src/ops/instance-lock.ts");

/** Another process that takes the lock and holds it until killed. */
async function holder(dataDir: string) {
  const script = `const { tryLock } = await import(${JSON.stringify(LOCK_MODULE)});
    const lock = tryLock(${JSON.stringify(dataDir)});
    console.log(lock ? "locked" : "refused");
    setInterval(() => {}, 1000);`;
  const proc = Bun.spawn([process.execPath, "-e", script], { stdout: "pipe", stderr: "inherit" });
  const reader = proc.stdout.getReader();
  const { value } = await reader.read();
  return { proc, said: new TextDecoder().decode(value).trim() };
}

test("one holder at a time within a process; release frees it; release twice is harmless", () => {
  const d = dir();
  expect(isLocked(d)).toBe(false);
  const lock = tryLock(d)!;
  expect(lock).not.toBeNull();
  expect(lock.path).toBe(join(d, "quire.lock"));
  expect(statSync(lock.path).mode & 0o777).toBe(0o600);
  expect(isLocked(d)).toBe(true);
  expect(tryLock(d)).toBeNull();
  lock.release();
  lock.release();
  expect(isLocked(d)).toBe(false);
  const again = tryLock(d);
  expect(again).not.toBeNull();
  again!.release();
});

test("tryLock creates a missing data directory (0700); isLocked never creates anything", () => {
  const d = join(dir(), "nested", "data");
  expect(isLocked(d)).toBe(false);
  expect(existsSync(d)).toBe(false);
  const lock = tryLock(d)!;
  expect(statSync(d).mode & 0o777).toBe(0o700);
  lock.release();
});

test("a lock held by another process is seen, refused with its port and pid, and freed when that process dies", async () => {
  const d = dir();
  const other = await holder(d);
  try {
    expect(other.said).toBe("locked");
    expect(isLocked(d)).toBe(true);
    expect(tryLock(d)).toBeNull();

    // Without run state (the other is starting, or is a command) the refusal says so.
    expect(() => acquireLock(d)).toThrow(/holds the lock/);

    const state: RunState = {
      pid: other.proc.pid,
      port: 4321,
      url: "http://localhost:4321",
      version: "v0.0.0",
      instance_id: "01TEST",
      started_at: new Date().toISOString(),
    };
    writeRunState(d, state);
    let error: unknown;
    try {
      acquireLock(d);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(InstanceLockedError);
    expect((error as InstanceLockedError).message).toContain("port 4321, pid " + other.proc.pid);
    expect((error as InstanceLockedError).port).toBe(4321);
    expect((error as InstanceLockedError).pid).toBe(other.proc.pid);
  } finally {
    other.proc.kill("SIGKILL");
    await other.proc.exited;
  }
  expect(isLocked(d)).toBe(false);
  const mine = acquireLock(d);
  mine.release();
});

test("run state round-trips, is written whole, and is removed only by its own process", () => {
  const d = dir();
  expect(readRunState(d)).toBeNull();
  const state: RunState = {
    pid: process.pid,
    port: 3000,
    url: "http://localhost:3000",
    version: "v1.2.3",
    instance_id: "01ABC",
    started_at: "2026-01-01T00:00:00.000Z",
  };
  writeRunState(d, state);
  expect(readRunState(d)).toEqual(state);
  removeRunState(d, process.pid + 1);
  expect(readRunState(d)).toEqual(state);
  removeRunState(d);
  expect(readRunState(d)).toBeNull();
  expect(existsSync(join(d, "runstate.json"))).toBe(false);
});
