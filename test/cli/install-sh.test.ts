/**
 * install.sh with no SOURCE: it downloads this machine's build from a release location (here a
 * loopback HTTP server over a release folder built by `bun run release`), verifies it against
 * SHA256SUMS and replaces the installed executable only when everything checks out.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { cpSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import pkg from "../../package.json" with { type: "json" };
import { tempDir } from "../helpers/server.ts";
import { REPO } from "./spawn.ts";

const root = tempDir("quire-install-sh-");
const releases = join(root, "releases");
const v = `v${pkg.version}`;
let server: ReturnType<typeof Bun.serve>;
let cutServer: Bun.TCPSocketListener<undefined>;
let base = "";

const sha256 = (bytes: Uint8Array | string) => createHash("sha256").update(bytes).digest("hex");
const PLATFORMS = ["linux-x64", "linux-x64-baseline"]; // what install.sh may pick on this x64 Linux machine

/**
 * A release folder of small stand-in executables that answer `--version` like quire: for the
 * script's own checks, where copying the real 130 MB binary around would only add time.
 */
function standIn(folder: string, version: string, opts: { says?: string; sums?: (lines: string[]) => string[] } = {}) {
  const dir = join(releases, folder);
  mkdirSync(dir, { recursive: true });
  const lines: string[] = [];
  for (const p of PLATFORMS) {
    const name = `quire-${version.slice(1)}-${p}`;
    const body = `#!/bin/sh\necho "quire ${opts.says ?? version}"\n# ${name}\n`;
    writeFileSync(join(dir, name), body, { mode: 0o755 });
    lines.push(`${sha256(body)}  ${name}`);
  }
  writeFileSync(join(dir, "SHA256SUMS"), (opts.sums ? opts.sums(lines) : lines).join("\n") + "\n");
  writeFileSync(join(dir, "manifest.json"), JSON.stringify({ version, files: [] }, null, 2) + "\n");
}

beforeAll(async () => {
  // The real release, for this machine's platforms, as `latest` and under its version.
  const proc = Bun.spawn(["bun", "run", "release", "--out", join(releases, v), "--targets", PLATFORMS.join(",")], {
    cwd: REPO,
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  if (code !== 0) throw new Error(`release failed (${code}):\n${stdout}${stderr}`);
  cpSync(join(releases, v), join(releases, "latest"), { recursive: true });

  standIn("v9.9.9", "v9.9.9");
  // Its checksums altered: the file no longer matches what SHA256SUMS says.
  standIn("v9.9.8", "v9.9.8", { sums: (lines) => lines.map((l) => "0".repeat(64) + l.slice(64)) });
  // The SHA256SUMS of another version beside the files of this one.
  standIn("v9.9.7", "v9.9.7");
  cpSync(join(releases, "v9.9.9", "SHA256SUMS"), join(releases, "v9.9.7", "SHA256SUMS"));
  // A file that matches its checksum but is another version than the folder it was asked from.
  standIn("v9.9.6", "v9.9.6", { says: "v9.9.9" });
  // Another release location whose latest manifest is JSON on one line.
  standIn("compact/latest", "v9.9.5");
  writeFileSync(join(releases, "compact/latest/manifest.json"), JSON.stringify({ files: [{ name: "x" }], version: "v9.9.5", schema: 8 }));

  server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(req) {
      const path = decodeURIComponent(new URL(req.url).pathname);
      if (path.includes("..")) return new Response("no", { status: 400 });
      const file = Bun.file(join(releases, path));
      return (await file.exists()) ? new Response(file) : new Response("not found", { status: 404 });
    },
  });
  // A server whose every download stops half-way: the full length announced, half the bytes sent,
  // then the connection closed.
  cutServer = Bun.listen({
    hostname: "127.0.0.1",
    port: 0,
    socket: {
      async data(socket, chunk) {
        const path = /^GET (\S+) /.exec(chunk.toString())?.[1] ?? "/";
        const file = Bun.file(join(releases, decodeURIComponent(path).replaceAll("..", "")));
        const bytes = (await file.exists()) ? await file.bytes() : new Uint8Array(1000);
        socket.write(`HTTP/1.1 200 OK\r\ncontent-length: ${bytes.length}\r\nconnection: close\r\n\r\n`);
        socket.write(bytes.subarray(0, bytes.length >> 1));
        socket.end();
      },
    },
  });
  base = `http://127.0.0.1:${server.port}`;
}, 120_000);
afterAll(() => {
  server?.stop(true);
  cutServer?.stop(true);
  rmSync(root, { recursive: true, force: true });
});

