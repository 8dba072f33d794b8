/**
 * status, open and stop as real processes against a real `serve`, and against run states that
 * lie: a dead pid, a pid that now belongs to another program, a lock held by something that is
 * not a server. Nothing but the verified instance is ever signalled.
 */
import { afterAll, afterEach, expect, test } from "bun:test";
import { existsSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../helpers/server.ts";
import { writeRunState } from "../../src/ops/runstate.ts";
import { stopInstance } from "../../src/ops/stop-instance.ts";
import { refusesConnections, runCli, startServe, type ServeProcess } from "./spawn.ts";

const dirs: string[] = [];
const children: Array<{ kill(sig?: number | NodeJS.Signals): void; exitCode: number | null }> = [];
function dataDir(): string {
  const d = tempDir("quire-life-");
  dirs.push(d);
  return d;
}
async function serve(dir: string): Promise<ServeProcess> {
  const s = await startServe(dir);
  children.push(s.proc);
  return s;
}
/** An unrelated live program: what a reused pid looks like. */
function sleeper() {
  const proc = Bun.spawn(["sleep", "60"], { stdio: ["ignore", "ignore", "ignore"] });
  children.push(proc);
  return proc;
}
const LOCK_MODULE = join(import.meta.dir, "../../src/ops/instance-lock.ts");
/** A process that holds the data directory's lock and is not a server (like `quire rebuild`). */
async function lockHolder(dir: string) {
  const script = `const { tryLock } = await import(${JSON.stringify(LOCK_MODULE)});
    console.log(tryLock(${JSON.stringify(dir)}) ? "locked" : "refused"); setInterval(() => {}, 1000);`;
  const proc = Bun.spawn([process.execPath, "-e", script], { stdout: "pipe", stderr: "inherit" });
  children.push(proc);
  const { value } = await proc.stdout.getReader().read();
  expect(new TextDecoder().decode(value).trim()).toBe("locked");
  return proc;
}
const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};
function fakeRunState(dir: string, pid: number, port = 9) {
  writeRunState(dir, {
    pid,
    port,
    url: `http://localhost:${port}`,
    version: "v0.1.0",
    instance_id: "01HZZZZZZZZZZZZZZZZZZZZZZZ",
    started_at: new Date().toISOString(),
    control_port: port,
  });
  writeFileSync(join(dir, "control.token"), "0".repeat(64) + "\n", { mode: 0o600 });
}

afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null) c.kill("SIGKILL");
});
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

test("status, open and stop against a running server: confirmed, its URL, a graceful stop; then nothing running", async () => {
  const dir = dataDir();
  const s = await serve(dir);
  const status = await runCli(["status", "--json", "--data-dir", dir]);
  expect(status.code).toBe(0);
  const health = (await (await fetch(`${s.base}/api/health`)).json()) as { instance_id: string; version: string };
  expect(JSON.parse(status.stdout)).toEqual({
    running: true,
    confirmed: true,
    pid: s.pid,
    port: s.port,
    url: s.url,
    version: health.version,
    instance_id: health.instance_id,
    data_dir: dir,
    data_dir_rule: "flag",
    started_at: expect.any(String),
  });
  const human = await runCli(["status"], { env: { DATA_DIR: dir } });
  expect(human.code).toBe(0);
  expect(human.stdout).toContain(`running: ${s.url} (pid ${s.pid}`);
  expect(human.stdout).toContain(`(env)`);

  const open = await runCli(["open", "--no-browser", "--data-dir", dir]);
  expect(open).toMatchObject({ code: 0, stdout: `${s.url}\n` });
  // No opener on PATH: nothing is started, the URL is printed, and that is still success.
  const bare = tempDir("quire-nopath-");
  dirs.push(bare);
  const noOpener = await runCli(["open", "--data-dir", dir], { env: { PATH: bare } });
  expect(noOpener.code).toBe(0);
  expect(noOpener.stdout).toBe(`${s.url}\n`);
  expect(noOpener.stderr).toContain("no browser opener");

  const stop = await runCli(["stop", "--json", "--data-dir", dir]);
  expect(stop.code).toBe(0);
  expect(JSON.parse(stop.stdout)).toMatchObject({ result: "stopped", via: "control" });
  expect(await s.exited).toBe(0);
  expect(await refusesConnections(s.base)).toBe(true);
  expect(existsSync(join(dir, "runstate.json"))).toBe(false);

  expect((await runCli(["status", "--data-dir", dir])).code).toBe(3);
  expect((await runCli(["open", "--data-dir", dir])).code).toBe(3);
  const again = await runCli(["stop", "--data-dir", dir]);
  expect(again.code).toBe(0);
  expect(again.stdout).toContain("nothing is running");
}, 60_000);

