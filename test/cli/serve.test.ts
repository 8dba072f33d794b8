import { afterAll, afterEach, describe, expect, test } from "bun:test";
import { existsSync, readFileSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { Database } from "bun:sqlite";
import { tempDir } from "../helpers/server.ts";
import { isLocked } from "../../src/ops/instance-lock.ts";
import { migrations } from "../../src/db/migrations/index.ts";
import { refusesConnections, runCli, startServe, waitFor, type ServeProcess } from "./spawn.ts";
import { registerUser } from "../helpers/factories.ts";
import type { TestServer } from "../helpers/server.ts";
import { connect } from "../realtime/ws-client.ts";

const dirs: string[] = [];
const running: ServeProcess[] = [];
function dataDir(): string {
  const d = tempDir("quire-serve-");
  dirs.push(d);
  return d;
}
async function serve(dir: string, opts: Parameters<typeof startServe>[1] = {}): Promise<ServeProcess> {
  const s = await startServe(dir, opts);
  running.push(s);
  return s;
}
afterEach(() => {
  for (const s of running.splice(0)) if (s.proc.exitCode === null) s.proc.kill("SIGKILL");
});
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

test("serve prints one ready line, serves /api/health and records its run state", async () => {
  const dir = dataDir();
  const s = await serve(dir);
  expect(s.readyLine).toMatch(/^Quire v\d+\.\d+\.\d+ ready at http:\/\/localhost:\d+ \(data directory: .+\)$/);
  expect(s.readyLine).toContain(`(data directory: ${dir})`);

  const health = await fetch(`${s.base}/api/health`);
  expect(health.status).toBe(200);
  const body = (await health.json()) as { status: string; version: string; instance_id: string };
  expect(body.status).toBe("ok");
  expect(body.version).toMatch(/^v\d+\.\d+\.\d+$/);

  const state = JSON.parse(readFileSync(join(dir, "runstate.json"), "utf8"));
  expect(state).toEqual({
    pid: s.pid,
    port: s.port,
    url: s.url,
    version: body.version,
    instance_id: body.instance_id,
    started_at: expect.any(String),
    control_port: expect.any(Number),
  });
  expect(Date.now() - Date.parse(state.started_at)).toBeLessThan(60_000);

  const token = readFileSync(join(dir, "control.token"), "utf8").trim();
  expect(token).toMatch(/^[0-9a-f]{64}$/);
  expect(statSync(join(dir, "control.token")).mode & 0o777).toBe(0o600);
  expect(isLocked(dir)).toBe(true);

  // The database was created and migrated before the server listened.
  const db = new Database(join(dir, "quire.db"), { readonly: true });
  expect(db.query("SELECT version FROM schema_migrations ORDER BY version").all()).toEqual(migrations.map((m) => ({ version: m.version })));
  // WAL is recorded in the file (and the serving connection keeps its -wal file); foreign keys are
  // per connection, so from outside only their result can be seen: no violations.
  expect(db.query("PRAGMA journal_mode").get()).toEqual({ journal_mode: "wal" });
  expect(existsSync(join(dir, "quire.db-wal"))).toBe(true);
  expect(db.query("PRAGMA foreign_key_check").all()).toEqual([]);
  expect((db.query("SELECT value FROM instance WHERE key = 'instance_id'").get() as { value: string }).value).toBe(
    body.instance_id,
  );
  db.close();

  // Logs are JSON lines on stderr, requests carry their id (logged just after the response).
  await waitFor(() => s.stderr().includes('"path":"/api/health"'));
  const lines = s.stderr().trim().split("\n").map((l) => JSON.parse(l));
  expect(lines.find((l) => l.msg === "request" && l.path === "/api/health")?.request_id).toBe(
    health.headers.get("x-request-id"),
  );
  expect(s.stderr()).not.toContain(token);
});

test("a second serve on the same data directory refuses, naming the running one's port and pid, exit 1", async () => {
  const dir = dataDir();
  const first = await serve(dir);
  const second = await runCli(["serve", "--port", "0", "--data-dir", dir]);
  expect(second.code).toBe(1);
  expect(second.stdout).toBe("");
  expect(second.stderr).toContain(`port ${first.port}`);
  expect(second.stderr).toContain(`pid ${first.pid}`);
  // The refused process changed nothing: the first still runs and still owns the run state.
  expect((await fetch(`${first.base}/api/health`)).status).toBe(200);
  expect(JSON.parse(readFileSync(join(dir, "runstate.json"), "utf8")).pid).toBe(first.pid);
});

test("a port that is already taken is refused with exit 1, not shared with the running server", async () => {
  const first = await serve(dataDir());
  const other = dataDir();
  const r = await runCli(["serve", "--port", String(first.port), "--data-dir", other]);
  expect(r.code).toBe(1);
  expect(r.stderr).toContain(`port ${first.port} is already in use`);
  expect(r.stdout).toBe("");
  // It let go of its lock on the way out.
  expect(isLocked(other)).toBe(false);
  expect(existsSync(join(other, "runstate.json"))).toBe(false);
});

describe("shutdown", () => {
  test("SIGTERM drains, removes the run state, releases the lock and exits 0; a new serve then starts", async () => {
    const dir = dataDir();
    const s = await serve(dir);
    const started = Date.now();
    s.proc.kill("SIGTERM");
    expect(await s.exited).toBe(0);
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(existsSync(join(dir, "runstate.json"))).toBe(false);
    expect(existsSync(join(dir, "control.token"))).toBe(false);
    expect(isLocked(dir)).toBe(false);
    expect(await refusesConnections(s.base)).toBe(true);
    expect(s.stderr()).toContain('"msg":"stopped"');

    const again = await serve(dir);
    expect((await fetch(`${again.base}/api/health`)).status).toBe(200);
  });

  test("SIGINT shuts down the same way", async () => {
    const dir = dataDir();
    const s = await serve(dir);
    s.proc.kill("SIGINT");
    expect(await s.exited).toBe(0);
    expect(existsSync(join(dir, "runstate.json"))).toBe(false);
  });

  test("a serve killed with SIGKILL leaves no stale lock: the next serve starts and replaces the run state", async () => {
    const dir = dataDir();
    const s = await serve(dir);
    s.proc.kill("SIGKILL");
    await s.exited;
    // The run state survives a hard kill, but the lock does not.
    expect(existsSync(join(dir, "runstate.json"))).toBe(true);
    expect(isLocked(dir)).toBe(false);
    const again = await serve(dir);
    expect((await fetch(`${again.base}/api/health`)).status).toBe(200);
    expect(JSON.parse(readFileSync(join(dir, "runstate.json"), "utf8")).pid).toBe(again.pid);
  });

  test("a request in flight when SIGTERM arrives completes; new connections are refused meanwhile", async () => {
    // Registration hashes the password with argon2id; with heavy parameters that takes a while,
    // which makes it a real slow request without any test-only endpoint.
    const dir = dataDir();
    const s = await serve(dir, { env: { ARGON2_MEMORY: "65536", ARGON2_TIME: "25", ARGON2_THREADS: "1" } });
    const t0 = Date.now();
    const slow = fetch(`${s.base}/api/auth/register`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ name: "Slow", email: "slow@example.test", password: "long enough password", terms_accepted: true }),
    });
    // Loopback delivers the request within milliseconds; the hash then runs for several hundred.
    await Bun.sleep(100);
    s.proc.kill("SIGTERM");
    // New connections are refused while the slow request is still in flight: looked for until it
    // answers (a loaded machine may take more than a few milliseconds to act on the signal).
    let answered = false;
    void slow.finally(() => (answered = true));
    let refused = false;
    while (!refused && !answered) {
      refused = await refusesConnections(s.base);
      if (!refused) await Bun.sleep(10);
    }
    expect(refused).toBe(true);
    const res = await slow;
    const elapsed = Date.now() - t0;
    expect(res.status).toBe(201);
    expect(((await res.json()) as { user: { email: string } }).user.email).toBe("slow@example.test");
    expect(await s.exited).toBe(0);
    expect(elapsed).toBeGreaterThan(100);
    const db = new Database(join(dir, "quire.db"), { readonly: true });
    expect(db.query("SELECT COUNT(*) AS n FROM users WHERE email = 'slow@example.test'").get()).toEqual({ n: 1 });
    db.close();
    // The request really was in flight across the signal: it finished after the shutdown began.
    const log = s.stderr();
    expect(log.indexOf('"msg":"shutting down"')).toBeGreaterThan(0);
    expect(log.indexOf('"msg":"shutting down"')).toBeLessThan(log.indexOf('"path":"/api/auth/register"'));
  });
  test("SIGTERM with a WebSocket open: the socket is closed with 1001 at once, a slow request in flight completes, exit well inside the drain", async () => {
    const dir = dataDir();
    const s = await serve(dir, { env: { ARGON2_MEMORY: "65536", ARGON2_TIME: "25", ARGON2_THREADS: "1" } });
    const user = await registerUser(s.base);
    const socket = await connect({ url: s.base } as TestServer, user);

    const slow = fetch(`${s.base}/api/auth/register`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ name: "Slow", email: "slow.ws@example.test", password: "long enough password", terms_accepted: true }),
    });
    await Bun.sleep(100);
    const signalled = Date.now();
    s.proc.kill("SIGTERM");

    // The hub goes first: the socket hears "going away" without waiting for the HTTP drain.
    expect(await socket.waitClosed(3000)).toEqual({ code: 1001, reason: expect.any(String) });
    expect(Date.now() - signalled).toBeLessThan(1000);
    const res = await slow;
    expect(res.status).toBe(201);
    expect(await s.exited).toBe(0);
    // An open socket used to hold the drain for its full 10 s.
    expect(Date.now() - signalled).toBeLessThan(5000);
    const log = s.stderr();
    expect(log.indexOf('"msg":"shutting down"')).toBeGreaterThan(0);
    expect(log.indexOf('"msg":"shutting down"')).toBeLessThan(log.lastIndexOf('"path":"/api/auth/register","status":201'));
    const db = new Database(join(dir, "quire.db"), { readonly: true });
    expect(db.query("SELECT COUNT(*) AS n FROM users WHERE email = 'slow.ws@example.test'").get()).toEqual({ n: 1 });
    db.close();
  }, 20_000);
});

test("--port overrides PORT", async () => {
  const dir = dataDir();
  const s = await serve(dir, { env: { PORT: "1" } });
  expect(s.port).not.toBe(1);
  expect((await fetch(`${s.base}/api/health`)).status).toBe(200);
});

test("LOG_FORMAT=pretty writes human lines; LOG_LEVEL=warn drops the info lines", async () => {
  const pretty = await serve(dataDir(), { env: { LOG_FORMAT: "pretty" } });
  await fetch(`${pretty.base}/api/health`);
  await waitFor(() => pretty.stderr().includes("/api/health"));
  expect(pretty.stderr()).toMatch(/^\d\d:\d\d:\d\d INFO  started {2}url=http/m);
  expect(pretty.stderr()).not.toContain('{"time"');

  const quiet = await serve(dataDir(), { env: { LOG_LEVEL: "warn" } });
  await fetch(`${quiet.base}/api/health`);
  quiet.proc.kill("SIGTERM");
  expect(await quiet.exited).toBe(0);
  expect(quiet.stderr()).toBe("");
});