async function install(args: string[], releaseUrl = base) {
  const proc = Bun.spawn(["sh", join(REPO, "install.sh"), ...args], {
    cwd: root,
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", QUIRE_RELEASE_URL: releaseUrl },
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { stdout, stderr, code };
}

/** A prefix with an already installed (stand-in) quire, to see whether a failed install touched it. */
function prefixWithOld(name: string): { prefix: string; installed: string; old: string } {
  const prefix = join(root, name);
  mkdirSync(join(prefix, "bin"), { recursive: true });
  const old = '#!/bin/sh\necho "quire v0.0.1"\n';
  writeFileSync(join(prefix, "bin", "quire"), old, { mode: 0o755 });
  return { prefix, installed: join(prefix, "bin", "quire"), old };
}

test("with no argument: the latest release for this OS and CPU, verified against SHA256SUMS, replaces the installed one", async () => {
  const { prefix, installed } = prefixWithOld("latest");
  const r = await install(["--prefix", prefix]);
  expect(r.stderr).toBe("");
  expect(r.code).toBe(0);
  const name = /Downloading \S+\/latest\/(\S+)/.exec(r.stdout)?.[1];
  expect(PLATFORMS.map((p) => `quire-${pkg.version}-${p}`)).toContain(name!);
  const released = readFileSync(join(releases, v, name!));
  expect(r.stdout).toContain(`Checksum verified: ${sha256(released)}`);
  expect(r.stdout).toContain(`Installed quire ${v} to ${prefix}/bin/quire`);
  expect(sha256(readFileSync(installed))).toBe(sha256(released));
  const run = Bun.spawnSync([installed, "--version"]);
  expect(run.stdout.toString()).toBe(`quire ${v}\n`);
  expect(readdirSync(join(prefix, "bin"))).toEqual(["quire"]);
}, 60_000);

test("--version pins a release (with or without the v)", async () => {
  const { prefix, installed } = prefixWithOld("pinned");
  const r = await install(["--prefix", prefix, "--version", "v9.9.9"]);
  expect(r.stderr).toBe("");
  expect(r.code).toBe(0);
  expect(r.stdout).toContain(`${base}/v9.9.9/quire-9.9.9-linux-x64`);
  expect(Bun.spawnSync([installed]).stdout.toString()).toBe("quire v9.9.9\n");
  const again = await install([`--prefix=${prefix}`, "--version=9.9.9"]);
  expect(again.code).toBe(0);
  expect(readdirSync(join(prefix, "bin"))).toEqual(["quire"]);
});

test("the latest version is read from a manifest.json written on one line too", async () => {
  const { prefix, installed } = prefixWithOld("compact");
  const r = await install(["--prefix", prefix], `${base}/compact`);
  expect(r.stderr).toBe("");
  expect(r.code).toBe(0);
  expect(r.stdout).toContain(`${base}/compact/latest/quire-9.9.5-linux-x64`);
  expect(Bun.spawnSync([installed]).stdout.toString()).toBe("quire v9.9.5\n");
});

test("a download cut half-way is refused and the installed executable is untouched", async () => {
  const { prefix, installed, old } = prefixWithOld("cut");
  const r = await install(["--prefix", prefix, "--version", v], `http://127.0.0.1:${cutServer.port}`);
  expect(r.code).toBe(1);
  expect(r.stderr).toContain(`download of quire-${pkg.version}-linux-x64`);
  expect(r.stderr).toContain("nothing was changed");
  expect(readFileSync(installed, "utf8")).toBe(old);
  expect(readdirSync(join(prefix, "bin"))).toEqual(["quire"]);
}, 60_000);

test("a checksum mismatch is refused, naming both hashes", async () => {
  const { prefix, installed, old } = prefixWithOld("mismatch");
  const r = await install(["--prefix", prefix, "--version", "v9.9.8"]);
  expect(r.code).toBe(1);
  const name = /checksum mismatch for (\S+):/.exec(r.stderr)?.[1];
  const actual = sha256(readFileSync(join(releases, "v9.9.8", name!)));
  expect(r.stderr).toContain(`SHA256SUMS says ${"0".repeat(64)}, the download is ${actual}`);
  expect(readFileSync(installed, "utf8")).toBe(old);
  expect(readdirSync(join(prefix, "bin"))).toEqual(["quire"]);
});

test("a SHA256SUMS that does not list the file (another version's) is refused", async () => {
  const { prefix, installed, old } = prefixWithOld("other-sums");
  const r = await install(["--prefix", prefix, "--version", "v9.9.7"]);
  expect(r.code).toBe(1);
  expect(r.stderr).toMatch(/SHA256SUMS does not list quire-9\.9\.7-linux-x64(-baseline)? \(a checksum file of another version\?\)/);
  expect(readFileSync(installed, "utf8")).toBe(old);
});

test("a verified file that says it is another version than the one asked for is refused", async () => {
  const { prefix, installed, old } = prefixWithOld("wrong-version");
  const r = await install(["--prefix", prefix, "--version", "v9.9.6"]);
  expect(r.code).toBe(1);
  expect(r.stderr).toContain("the download says it is quire v9.9.9, not quire v9.9.6");
  expect(readFileSync(installed, "utf8")).toBe(old);
  expect(readdirSync(join(prefix, "bin"))).toEqual(["quire"]);
});

test("bad input: a version that is not one, a missing release, no release location", async () => {
  const prefix = join(root, "bad");
  const bogus = await install(["--prefix", prefix, "--version", "../../etc"]);
  expect(bogus.code).toBe(2);
  expect(bogus.stderr).toContain("--version must look like v1.2.3");
  const missing = await install(["--prefix", prefix, "--version", "v1.0.0"]);
  expect(missing.code).toBe(1);
  expect(missing.stderr).toContain("download of quire-1.0.0-linux-x64");
  const unset = await install(["--prefix", prefix], "");
  expect(unset.code).toBe(1);
  expect(unset.stderr).toContain("set QUIRE_RELEASE_URL");
});

test("install.sh is portable POSIX sh: ShellCheck finds nothing, and dash runs it", () => {
  const r = Bun.spawnSync(["shellcheck", "--shell=sh", "--severity=style", join(REPO, "install.sh")], { stdout: "pipe", stderr: "pipe" });
  expect(r.stdout.toString() + r.stderr.toString()).toBe("");
  expect(r.exitCode).toBe(0);
  const help = Bun.spawnSync(["dash", join(REPO, "install.sh"), "--help"], { stdout: "pipe" });
  expect(help.exitCode).toBe(0);
  expect(help.stdout.toString()).toContain("./install.sh [--prefix DIR] [--version vX.Y.Z] [SOURCE]");
});
