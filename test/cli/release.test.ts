/**
 * `bun run release`: one executable per platform, each carrying its own platform's argon2 binding,
 * listed in SHA256SUMS and manifest.json, and the same bytes when the same commit is built again.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import pkg from "../../package.json" with { type: "json" };
import { SCHEMA_VERSION } from "../../src/db/migrations/index.ts";
import { tempDir } from "../helpers/server.ts";
import { binaryFormat, type BinaryFormat } from "./binary-format.ts";
import type { ReleaseManifest } from "../../src/releases/manifest.ts";
import { REPO, cliEnv, runCli, startServe } from "./spawn.ts";

const out = tempDir("quire-release-");
const again = tempDir("quire-release-again-");

type Manifest = ReleaseManifest;

/** What each release file must be, and the argon2 binding built for the same platform. */
const EXPECTED: Record<string, { format: BinaryFormat["format"]; cpu: BinaryFormat["cpu"]; binding: string }> = {
  [`quire-${pkg.version}-linux-x64`]: { format: "ELF", cpu: "x86-64", binding: "linux-x64-gnu" },
  [`quire-${pkg.version}-linux-x64-baseline`]: { format: "ELF", cpu: "x86-64", binding: "linux-x64-gnu" },
  [`quire-${pkg.version}-linux-arm64`]: { format: "ELF", cpu: "aarch64", binding: "linux-arm64-gnu" },
  [`quire-${pkg.version}-darwin-x64`]: { format: "Mach-O", cpu: "x86-64", binding: "darwin-x64" },
  [`quire-${pkg.version}-darwin-arm64`]: { format: "Mach-O", cpu: "aarch64", binding: "darwin-arm64" },
  [`quire-${pkg.version}-windows-x64.exe`]: { format: "PE32+", cpu: "x86-64", binding: "win32-x64-msvc" },
};

async function release(dir: string, targets?: string, env: Record<string, string> = {}): Promise<string> {
  const args = ["bun", "run", "release", "--out", dir, ...(targets ? ["--targets", targets] : [])];
  const proc = Bun.spawn(args, { cwd: REPO, env: { ...process.env, ...env }, stdout: "pipe", stderr: "pipe" });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  if (code !== 0) throw new Error(`release failed (${code}):\n${stdout}${stderr}`);
  return stdout + stderr;
}

let manifest: Manifest;
beforeAll(async () => {
  await release(out);
  manifest = await Bun.file(join(out, "manifest.json")).json();
}, 240_000);
afterAll(() => {
  rmSync(out, { recursive: true, force: true });
  rmSync(again, { recursive: true, force: true });
});

const sha256 = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");

test("every platform's executable is there, listed in SHA256SUMS (checked by sha256sum) and manifest.json", async () => {
  const names = Object.keys(EXPECTED).sort();
  expect(readdirSync(out).sort()).toEqual([...names, "SHA256SUMS", "install.ps1", "install.sh", "manifest.json"].sort());

  const check = Bun.spawnSync(["sha256sum", "--check", "--strict", "SHA256SUMS"], { cwd: out, stdout: "pipe", stderr: "pipe" });
  expect(check.stderr.toString()).toBe("");
  expect(check.exitCode).toBe(0);
  expect(check.stdout.toString().trim().split("\n").sort()).toEqual(names.map((n) => `${n}: OK`).sort());

  expect(manifest.version).toBe(`v${pkg.version}`);
  expect(manifest.commit).toMatch(/^[0-9a-f]{7,}$/);
  expect(manifest.schema).toBe(SCHEMA_VERSION);
  const commitDate = Bun.spawnSync(["git", "show", "-s", "--format=%ct", manifest.commit], { cwd: REPO }).stdout.toString().trim();
  expect(Date.parse(manifest.date)).toBe(Number(commitDate) * 1000);
  expect(manifest.files.map((f) => f.name).sort()).toEqual(names);
  for (const f of manifest.files) {
    const bytes = await Bun.file(join(out, f.name)).bytes();
    expect({ name: f.name, size: f.size, sha256: f.sha256 }).toEqual({ name: f.name, size: bytes.length, sha256: sha256(bytes) });
    expect(f.name).toBe(`quire-${pkg.version}-${f.os}-${f.arch}${f.os === "windows" ? ".exe" : ""}`);
  }
});

test("each executable is built for its platform and embeds that platform's argon2 binding, not this machine's", async () => {
  const host = await Bun.file(join(REPO, "node_modules/@node-rs/argon2-linux-x64-gnu/argon2.linux-x64-gnu.node")).bytes();
  for (const f of manifest.files) {
    const want = EXPECTED[f.name]!;
    const binary = Buffer.from(await Bun.file(join(out, f.name)).bytes());
    expect({ file: f.name, ...binaryFormat(binary.subarray(0, 65536)) }).toMatchObject({
      file: f.name,
      format: want.format,
      cpu: want.cpu,
      kind: "executable",
      ...(want.format === "Mach-O" ? { signed: true } : {}),
    });

    expect(f.argon2.package).toBe(`@node-rs/argon2-${want.binding}@${(await import("@node-rs/argon2/package.json")).version}`);
    const binding = await Bun.file(
      join(REPO, "dist/.release-cache", `argon2-${want.binding}-${f.argon2.package.split("@").pop()}`, f.argon2.file),
    ).bytes();
    expect(sha256(binding)).toBe(f.argon2.sha256);
    const at = binary.indexOf(Buffer.from(binding));
    expect({ file: f.name, embedded: at > 0 }).toEqual({ file: f.name, embedded: true });
    // The format of the bytes inside the executable: the library a password check will load there.
    expect({ file: f.name, ...binaryFormat(binary.subarray(at, at + binding.length)) }).toMatchObject({
      file: f.name,
      format: want.format,
      cpu: want.cpu,
      kind: "library",
    });
    if (want.binding !== "linux-x64-gnu") {
      expect({ file: f.name, carriesHostBinding: binary.indexOf(Buffer.from(host)) >= 0 }).toEqual({ file: f.name, carriesHostBinding: false });
    }
  }
});

