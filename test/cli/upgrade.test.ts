/**
 * `quire upgrade`: the compiled executable reads a release location (a loopback server over
 * release folders made here), replaces itself with a verified release, and refuses what it must:
 * a checksum mismatch, a downgrade below the data directory's schema, a private address unless
 * allowed. An upgrade killed at any step leaves a working executable at the path.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { existsSync, linkSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import pkg from "../../package.json" with { type: "json" };
import { migrate, openDatabase } from "../../src/db/database.ts";
import { SCHEMA_VERSION } from "../../src/db/migrations/index.ts";
import { tempDir } from "../helpers/server.ts";
import { REPO, runCli, startServe } from "./spawn.ts";

const root = tempDir("quire-upgrade-");
const built = join(root, "built", "quire");
const releases = join(root, "releases");
const dataDir = join(root, "data");
const PLATFORMS = ["linux-x64", "linux-x64-baseline"];
let server: ReturnType<typeof Bun.serve>;
let base = "";
const requested: string[] = [];

const sha256 = (bytes: Uint8Array | string) => createHash("sha256").update(bytes).digest("hex");

/** A release folder of stand-in executables that answer `--version` as the given version. */
function release(folder: string, manifest: Record<string, unknown>, opts: { badSums?: boolean } = {}) {
  const dir = join(releases, folder);
  mkdirSync(dir, { recursive: true });
  const version = String(manifest.version);
  const lines: string[] = [];
  for (const p of PLATFORMS) {
    const name = `quire-${version.slice(1)}-${p}`;
    const body = `#!/bin/sh\necho "quire ${version}"\n`;
    writeFileSync(join(dir, name), body, { mode: 0o755 });
    lines.push(`${opts.badSums ? "f".repeat(64) : sha256(body)}  ${name}`);
  }
  writeFileSync(join(dir, "SHA256SUMS"), lines.join("\n") + "\n");
  writeFileSync(join(dir, "manifest.json"), JSON.stringify(manifest));
}

beforeAll(async () => {
  const proc = Bun.spawn(["bun", "run", "build", "--outfile", built], { cwd: REPO, stdout: "pipe", stderr: "pipe" });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  if (code !== 0) throw new Error(`build failed (${code}):\n${stdout}${stderr}`);

  release("latest", { version: "v9.9.9", schema: SCHEMA_VERSION });
  release("v9.9.9", { version: "v9.9.9", schema: SCHEMA_VERSION });
  release("v9.9.8", { version: "v9.9.8", schema: SCHEMA_VERSION }, { badSums: true });
  release("v0.0.1", { version: "v0.0.1", schema: 1 });
  release("v0.0.2", { version: "v0.0.2" }); // from before manifests named their schema
  release("v0.0.3", { version: "v0.0.4", schema: SCHEMA_VERSION }); // a folder holding another version's manifest

  // The data directory of this installation, at the current schema.
  const db = openDatabase(join(dataDir, "quire.db"));
  migrate(db);
  db.close();

  server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(req) {
      const path = decodeURIComponent(new URL(req.url).pathname);
      requested.push(path);
      if (path.includes("..")) return new Response("no", { status: 400 });
      const file = Bun.file(join(releases, path));
      return (await file.exists()) ? new Response(file) : new Response("not found", { status: 404 });
    },
  });
  base = `http://127.0.0.1:${server.port}`;
}, 120_000);
afterAll(() => {
  server?.stop(true);
  rmSync(root, { recursive: true, force: true });
});

/** A fresh installation: the compiled executable at <dir>/bin/quire (a hard link: no 130 MB copy). */
function installation(name: string): string {
  const bin = join(root, name, "bin");
  mkdirSync(bin, { recursive: true });
  linkSync(built, join(bin, "quire"));
  return join(bin, "quire");
}

const env = (extra: Record<string, string | undefined> = {}) => ({
  QUIRE_RELEASE_URL: base,
  QUIRE_RELEASE_ALLOW_PRIVATE: "true",
  DATA_DIR: dataDir,
  ...extra,
});
const upgrade = (binary: string, args: string[], extra: Record<string, string | undefined> = {}) =>
  runCli(["upgrade", ...args], { cmd: [binary], cwd: root, env: env(extra) });
const versionOf = (binary: string) => Bun.spawnSync([binary, "--version"]).stdout.toString().trim();

test("--check says a newer release exists and changes nothing", async () => {
  const binary = installation("check");
  const r = await upgrade(binary, ["--check", "--json"]);
  expect(r.stderr).toBe("");
  expect(r.code).toBe(0);
  expect(JSON.parse(r.stdout)).toEqual({ current: `v${pkg.version}`, target: "v9.9.9", available: true, refused: null });
  const human = await upgrade(binary, ["--check"]);
  expect(human.stdout).toBe(`quire v${pkg.version} is running; v9.9.9 is available (quire upgrade)\n`);
  expect(versionOf(binary)).toBe(`quire v${pkg.version}`);
  expect(readdirSync(join(root, "check", "bin"))).toEqual(["quire"]);
});

