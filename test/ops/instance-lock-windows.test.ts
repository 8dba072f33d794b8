/**
 * The instance lock on Windows, for real: the Windows executable of this source (the release
 * script's windows-x64 target) runs under Wine, whose kernel32 and wineserver implement Windows'
 * file sharing rules — the lock's whole mechanism there (src/ops/instance-lock.ts). Two servers
 * never share a data directory, not even started at the same instant; a server killed outright
 * leaves no stale lock; status, stop and the refusal of a second serve see the holder; a path
 * beyond MAX_PATH works. Needs wine and MinGW (.ci/run installs both): Debian's Wine 8 lacks
 * bcryptprimitives.dll, which Bun imports, so a one-function stand-in is built beside the executable
 * (test/ops/fixtures/bcryptprimitives.c).
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { existsSync, mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import pkg from "../../package.json" with { type: "json" };
import { tempDir } from "../helpers/server.ts";
import { extendedPath } from "../../src/ops/instance-lock.ts";
import { REPO, runCli, startServe, type ServeProcess } from "../cli/spawn.ts";

const root = tempDir("quire-wine-");
const out = join(root, "release");
const exe = join(out, `quire-${pkg.version}-windows-x64.exe`);
const wineEnv = { WINEPREFIX: join(root, "prefix"), WINEDEBUG: "-all", WINEDLLOVERRIDES: "mscoree,mshtml=" };
const servers: ServeProcess[] = [];

/** A Linux path as the Windows program sees it (Wine maps / to drive Z:). */
const win = (path: string) => `Z:${path.replaceAll("/", "\\")}`;
let dirs = 0;
function dataDir(name = `data-${++dirs}`): string {
  const d = join(root, name);
  mkdirSync(d, { recursive: true });
  return d;
}
const quire = (args: string[]) => runCli(args, { cmd: ["wine", exe], env: wineEnv, cwd: root });
async function serve(dir: string): Promise<ServeProcess> {
  const s = await startServe(win(dir), { cmd: ["wine", exe], env: wineEnv, cwd: root });
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
  // One wine server for the whole file, started apart from any test's processes: a program that
  // starts it itself passes its stdout on to it, which then never reaches its end.
  const server = Bun.spawn(["wineserver", "--persistent"], { env: { ...process.env, ...wineEnv }, stdio: ["ignore", "ignore", "ignore"] });
  await server.exited;
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
  const starts = await Promise.allSettled([serve(dir), serve(dir)]);
  const ran = starts.filter((s): s is PromiseFulfilledResult<ServeProcess> => s.status === "fulfilled");
  const refused = starts.filter((s): s is PromiseRejectedResult => s.status === "rejected");
  expect(ran).toHaveLength(1);
  expect(refused).toHaveLength(1);
  expect(String(refused[0]!.reason)).toMatch(/exit 1\)[\s\S]*(already running on|holds the lock on)/);
  ran[0]!.value.proc.kill("SIGKILL");
  await ran[0]!.value.exited;
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
