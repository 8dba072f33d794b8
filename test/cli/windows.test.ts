/**
 * The Windows executable of this source (the release script's windows-x64 target) under Wine,
 * whose kernel32 and wineserver implement Windows' file sharing rules.
 *
 * The instance lock, whose whole mechanism there they are (src/ops/instance-lock.ts): two servers
 * never share a data directory, not even started at the same instant; a server killed outright
 * leaves no stale lock; status, stop and the refusal of a second serve see the holder; a path
 * beyond MAX_PATH works. And `quire upgrade` of the executable a server is running from: the
 * running one renamed aside, the new one moved in, the server told to restart.
 *
 * Needs wine and MinGW (.ci/run installs both): Debian's Wine 8 lacks bcryptprimitives.dll, which
 * Bun imports, so a one-function stand-in is built beside the executable (fixtures/bcryptprimitives.c).
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createHash } from "node:crypto";
import { join } from "node:path";
import pkg from "../../package.json" with { type: "json" };
import { tempDir } from "../helpers/server.ts";
import { extendedPath } from "../../src/ops/instance-lock.ts";
import { SCHEMA_VERSION } from "../../src/db/migrations/index.ts";
import { cliEnv, REPO } from "./spawn.ts";

const root = tempDir("quire-wine-");
const out = join(root, "release");
const exe = join(out, `quire-${pkg.version}-windows-x64.exe`);
const wineEnv = { WINEPREFIX: join(root, "prefix"), WINEDEBUG: "-all", WINEDLLOVERRIDES: "mscoree,mshtml=" };
/** A Windows `quire serve`, its output in files (see `windows`). */
interface WinServer {
  proc: Bun.Subprocess;
  port: number;
  base: string;
  stderr(): string;
  exited: Promise<number>;
}
const servers: WinServer[] = [];

/** A Linux path as the Windows program sees it (Wine maps / to drive Z:). */
const win = (path: string) => `Z:${path.replaceAll("/", "\\")}`;
let dirs = 0;
function dataDir(name = `data-${++dirs}`): string {
  const d = join(root, name);
  mkdirSync(d, { recursive: true });
  return d;
}
/**
 * Runs a Windows command to its exit. Its output goes to files, not pipes: the helper processes Wine
 * starts on first need (services, the desktop) inherit the standard handles of whichever program
 * started them and outlive it, so a pipe might never reach its end.
 */
let runs = 0;
async function windows(cmd: string[], env: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  const o = join(root, `run-${++runs}.out`);
  const e = join(root, `run-${runs}.err`);
  const proc = Bun.spawn(cmd, { cwd: root, env: cliEnv({ ...wineEnv, ...env }), stdin: "ignore", stdout: Bun.file(o), stderr: Bun.file(e) });
  const code = await proc.exited;
  return { code, stdout: readFileSync(o, "utf8"), stderr: readFileSync(e, "utf8") };
}
const quire = (args: string[]) => windows(["wine", exe, ...args]);
/** Starts `serve --port 0` on a data directory with the given executable; resolves at its ready line. */
async function serve(dir: string, executable = exe): Promise<WinServer> {
  const o = join(root, `serve-${++runs}.out`);
  const e = join(root, `serve-${runs}.err`);
  const proc = Bun.spawn(["wine", executable, "serve", "--port", "0", "--data-dir", win(dir)], { cwd: root, env: cliEnv(wineEnv), stdin: "ignore", stdout: Bun.file(o), stderr: Bun.file(e) });
  const read = (f: string) => (existsSync(f) ? readFileSync(f, "utf8") : "");
  const deadline = Date.now() + 60_000;
  let port: string | undefined;
  while (!(port = /ready at http:\/\/\S+:(\d+) /.exec(read(o))?.[1]) && proc.exitCode === null && Date.now() < deadline) await Bun.sleep(50);
  if (!port) {
    proc.kill("SIGKILL");
    throw new Error(`serve did not become ready (exit ${await proc.exited}):\n${read(o)}\n${read(e)}`);
  }
  const s: WinServer = { proc, port: Number(port), base: `http://127.0.0.1:${port}`, stderr: () => read(e), exited: proc.exited };
  servers.push(s);
  return s;
}

async function run(cmd: string[], env: Record<string, string> = {}) {
  const proc = Bun.spawn(cmd, { cwd: REPO, env: { ...process.env, ...env }, stdout: "pipe", stderr: "pipe" });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  if (code !== 0) throw new Error(`${cmd.join(" ")} failed (${code}):\n${stdout}${stderr}`);
  return stdout;
}

