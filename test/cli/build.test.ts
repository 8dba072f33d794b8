/**
 * The shipped artefact: `bun run build` compiles one executable that runs from any working
 * directory, carries its build identity and every asset, and serves without the source tree;
 * install.sh puts it in place.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join, relative, sep } from "node:path";
import pkg from "../../package.json" with { type: "json" };
import { tempDir } from "../helpers/server.ts";
import { REPO, runCli, startServe } from "./spawn.ts";
import { buildWebApp } from "../../src/web/build-web.ts";
import { writeVendorFiles } from "../../src/publish/site/vendor.ts";

const out = tempDir("quire-build-");
const binary = join(out, "quire");
let buildOutput = "";
const commits: string[] = [];
async function headCommit(): Promise<string> {
  const git = Bun.spawn(["git", "rev-parse", "--short", "HEAD"], { cwd: REPO, stdout: "pipe" });
  return (await new Response(git.stdout).text()).trim();
}

beforeAll(async () => {
  // HEAD as the build saw it (read on both sides: a commit may land in the checkout meanwhile).
  commits.push(await headCommit());
  const proc = Bun.spawn(["bun", "run", "build", "--outfile", binary], { cwd: REPO, stdout: "pipe", stderr: "pipe" });
  const [stdout, stderr, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  buildOutput = stdout + stderr;
  commits.push(await headCommit());
  if (code !== 0) throw new Error(`build failed (${code}):\n${buildOutput}`);
}, 120_000);
afterAll(() => rmSync(out, { recursive: true, force: true }));

test("the compiled binary carries version, commit and build date, and runs from anywhere", async () => {
  expect(statSync(binary).mode & 0o111).not.toBe(0);
  expect(buildOutput).toContain(`v${pkg.version}`);
  const elsewhere = out;

  const short = await runCli(["--version"], { cmd: [binary], cwd: elsewhere });
  expect(short.code).toBe(0);
  expect(short.stdout).toBe(`quire v${pkg.version}\n`);

  const long = await runCli(["version"], { cmd: [binary], cwd: elsewhere });
  expect(long.code).toBe(0);
  const [line1, line2, line3] = long.stdout.trim().split("\n");
  expect(line1).toBe(`quire v${pkg.version}`);
  expect(commits.map((c) => `commit: ${c}`)).toContain(line2!);
  expect(line2).toMatch(/^commit: [0-9a-f]{7,}$/);
  const built = Date.parse(line3!.replace("built: ", ""));
  expect(Date.now() - built).toBeLessThan(10 * 60_000);
});

test("every file under assets/ and every vendor file of the published site is embedded, byte for byte in size", async () => {
  const listing = (dir: string, prefix = "") =>
    readdirSync(dir, { withFileTypes: true, recursive: true })
      .filter((e) => e.isFile())
      .map((e) => join(e.parentPath, e.name))
      .map((p) => `  ${prefix}${relative(dir, p).split(sep).join("/")} ${statSync(p).size}`);
  // The build adds the site's vendor files (bundled Mermaid, KaTeX's stylesheet and fonts) under site/.
  const vendorDir = join(out, "vendor-expected");
  await writeVendorFiles(vendorDir);
  const onDisk = [...listing(join(REPO, "assets")), ...listing(vendorDir, "site/")].sort();
  expect(onDisk.length).toBeGreaterThan(0);
  const r = await runCli(["version", "--assets"], { cmd: [binary], cwd: out });
  expect(r.code).toBe(0);
  expect(r.stdout).toContain(`assets: ${onDisk.length} (embedded)`);
  const listed = r.stdout.split("\n").filter((l) => l.startsWith("  ")).sort();
  expect(listed).toEqual(onDisk);
});

test("dist/quire serve from another working directory uses its ./.quire, serves health, accounts and the web app, stops on SIGTERM", async () => {
  const cwd = tempDir("quire-binary-cwd-");
  mkdirSync(join(cwd, ".quire"));
  // Configuration is the environment only: a .env in the working directory is not read.
  writeFileSync(join(cwd, ".env"), "LOG_LEVEL=nonsense\nPORT=abc\n");
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
    // The browser app is inside too (the binary has no source tree to bundle it from).
    const shell = await fetch(`${s.base}/`);
    expect(shell.status).toBe(200);
    expect(shell.headers.get("content-type")).toContain("text/html");
    const html = await shell.text();
    const script = /src="(\/_app\/[^"]+\.js)"/.exec(html)?.[1];
    expect(script).toBeDefined();
    const js = await fetch(`${s.base}${script}`);
    expect(js.status).toBe(200);
    expect(js.headers.get("content-type")).toContain("javascript");
    // Every file the app can load later (the editors' and settings' chunks, styles) is served by
    // the binary too: follow each reference from the page and from every script it reaches.
    const served = await crawlApp(s.base, html);
    const app = await buildWebApp();
    const built = [...app.files.keys()].map((name) => `/_app/${name}`);
    expect(served.sort()).toEqual(built.sort());
    // Byte for byte, plain and gzip: the binary answers from its embedded copies of both.
    const differing: string[] = [];
    for (const [name, file] of app.files) {
      const plain = Buffer.from(await (await fetch(`${s.base}/_app/${name}`)).arrayBuffer());
      if (!plain.equals(Buffer.from(file.body))) differing.push(name);
      if (!file.gzip) continue;
      const gz = await fetch(`${s.base}/_app/${name}`, { headers: { "accept-encoding": "gzip" }, decompress: false });
      if (gz.headers.get("content-encoding") !== "gzip" || !Buffer.from(await gz.arrayBuffer()).equals(Buffer.from(file.gzip))) differing.push(`${name} (gzip)`);
    }
    expect(differing).toEqual([]);
    // A page's address preloads the page screen's chunks from the embedded bundle, as from source.
    const pageShell = await (await fetch(`${s.base}/w/docs/p/intro.md`)).text();
    const preloads = [...pageShell.matchAll(/<link rel="modulepreload"[^>]*href="([^"]+)"/g)].map((m) => m[1]!);
    expect(preloads.sort()).toEqual(app.preloads.page.map((name) => `/_app/${name}`).sort());
    expect(preloads.length).toBeGreaterThan(0);
    for (const href of preloads) expect((await fetch(`${s.base}${href}`)).status).toBe(200);
    s.proc.kill("SIGTERM");
    expect(await s.exited).toBe(0);
  } finally {
    if (s.proc.exitCode === null) s.proc.kill("SIGKILL");
    rmSync(cwd, { recursive: true, force: true });
  }
});

test("dist/quire status, doctor, backup and stop work against its own serve (marked, fflate and SQLite inside the binary)", async () => {
  const dataDir = tempDir("quire-binary-ops-");
  const s = await startServe(dataDir, { cmd: [binary], cwd: out });
  try {
    const status = await runCli(["status", "--json", "--data-dir", dataDir], { cmd: [binary], cwd: out });
    expect(status.code).toBe(0);
    expect(JSON.parse(status.stdout)).toMatchObject({ running: true, confirmed: true, pid: s.pid });
    const backup = await runCli(["backup", "--json", "--data-dir", dataDir], { cmd: [binary], cwd: out });
    expect(backup.code).toBe(0);
    expect(JSON.parse(backup.stdout).files[0].database).toBe("quire");
    const doctor = await runCli(["doctor", "--json", "--bundle", "--data-dir", dataDir], { cmd: [binary], cwd: out });
    expect(doctor.code).toBe(0);
    const report = JSON.parse(doctor.stdout) as { checks: Array<{ name: string; status: string }>; bundle: string };
    expect(report.checks).toHaveLength(11);
    expect(statSync(report.bundle).size).toBeGreaterThan(0);
    const stop = await runCli(["stop", "--data-dir", dataDir], { cmd: [binary], cwd: out });
    expect(stop.code).toBe(0);
    expect(await s.exited).toBe(0);
  } finally {
    if (s.proc.exitCode === null) s.proc.kill("SIGKILL");
    rmSync(dataDir, { recursive: true, force: true });
  }
}, 60_000);

test("dist/quire export renders on worker threads inside the binary: --threads 2 gives the same bytes, and no fallback warning", async () => {
  const dataDir = tempDir("quire-binary-export-");
  try {
    const init = await runCli(["init", "--workspace-name", "Docs", "--slug", "docs", "--json", "--data-dir", dataDir], { cmd: [binary], cwd: out });
    expect(init.code).toBe(0);
    const id = JSON.parse(init.stdout).workspace.id as string;
    for (let i = 0; i < 60; i++) {
      const code = `\`\`\`ts\nconst n: number = ${i};\n\`\`\`\n`;
      writeFileSync(join(dataDir, "workspaces", id, `page-${i}.md`), `---\ntitle: Page ${i}\npublish: true\n---\n\n# Page ${i}\n\nSee [[page-${(i + 1) % 60}]].\n\n${code}`);
    }
    expect((await runCli(["rebuild", "-w", id, "--json", "--data-dir", dataDir], { cmd: [binary], cwd: out })).code).toBe(0);
    const plain = join(out, "plain.zip");
    const threaded = join(out, "threaded.zip");
    const one = await runCli(["export", "-w", id, "-o", plain, "--json", "--data-dir", dataDir], { cmd: [binary], cwd: out });
    const two = await runCli(["export", "-w", id, "-o", threaded, "--threads", "2", "--json", "--data-dir", dataDir], { cmd: [binary], cwd: out });
    expect(one.code).toBe(0);
    expect(two.code).toBe(0);
    expect(JSON.parse(two.stdout)).toMatchObject({ pages: 60 });
    // A worker that cannot load its module is a warning and a main-thread export: not here.
    expect(two.stderr).not.toContain("no worker thread could start");
    expect(Buffer.compare(Buffer.from(await Bun.file(plain).arrayBuffer()), Buffer.from(await Bun.file(threaded).arrayBuffer()))).toBe(0);
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}, 60_000);

describe("install.sh", () => {
  const sh = async (args: string[]) => {
    const proc = Bun.spawn(["sh", join(REPO, "install.sh"), ...args], { cwd: out, stdout: "pipe", stderr: "pipe" });
    const [stdout, stderr, code] = await Promise.all([
      new Response(proc.stdout).text(),
      new Response(proc.stderr).text(),
      proc.exited,
    ]);
    return { stdout, stderr, code };
  };

  test("installs a local build into --prefix/bin and checks that it runs", async () => {
    const prefix = join(out, "prefix-local");
    const r = await sh(["--prefix", prefix, binary]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`Installed quire v${pkg.version} to ${prefix}/bin/quire`);
    expect(statSync(join(prefix, "bin", "quire")).mode & 0o777).toBe(0o755);
    const v = await runCli(["--version"], { cmd: [join(prefix, "bin", "quire")], cwd: out });
    expect(v.stdout).toBe(`quire v${pkg.version}\n`);
  });

  test("downloads from an http URL", async () => {
    const server = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response(Bun.file(binary)) });
    try {
      const prefix = join(out, "prefix-url");
      const r = await sh([`--prefix=${prefix}`, `http://127.0.0.1:${server.port}/quire`]);
      expect(r.code).toBe(0);
      expect(statSync(join(prefix, "bin", "quire")).size).toBe(statSync(binary).size);
    } finally {
      server.stop(true);
    }
  });

  test("refuses a file that is not a working quire executable, or a missing one, and leaves nothing behind", async () => {
    const prefix = join(out, "prefix-bad");
    const fake = join(out, "fake");
    writeFileSync(fake, "#!/bin/sh\necho hello\n", { mode: 0o755 });
    const r = await sh(["--prefix", prefix, fake]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("not a quire executable");
    expect(readdirSync(join(prefix, "bin"))).toEqual([]);
    const missing = await sh(["--prefix", prefix, join(out, "nope")]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain("no such file");
    const bad = await sh(["--bogus"]);
    expect(bad.code).toBe(2);
  });
});

test("the compiled binary serves MCP on stdio: tools/list and a call through the SDK's client", async () => {
  const dataDir = tempDir("quire-build-mcp-");
  try {
    const { startTestServer } = await import("../helpers/server.ts");
    const { registerUser } = await import("../helpers/factories.ts");
    const { createKey, ok, stdioClient } = await import("../mcp/fixture.ts");
    const { cliEnv } = await import("./spawn.ts");
    const server = await startTestServer({}, { dataDir, keepDir: true });
    const owner = await registerUser(server.url);
    const { key } = await createKey(owner, ["read"]);
    await server.close();
    const client = await stdioClient([binary, "mcp", "-w", owner.workspaceSlug], cliEnv({ DATA_DIR: dataDir, QUIRE_API_KEY: key }), "2026");
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names).toContain("quire_read_page");
    expect(names).not.toContain("quire_write_page");
    expect((await ok(client, "quire_read_page", { path: "welcome" })).title).toBe("Welcome to Quire");
    await client.close();
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}, 60_000);

/** Fetches every /_app/ file reachable from the page's HTML; each must answer 200. */
async function crawlApp(base: string, html: string): Promise<string[]> {
  const refs = (text: string) => [...text.matchAll(/["'`(](?:\.\/|\/_app\/)([\w.-]+\.(?:js|css))["'`)]/g)].map((m) => `/_app/${m[1]}`);
  const seen = new Set<string>();
  const queue = refs(html);
  while (queue.length > 0) {
    const path = queue.pop()!;
    if (seen.has(path)) continue;
    seen.add(path);
    const r = await fetch(`${base}${path}`);
    expect({ path, status: r.status }).toEqual({ path, status: 200 });
    const text = await r.text();
    if (path.endsWith(".js")) queue.push(...refs(text));
  }
  return [...seen];
}
