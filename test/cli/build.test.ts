/**
 * The shipped artefact: `bun run build` compiles one executable that runs from any working
 * directory, carries its build identity and every asset, and serves without the source tree.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdirSync, readdirSync, rmSync, statSync } from "node:fs";
import { join, relative, sep } from "node:path";
import pkg from "../../package.json" with { type: "json" };
import { tempDir } from "../helpers/server.ts";
import { REPO, runCli, startServe } from "./spawn.ts";

const out = tempDir("quire-build-");
const binary = join(out, "quire");
let buildOutput = "";

beforeAll(async () => {
  const proc = Bun.spawn(["bun", "run", "build", "--outfile", binary], { cwd: REPO, stdout: "pipe", stderr: "pipe" });
  const [stdout, stderr, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  buildOutput = stdout + stderr;
  if (code !== 0) throw new Error(`build failed (${code}):\n${buildOutput}`);
}, 120_000);
afterAll(() => rmSync(out, { recursive: true, force: true }));

test("the compiled binary carries version, commit and build date, and runs from anywhere", async () => {
  expect(statSync(binary).mode & 0o111).not.toBe(0);
  expect(buildOutput).toContain(`v${pkg.version}`);
  const elsewhere = out;
  const git = Bun.spawn(["git", "rev-parse", "--short", "HEAD"], { cwd: REPO, stdout: "pipe" });
  const commit = (await new Response(git.stdout).text()).trim();

  const short = await runCli(["--version"], { cmd: [binary], cwd: elsewhere });
  expect(short.code).toBe(0);
  expect(short.stdout).toBe(`quire v${pkg.version}\n`);

  const long = await runCli(["version"], { cmd: [binary], cwd: elsewhere });
  expect(long.code).toBe(0);
  const [line1, line2, line3] = long.stdout.trim().split("\n");
  expect(line1).toBe(`quire v${pkg.version}`);
  expect(line2).toBe(`commit: ${commit}`);
  const built = Date.parse(line3!.replace("built: ", ""));
  expect(Date.now() - built).toBeLessThan(10 * 60_000);
});

test("every file under assets/ is embedded, byte for byte in size", async () => {
  const assetsDir = join(REPO, "assets");
  const onDisk = readdirSync(assetsDir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name))
    .map((p) => `  ${relative(assetsDir, p).split(sep).join("/")} ${statSync(p).size}`)
    .sort();
  expect(onDisk.length).toBeGreaterThan(0);
  const r = await runCli(["version", "--assets"], { cmd: [binary], cwd: out });
  expect(r.code).toBe(0);
  expect(r.stdout).toContain(`assets: ${onDisk.length} (embedded)`);
  const listed = r.stdout.split("\n").filter((l) => l.startsWith("  ")).sort();
  expect(listed).toEqual(onDisk);
});

test("dist/quire serve from another working directory uses its ./.quire, serves health and accounts, stops on SIGTERM", async () => {
  const cwd = tempDir("quire-binary-cwd-");
  mkdirSync(join(cwd, ".quire"));
  // No --data-dir and no DATA_DIR: the existing ./.quire of the working directory decides.
  const s = await startServe(undefined, { cmd: [binary], cwd, env: { XDG_DATA_HOME: join(cwd, "xdg") } });
  try {
    expect(s.readyLine).toContain(`(data directory: ${join(cwd, ".quire")})`);
    const health = await fetch(`${s.base}/api/health`);
    expect(health.status).toBe(200);
    expect(((await health.json()) as { version: string }).version).toBe(`v${pkg.version}`);
    // Password hashing is a native addon: registering proves it travelled inside the binary.
    const reg = await fetch(`${s.base}/api/auth/register`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ name: "Bin", email: "bin@example.test", password: "long enough password", terms_accepted: true }),
    });
    expect(reg.status).toBe(201);
    expect(statSync(join(cwd, ".quire", "quire.db")).isFile()).toBe(true);
    s.proc.kill("SIGTERM");
    expect(await s.exited).toBe(0);
  } finally {
    if (s.proc.exitCode === null) s.proc.kill("SIGKILL");
    rmSync(cwd, { recursive: true, force: true });
  }
});
