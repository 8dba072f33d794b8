/** The kernel's lock table names the lock's holder: the only pid `stop` may ever signal. */
import { afterAll, expect, test } from "bun:test";
import { existsSync, rmSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../helpers/server.ts";
import { lockHeld, lockHolder } from "../../src/ops/instance-probe.ts";
import { tryLock } from "../../src/ops/instance-lock.ts";

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

test("lockHolder names the process holding the data directory's lock, and nothing otherwise", async () => {
  const d = tempDir("quire-probe-");
  dirs.push(d);
  expect(lockHolder(d)).toBeNull(); // no lock file at all
  expect(lockHeld(d)).toBe(false);
  expect(existsSync(join(d, "quire.lock"))).toBe(false);

  const script = `const { tryLock } = await import(${JSON.stringify(join(import.meta.dir, "../../src/ops/instance-lock.ts"))});
    tryLock(${JSON.stringify(d)}); console.log("locked"); setInterval(() => {}, 1000);`;
  const other = Bun.spawn([process.execPath, "-e", script], { stdout: "pipe", stderr: "inherit" });
  try {
    await other.stdout.getReader().read();
    if (lockHolder(d) === undefined) return console.warn("no /proc/locks here; the fallback (isLocked) is tested in instance-lock.test.ts");
    expect(lockHolder(d)).toBe(other.pid);
    expect(lockHeld(d)).toBe(true);
  } finally {
    other.kill("SIGKILL");
    await other.exited;
  }
  expect(lockHolder(d)).toBeNull();
  expect(lockHeld(d)).toBe(false);
  // Our own lock names us.
  const mine = tryLock(d)!;
  expect(lockHolder(d)).toBe(process.pid);
  mine.release();
}, 60_000);

test("where no lock table exists (macOS, Windows) the holder is unknown and the lock itself is asked", async () => {
  const d = tempDir("quire-probe-");
  dirs.push(d);
  const mine = tryLock(d)!;
  for (const platform of ["darwin", "win32"] as const) {
    expect(lockHolder(d, platform)).toBeUndefined();
    expect(lockHeld(d, platform)).toBe(true);
  }
  mine.release();
  expect(lockHeld(d, "darwin")).toBe(false);
});