beforeAll(async () => {
  await run(["bun", "scripts/release.ts", "--out", out, "--targets", "windows-x64"]);
  await run(["x86_64-w64-mingw32-gcc", "-shared", "-O2", "-o", join(out, "bcryptprimitives.dll"), join(import.meta.dir, "fixtures/bcryptprimitives.c"), "-ladvapi32"]);
  // One wineserver for the whole file, kept running until afterAll stops it. By default it exits
  // 3 s after its last Windows process: a test starting a program just then (after the previous
  // one killed its server) met it shutting down ("wine client error: recvmsg: Connection reset by
  // peer") and its serve never started.
  mkdirSync(wineEnv.WINEPREFIX, { recursive: true });
  // Its standard handles are left closed: the daemon would hold a pipe open, and the wait on it forever.
  expect(Bun.spawnSync(["wineserver", "--persistent"], { env: { ...process.env, ...wineEnv }, stdin: "ignore", stdout: "ignore", stderr: "ignore" }).exitCode).toBe(0);
  // The first run creates the Wine prefix (a few seconds); it must then answer as this version.
  const version = await quire(["--version"]);
  expect(version.stdout.trim()).toBe(`quire v${pkg.version}`);
}, 180_000);

afterAll(async () => {
  for (const s of servers) s.proc.kill("SIGKILL");
  await Promise.all(servers.map((s) => s.exited));
  Bun.spawnSync(["wineserver", "-k"], { env: { ...process.env, ...wineEnv } });
  rmSync(root, { recursive: true, force: true });
});

test("a server holds its data directory: a second serve is refused naming it, status confirms it, stop frees it", async () => {
  const dir = dataDir();
  const first = await serve(dir);
  expect(existsSync(join(dir, "quire.lock"))).toBe(true);

  const second = await quire(["serve", "--port", "0", "--data-dir", win(dir)]);
  expect(second.code).toBe(1);
  expect(second.stderr).toContain(`another Quire instance is already running on ${win(dir)} (port ${first.port}`);

  const status = await quire(["status", "--json", "--data-dir", win(dir)]);
  expect(status.code).toBe(0);
  expect(JSON.parse(status.stdout)).toMatchObject({ running: true, confirmed: true, port: first.port });

  const stop = await quire(["stop", "--json", "--data-dir", win(dir)]);
  expect(stop.code).toBe(0);
  expect(JSON.parse(stop.stdout)).toMatchObject({ result: "stopped", via: "control" });
  expect(await first.exited).toBe(0);
  expect(first.stderr()).toContain('"msg":"stopped"');

  const after = await quire(["status", "--json", "--data-dir", win(dir)]);
  expect(after.code).toBe(3);
  const again = await serve(dir);
  expect(again.port).toBeGreaterThan(0);
  again.proc.kill("SIGKILL");
  await again.exited;
}, 120_000);

test("a server killed outright leaves no stale lock: the next serve on the directory starts", async () => {
  const dir = dataDir();
  const first = await serve(dir);
  first.proc.kill("SIGKILL"); // the Windows process dies without closing anything itself
  await first.exited;
  const status = await quire(["status", "--json", "--data-dir", win(dir)]);
  expect(status.code).toBe(3); // the run state it left behind is stale, not a running server
  const next = await serve(dir);
  expect(next.port).toBeGreaterThan(0);
  next.proc.kill("SIGKILL");
  await next.exited;
}, 120_000);

test("two servers started at the same instant on one directory: exactly one runs, the other is refused", async () => {
  const dir = dataDir();
  const start = (n: number) => {
    const o = join(root, `race-${n}.out`);
    const e = join(root, `race-${n}.err`);
    const proc = Bun.spawn(["wine", exe, "serve", "--port", "0", "--data-dir", win(dir)], { cwd: root, env: cliEnv(wineEnv), stdin: "ignore", stdout: Bun.file(o), stderr: Bun.file(e) });
    return { proc, out: () => (existsSync(o) ? readFileSync(o, "utf8") : ""), err: () => (existsSync(e) ? readFileSync(e, "utf8") : "") };
  };
  const both = [start(1), start(2)];
  try {
    // Each either says it is ready or exits.
    const deadline = Date.now() + 60_000;
    while (both.some((s) => s.proc.exitCode === null && !s.out().includes("ready at")) && Date.now() < deadline) await Bun.sleep(50);
    const ran = both.filter((s) => s.out().includes("ready at"));
    const refused = both.filter((s) => s.proc.exitCode !== null);
    expect(ran).toHaveLength(1);
    expect(refused).toHaveLength(1);
    expect(refused[0]!.proc.exitCode).toBe(1);
    expect(refused[0]!.err()).toMatch(/already running on|holds the lock on/);
    const port = /:(\d+) /.exec(ran[0]!.out())![1];
    expect((await fetch(`http://127.0.0.1:${port}/api/health`)).status).toBe(200);
  } finally {
    for (const s of both) s.proc.kill("SIGKILL");
    await Promise.all(both.map((s) => s.proc.exited));
  }
}, 120_000);