test("the Linux x64 executable runs here and hashes a password with its embedded binding", async () => {
  const binary = join(out, `quire-${pkg.version}-linux-x64`);
  const version = await runCli(["--version"], { cmd: [binary], cwd: out });
  expect(version.stdout).toBe(`quire v${pkg.version}\n`);
  const dataDir = tempDir("quire-release-data-");
  const s = await startServe(dataDir, { cmd: [binary], cwd: dataDir });
  try {
    const reg = await fetch(`${s.base}/api/auth/register`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ name: "Rel", email: "rel@example.test", password: "long enough password", terms_accepted: true }),
    });
    expect(reg.status).toBe(201);
  } finally {
    s.proc.kill("SIGTERM");
    await s.exited;
    rmSync(dataDir, { recursive: true, force: true });
  }
}, 60_000);

test("the Linux arm64 executable, run under qemu-user, serves and hashes a password with its embedded aarch64 binding", async () => {
  // qemu-user runs an aarch64 program on this x64 machine with Debian's aarch64 glibc (.ci/run installs both).
  const emulate = ["qemu-aarch64-static", "-L", "/usr/aarch64-linux-gnu", join(out, `quire-${pkg.version}-linux-arm64`)];
  const version = await runCli(["--version"], { cmd: emulate, cwd: out });
  expect(version.stderr).toBe("");
  expect(version.stdout).toBe(`quire v${pkg.version}\n`);
  const dataDir = tempDir("quire-release-arm64-");
  const probe = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response() });
  const port = probe.port;
  probe.stop(true);
  const proc = Bun.spawn([...emulate, "serve", "--port", String(port), "--data-dir", dataDir], { cwd: dataDir, env: cliEnv(), stdout: "ignore", stderr: "pipe" });
  const log = new Response(proc.stderr).text();
  try {
    let up = false;
    // Emulated, the start takes several seconds (JIT-compiled code translated instruction by instruction).
    for (let i = 0; i < 240 && !up && proc.exitCode === null; i++) {
      await Bun.sleep(250);
      up = (await fetch(`http://127.0.0.1:${port}/api/health`).catch(() => null))?.ok === true;
    }
    expect({ up, exit: proc.exitCode }).toEqual({ up: true, exit: null });
    const reg = await fetch(`http://127.0.0.1:${port}/api/auth/register`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ name: "Arm", email: "arm@example.test", password: "long enough password", terms_accepted: true }),
    });
    expect(reg.status).toBe(201);
  } finally {
    proc.kill("SIGTERM");
    await proc.exited;
    if (proc.exitCode !== 0) console.error(await log);
    rmSync(dataDir, { recursive: true, force: true });
  }
}, 120_000);

test("building the same commit again gives the same bytes", async () => {
  await release(again, "linux-x64,darwin-arm64,windows-x64");
  const sums = (dir: string) =>
    Bun.file(join(dir, "SHA256SUMS"))
      .text()
      .then((t) => t.trim().split("\n"));
  const first = await sums(out);
  const second = await sums(again);
  expect(second).toHaveLength(3);
  for (const line of second) expect(first).toContain(line);
}, 120_000);

test("a release made with QUIRE_RELEASE_URL carries it: in the executable's upgrade and in both installers", async () => {
  const located = join(again, "located");
  const url = "https://downloads.example.test/quire's";
  await release(located, "linux-x64", { QUIRE_RELEASE_URL: url });
  const sh = await Bun.file(join(located, "install.sh")).text();
  expect(sh).toContain(`\ndefault_release_url='https://downloads.example.test/quire'"'"'s'\n`);
  expect(Bun.spawnSync(["sh", "-c", `eval "$(grep '^default_release_url=' "$0")"; printf %s "$default_release_url"`, join(located, "install.sh")]).stdout.toString()).toBe(url);
  expect(Bun.spawnSync(["sh", "-n", join(located, "install.sh")]).exitCode).toBe(0);
  expect(await Bun.file(join(located, "install.ps1")).text()).toContain(`\n$DefaultReleaseUrl = 'https://downloads.example.test/quire''s'\n`);
  // With no QUIRE_RELEASE_URL at run time, upgrade asks the location it was released for.
  const check = await runCli(["upgrade", "--check"], { cmd: [join(located, `quire-${pkg.version}-linux-x64`)], cwd: located, env: { QUIRE_RELEASE_URL: undefined } });
  expect(check.code).toBe(1);
  expect(check.stderr).toContain("https://downloads.example.test/quire's/latest/manifest.json");
}, 120_000);