test("a stale run state whose pid now belongs to another program: not running, and that program is never signalled", async () => {
  const dir = dataDir();
  mkdirSync(dir, { recursive: true });
  const other = sleeper();
  fakeRunState(dir, other.pid);
  const status = await runCli(["status", "--json", "--data-dir", dir]);
  expect(status.code).toBe(3);
  expect(JSON.parse(status.stdout)).toMatchObject({ running: false, pid: null });
  const stop = await runCli(["stop", "--force", "--data-dir", dir]);
  expect(stop.code).toBe(0);
  expect(stop.stdout).toContain(`names pid ${other.pid}, which no longer holds the data directory; nothing was signalled`);
  expect((await runCli(["open", "--data-dir", dir])).code).toBe(3);
  await Bun.sleep(100);
  expect(alive(other.pid)).toBe(true);
  expect(other.exitCode).toBeNull();
}, 60_000);

test("a stale run state with a dead pid is not running", async () => {
  const dir = dataDir();
  mkdirSync(dir, { recursive: true });
  const gone = Bun.spawn(["true"]);
  await gone.exited;
  fakeRunState(dir, gone.pid);
  expect((await runCli(["status", "--data-dir", dir])).code).toBe(3);
  expect((await runCli(["stop", "--data-dir", dir])).code).toBe(0);
}, 60_000);

test("a lock held by something that is not the recorded server: identity unconfirmed, exit 1, nothing signalled", async () => {
  const dir = dataDir();
  const holder = await lockHolder(dir);
  const other = sleeper();
  fakeRunState(dir, other.pid);
  const status = await runCli(["status", "--json", "--data-dir", dir]);
  expect(status.code).toBe(1);
  expect(JSON.parse(status.stdout)).toMatchObject({ running: true, confirmed: false, instance_id: null });
  expect((await runCli(["open", "--data-dir", dir])).code).toBe(1);
  const stop = await runCli(["stop", "--force", "--data-dir", dir]);
  expect(stop.code).toBe(1);
  expect(stop.stderr).toContain("identity unconfirmed");
  expect(stop.stderr).toContain("nothing was signalled");
  await Bun.sleep(100);
  expect(alive(other.pid)).toBe(true);
  expect(holder.exitCode).toBeNull();
}, 60_000);

test("without the control endpoint (token gone), stop sends SIGTERM to the verified lock holder", async () => {
  const dir = dataDir();
  const s = await serve(dir);
  rmSync(join(dir, "control.token"));
  const stop = await runCli(["stop", "--json", "--data-dir", dir]);
  expect(stop.code).toBe(0);
  expect(JSON.parse(stop.stdout)).toMatchObject({ result: "stopped", via: "sigterm" });
  expect(await s.exited).toBe(0);
}, 60_000);

test("on Windows (its branch, run here) a server without its control endpoint is never signalled: a signal there would cut its saves short", async () => {
  const dir = dataDir();
  const s = await serve(dir);
  rmSync(join(dir, "control.token"));
  const outcome = await stopInstance(dir, { platform: "win32", waitMs: 2000 });
  expect(outcome.result).toBe("refused");
  expect(outcome.message).toContain(`taskkill /PID ${s.pid} /F`);
  expect(alive(s.pid)).toBe(true);
  expect((await fetch(`${s.base}/api/health`)).status).toBe(200);
}, 60_000);

/** A request whose body never finishes: the server's drain waits for it (up to 10 s). */
async function hangingRequest(port: number) {
  const socket = await Bun.connect({ hostname: "127.0.0.1", port, socket: { data() {} } });
  socket.write("POST /api/auth/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{");
  return socket;
}

test("a server that does not stop in time: exit 1 without --force (still alive); --force kills it only after the full wait", async () => {
  const slowDir = dataDir();
  const slow = await serve(slowDir);
  const hang = await hangingRequest(slow.port);
  const started = Date.now();
  const outcome = await stopInstance(slowDir, { waitMs: 800 });
  expect(outcome.result).toBe("timeout");
  expect(Date.now() - started).toBeGreaterThanOrEqual(800);
  expect(alive(slow.pid)).toBe(true);
  hang.end();

  const dir = dataDir();
  const stuck = await serve(dir);
  const hang2 = await hangingRequest(stuck.port);
  const t0 = Date.now();
  const forced = await stopInstance(dir, { waitMs: 800, force: true });
  expect(forced).toMatchObject({ result: "stopped", via: "sigkill" });
  expect(Date.now() - t0).toBeGreaterThanOrEqual(800);
  expect(await stuck.exited).not.toBe(0);
  hang2.end();
}, 60_000);