test("without its control endpoint a Windows server is never signalled: stop refuses and it keeps running", async () => {
  const dir = dataDir();
  const s = await serve(dir);
  rmSync(join(dir, "control.token"));
  const stop = await quire(["stop", "--json", "--data-dir", win(dir)]);
  expect(stop.code).toBe(1);
  expect(JSON.parse(stop.stdout).message).toContain("on Windows a signal would end the server at once");
  expect((await fetch(`${s.base}/api/health`)).status).toBe(200);
  s.proc.kill("SIGKILL");
  await s.exited;
}, 120_000);

test("a data directory whose path is longer than MAX_PATH (260 characters) is locked like any other", async () => {
  const dir = dataDir(`${"d".repeat(100)}/${"e".repeat(100)}/${"f".repeat(80)}`);
  expect(win(join(dir, "quire.lock")).length).toBeGreaterThan(260);
  const s = await serve(dir);
  const second = await quire(["serve", "--port", "0", "--data-dir", win(dir)]);
  expect(second.code).toBe(1);
  expect(second.stderr).toContain("another Quire instance is already running");
  s.proc.kill("SIGKILL");
  await s.exited;
}, 120_000);

test("the extended-length form of a Windows path: drive, UNC and already-extended paths", () => {
  expect(extendedPath("C:\\data\\quire.lock")).toBe("\\\\?\\C:\\data\\quire.lock");
  expect(extendedPath("C:/data/./x/../quire.lock")).toBe("\\\\?\\C:\\data\\quire.lock");
  expect(extendedPath("\\\\server\\share\\quire.lock")).toBe("\\\\?\\UNC\\server\\share\\quire.lock");
  expect(extendedPath("\\\\?\\C:\\data\\quire.lock")).toBe("\\\\?\\C:\\data\\quire.lock");
});

test("quire upgrade replaces the executable a Windows server runs from: the running one renamed aside, the new one in place", async () => {
  // The release: this source as 9.9.9 for Windows, with the argon2 binding the release script fetched.
  const latest = join(root, "releases", "latest");
  mkdirSync(latest, { recursive: true });
  const file = "quire-9.9.9-windows-x64.exe";
  const cache = join(REPO, "dist", ".release-cache");
  const bindingDir = readdirSync(cache).find((d) => d.startsWith("argon2-win32-x64-msvc-"))!;
  await run(["bun", "build.ts", "--target", "bun-windows-x64", "--argon2-binding", join(cache, bindingDir, "argon2.win32-x64-msvc.node"), "--version", "9.9.9", "--outfile", join(latest, file)]);
  writeFileSync(join(latest, "SHA256SUMS"), `${createHash("sha256").update(readFileSync(join(latest, file))).digest("hex")}  ${file}\n`);
  writeFileSync(join(latest, "manifest.json"), JSON.stringify({ version: "v9.9.9", schema: SCHEMA_VERSION }));
  const releases = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: (req) => new Response(Bun.file(join(root, "releases", new URL(req.url).pathname.replaceAll("..", "")))) });

  // An installation: quire.exe in a folder of its own, a server running from it.
  const bin = join(root, "installed");
  mkdirSync(bin, { recursive: true });
  copyFileSync(exe, join(bin, "quire.exe"));
  copyFileSync(join(out, "bcryptprimitives.dll"), join(bin, "bcryptprimitives.dll"));
  const installed = (args: string[]) =>
    windows(["wine", join(bin, "quire.exe"), ...args], { QUIRE_RELEASE_URL: `http://127.0.0.1:${releases.port}`, QUIRE_RELEASE_ALLOW_PRIVATE: "true" });
  const dir = dataDir();
  const server = await serve(dir, join(bin, "quire.exe"));
  try {
    const r = await installed(["upgrade", "--json", "--data-dir", win(dir)]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({
      current: `v${pkg.version}`,
      target: "v9.9.9",
      upgraded: true,
      binary: win(join(bin, "quire.exe")),
      running_server: { version: `v${pkg.version}` },
    });
    // The new executable at the path; the one the server runs from kept beside it (Windows cannot
    // delete a running executable: the next upgrade removes it); nothing else left behind.
    expect((await installed(["--version"])).stdout.trim()).toBe("quire v9.9.9");
    expect(readdirSync(bin).sort()).toEqual(["bcryptprimitives.dll", "quire.exe", "quire.exe.old"]);
    expect(createHash("sha256").update(readFileSync(join(bin, "quire.exe.old"))).digest("hex")).toBe(createHash("sha256").update(readFileSync(exe)).digest("hex"));
    expect((await fetch(`${server.base}/api/health`)).status).toBe(200);

    // Restarted (stop, serve), the server is the new version on the same data.
    expect((await installed(["stop", "--data-dir", win(dir)])).code).toBe(0);
    expect(await server.exited).toBe(0);
    const again = await serve(dir, join(bin, "quire.exe"));
    expect(((await (await fetch(`${again.base}/api/health`)).json()) as { version: string }).version).toBe("v9.9.9");
    again.proc.kill("SIGKILL");
    await again.exited;
  } finally {
    releases.stop(true);
  }
}, 180_000);