test("upgrades to the newest served release: verified, swapped in place, nothing left beside it", async () => {
  const binary = installation("newest");
  const r = await upgrade(binary, ["--json"]);
  expect(r.code).toBe(0);
  const out = JSON.parse(r.stdout);
  const name = readdirSync(join(releases, "latest")).find((f) => f.startsWith("quire-"))!;
  expect(out).toMatchObject({ current: `v${pkg.version}`, target: "v9.9.9", upgraded: true, binary });
  expect(out.sha256).toBe(sha256(readFileSync(join(releases, "latest", name))));
  expect(versionOf(binary)).toBe("quire v9.9.9");
  expect(readdirSync(join(root, "newest", "bin"))).toEqual(["quire"]);
  // The executable that was replaced is untouched where else it lives (the path was renamed over).
  expect(versionOf(built)).toBe(`quire v${pkg.version}`);
});

test("with a service installed, the upgrade restarts it through its service manager (and says so when that fails)", async () => {
  const binary = installation("with-service");
  const home = join(root, "with-service", "home");
  mkdirSync(join(home, ".config", "systemd", "user"), { recursive: true });
  const unit = join(home, ".config", "systemd", "user", "quire.service");
  const serviceEnv = { HOME: home, XDG_CONFIG_HOME: undefined, XDG_RUNTIME_DIR: join(home, "no-runtime"), DBUS_SESSION_BUS_ADDRESS: undefined };
  // A service that runs another executable is left alone.
  writeFileSync(unit, `[Service]\nExecStart=${join(root, "elsewhere", "quire")} serve\n`);
  const other = await upgrade(binary, ["--json", "--to", "v9.9.9"], serviceEnv);
  expect(JSON.parse(other.stdout).service).toBeNull();
  // The one that runs this executable is restarted; no user service manager answers here (no
  // session bus), so the attempt is reported.
  const again = installation("with-service-2");
  writeFileSync(unit, `[Service]\nExecStart=${again} serve --port 3000\n`);
  const r = await upgrade(again, ["--json"], serviceEnv);
  expect(r.code).toBe(0);
  const out = JSON.parse(r.stdout);
  expect(out.upgraded).toBe(true);
  expect(out.service).toStartWith("Could not restart the service (systemctl --user try-restart quire.service:");
  expect(versionOf(again)).toBe("quire v9.9.9");
});

test("a server started by hand keeps running the old version through the swap, and the upgrade names it", async () => {
  const binary = installation("running");
  const running = join(root, "running", "data");
  const s = await startServe(running, { cmd: [binary], cwd: root });
  try {
    const r = await upgrade(binary, ["--json"], { DATA_DIR: running });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ upgraded: true, service: null, running_server: { pid: s.pid, version: `v${pkg.version}` } });
    const human = await upgrade(installation("running-2"), [], { DATA_DIR: running });
    expect(human.stdout).toContain(`The server on ${running} (pid ${s.pid}) still runs v${pkg.version}: restart it to run v9.9.9 (quire stop, then quire serve).`);
    // The running process was not disturbed by its file being replaced.
    expect((await fetch(`${s.base}/api/health`)).status).toBe(200);
  } finally {
    s.proc.kill("SIGTERM");
    expect(await s.exited).toBe(0);
  }
});

test("--to pins a release; a checksum mismatch is refused naming both hashes, and nothing changes", async () => {
  const binary = installation("mismatch");
  const r = await upgrade(binary, ["--to", "v9.9.8"]);
  expect(r.code).toBe(1);
  const got = /the download is ([0-9a-f]{64})/.exec(r.stderr)?.[1];
  expect(r.stderr).toContain(`SHA256SUMS says ${"f".repeat(64)}, the download is ${got}; nothing was changed`);
  expect(PLATFORMS.map((p) => sha256(readFileSync(join(releases, "v9.9.8", `quire-9.9.8-${p}`))))).toContain(got!);
  expect(versionOf(binary)).toBe(`quire v${pkg.version}`);
  expect(readdirSync(join(root, "mismatch", "bin"))).toEqual(["quire"]);

  const pinned = await upgrade(binary, ["--to", "9.9.9"]);
  expect(pinned.code).toBe(0);
  expect(versionOf(binary)).toBe("quire v9.9.9");
});

test("a downgrade to a release older than the data directory's schema is refused before any download", async () => {
  const binary = installation("downgrade");
  requested.length = 0;
  const r = await upgrade(binary, ["--to", "v0.0.1"]);
  expect(r.code).toBe(1);
  expect(r.stderr).toContain(`v0.0.1 knows database schema up to 1, but this data directory is at schema ${SCHEMA_VERSION}: migrations only go forward`);
  const unknown = await upgrade(binary, ["--to", "v0.0.2"]);
  expect(unknown.code).toBe(1);
  expect(unknown.stderr).toContain("refusing a downgrade that might meet a newer database (migrations only go forward)");
  expect(requested.filter((p) => !p.endsWith("/manifest.json"))).toEqual([]);
  expect(versionOf(binary)).toBe(`quire v${pkg.version}`);
  // Without a database there is nothing a downgrade could misread.
  const fresh = await upgrade(binary, ["--to", "v0.0.1", "--json"], { DATA_DIR: join(root, "no-data-yet") });
  expect(fresh.code).toBe(0);
  expect(versionOf(binary)).toBe("quire v0.0.1");
});

test("bad input: a --to that is no version, a folder with another version's manifest, a missing release", async () => {
  const binary = installation("bad");
  const bogus = await upgrade(binary, ["--to", "../../etc/passwd"]);
  expect(bogus.code).toBe(1);
  expect(bogus.stderr).toContain("--to must be a version like v1.2.3");
  const other = await upgrade(binary, ["--to", "v0.0.3"]);
  expect(other.code).toBe(1);
  expect(other.stderr).toContain("is the manifest of v0.0.4, not v0.0.3");
  const missing = await upgrade(binary, ["--to", "v1.2.3"]);
  expect(missing.code).toBe(1);
  expect(missing.stderr).toContain("/v1.2.3/manifest.json: HTTP 404 (no such release file)");
  const unset = await upgrade(binary, ["--check"], { QUIRE_RELEASE_URL: "" });
  expect(unset.code).toBe(1);
  expect(unset.stderr).toContain("no release location: set QUIRE_RELEASE_URL");
  expect(versionOf(binary)).toBe(`quire v${pkg.version}`);
});

test("a release location on a loopback address is refused unless allowed, like every outbound URL", async () => {
  const binary = installation("private");
  const r = await upgrade(binary, ["--check"], { QUIRE_RELEASE_ALLOW_PRIVATE: undefined });
  expect(r.code).toBe(1);
  expect(r.stderr).toContain("is on a private, loopback or link-local address: refused (set QUIRE_RELEASE_ALLOW_PRIVATE=true");
});

test("from source (bun src/cli.ts) it refuses: there is no installed executable to replace", async () => {
  const r = await runCli(["upgrade"], { env: env() });
  expect(r.code).toBe(1);
  expect(r.stderr).toContain("this one runs from source");
});

describe("killed between steps", () => {
  // A child process runs the real replacement on an installation and SIGKILLs itself right after
  // the named step; the path must still hold an executable that runs, and the next upgrade completes.
  const steps = ["downloaded", "verified", "old-kept", "swapped"] as const;
  for (const step of steps) {
    test(`after "${step}": a working executable is at the path, and the next upgrade cleans up`, async () => {
      const binary = installation(`killed-${step}`);
      const script = join(root, `kill-${step}.ts`);
      writeFileSync(
        script,
        [
          `import { planUpgrade, replaceBinary } from ${JSON.stringify(join(REPO, "src/releases/upgrade.ts"))};`,
          `const source = { releaseUrl: ${JSON.stringify(base)}, allowPrivate: true };`,
          `const plan = await planUpgrade(source, { current: "v${pkg.version}" });`,
          `await replaceBinary(plan, source, ${JSON.stringify(binary)}, (step) => { if (step === ${JSON.stringify(step)}) process.kill(process.pid, "SIGKILL"); });`,
          `console.log("not killed");`,
        ].join("\n"),
      );
      const child = Bun.spawn(["bun", script], { cwd: root, stdout: "pipe", stderr: "pipe" });
      const [out, code] = await Promise.all([new Response(child.stdout).text(), child.exited]);
      expect(out).not.toContain("not killed");
      expect(child.signalCode).toBe("SIGKILL");
      expect(code).not.toBe(0);

      const said = versionOf(binary);
      expect([`quire v${pkg.version}`, "quire v9.9.9"]).toContain(said);
      if (step === "downloaded" || step === "verified") expect(said).toBe(`quire v${pkg.version}`);
      const left = readdirSync(join(root, `killed-${step}`, "bin"));
      expect(left).toContain("quire");

      if (said === `quire v${pkg.version}`) {
        const again = await upgrade(binary, []);
        expect(again.code).toBe(0);
        expect(versionOf(binary)).toBe("quire v9.9.9");
        expect(readdirSync(join(root, `killed-${step}`, "bin"))).toEqual(["quire"]);
      } else {
        // The new one is in place already; what the killed run left beside it is only `.old`.
        expect(left.sort()).toEqual(["quire", "quire.old"]);
        expect(existsSync(join(root, `killed-${step}`, "bin", "quire.old"))).toBe(true);
      }
    }, 30_000);
  }
});
