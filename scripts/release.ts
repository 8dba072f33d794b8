/**
 * `bun run release`: compiles `quire` for every platform Bun compiles for into `dist/release/` (or
 * `--out`), as `quire-<version>-<os>-<arch>[.exe]`, with `SHA256SUMS` (the `sha256sum` format) and
 * `manifest.json` (version, commit, date, the database schema it writes — what `quire upgrade`
 * checks before a downgrade — and each file's size and SHA-256).
 *
 * Each binary is built by build.ts (the options of `bun run build`) with `--target` and the target's
 * own argon2 binding, fetched from the npm registry and checked against the integrity bun.lock
 * records: a macOS or Windows executable carrying this machine's Linux binding could not hash a
 * password. The build date is the commit's date, so one commit builds to the same bytes
 * (docs/decisions/releases.md says where that holds). A copy of install.sh goes beside the files,
 * and install.ps1 too, with the release location filled in when QUIRE_RELEASE_URL is set for the release.
 *
 * Options: --out <dir>, --targets <comma-separated subset, e.g. linux-x64,darwin-arm64>.
 */
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { gunzipSync } from "node:zlib";
import pkg from "../package.json" with { type: "json" };
import { SCHEMA_VERSION } from "../src/db/migrations/index.ts";
import type { ReleaseFile, ReleaseManifest } from "../src/releases/manifest.ts";

const ROOT = resolve(import.meta.dir, "..");

/** The release targets: Bun's compile target and the argon2 binding package built for it. */
const TARGETS = {
  "linux-x64": { bun: "bun-linux-x64", binding: "linux-x64-gnu", exe: "" },
  "linux-x64-baseline": { bun: "bun-linux-x64-baseline", binding: "linux-x64-gnu", exe: "" },
  "linux-arm64": { bun: "bun-linux-arm64", binding: "linux-arm64-gnu", exe: "" },
  "darwin-x64": { bun: "bun-darwin-x64", binding: "darwin-x64", exe: "" },
  "darwin-arm64": { bun: "bun-darwin-arm64", binding: "darwin-arm64", exe: "" },
  "windows-x64": { bun: "bun-windows-x64", binding: "win32-x64-msvc", exe: ".exe" },
} as const;
type Target = keyof typeof TARGETS;

const { values } = parseArgs({
  args: Bun.argv.slice(2),
  options: { out: { type: "string" }, targets: { type: "string" } },
});
const out = resolve(ROOT, values.out ?? "dist/release");
const wanted = (values.targets ?? Object.keys(TARGETS).join(",")).split(",").map((t) => t.trim()).filter(Boolean);
for (const t of wanted) {
  if (!(t in TARGETS)) fail(`unknown target ${t} (known: ${Object.keys(TARGETS).join(", ")})`);
}
const started = performance.now();

const commit = git("rev-parse", "--short", "HEAD");
const epoch = git("log", "-1", "--format=%ct");
const date = new Date(Number(epoch) * 1000).toISOString();
const argon2Version = (await Bun.file(join(ROOT, "node_modules/@node-rs/argon2/package.json")).json()).version as string;
const lock = readFileSync(join(ROOT, "bun.lock"), "utf8");

rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });

const files: ReleaseFile[] = [];
for (const target of wanted as Target[]) {
  const spec = TARGETS[target];
  const binding = await argon2Binding(spec.binding);
  const name = `quire-${pkg.version}-${target}${spec.exe}`;
  const build = Bun.spawnSync(
    ["bun", join(ROOT, "build.ts"), "--target", spec.bun, "--outfile", join(out, name), "--argon2-binding", binding.path],
    { cwd: ROOT, env: { ...process.env, SOURCE_DATE_EPOCH: epoch }, stdout: "inherit", stderr: "inherit" },
  );
  if (build.exitCode !== 0) fail(`building ${name} failed (exit ${build.exitCode})`);
  const bytes = await Bun.file(join(out, name)).bytes();
  const [os, ...arch] = target.split("-");
  files.push({
    name,
    os: os!,
    arch: arch.join("-"),
    size: bytes.length,
    sha256: sha256(bytes),
    argon2: { package: binding.package, file: binding.file, size: binding.bytes.length, sha256: sha256(binding.bytes) },
  });
}

writeFileSync(join(out, "SHA256SUMS"), files.map((f) => `${f.sha256}  ${f.name}\n`).join(""));
writeFileSync(
  join(out, "manifest.json"),
  JSON.stringify({ version: `v${pkg.version}`, commit, date, schema: SCHEMA_VERSION, files } satisfies ReleaseManifest, null, 2) + "\n",
);
// The installers beside the binaries; their default release location is this release's when known.
const releaseUrl = process.env.QUIRE_RELEASE_URL;
for (const [file, pattern, line] of [
  ["install.sh", /^default_release_url=.*$/m, (url: string) => `default_release_url=${shellQuote(url)}`],
  ["install.ps1", /^\$DefaultReleaseUrl = .*$/m, (url: string) => `$DefaultReleaseUrl = '${url.replaceAll("'", "''")}'`],
] as const) {
  const text = readFileSync(join(ROOT, file), "utf8");
  if (!pattern.test(text)) fail(`${file} has no default release location line to fill in`);
  writeFileSync(join(out, file), releaseUrl ? text.replace(pattern, line(releaseUrl)) : text, { mode: 0o755 });
}
console.log(
  `release v${pkg.version} (${commit}): ${files.length} file(s) in ${out} in ${((performance.now() - started) / 1000).toFixed(1)} s`,
);

/**
 * The target's argon2 `.node` file, from the npm tarball of `@node-rs/argon2-<platform>` at the
 * version installed here, verified against bun.lock's integrity and kept under dist/.release-cache.
 */
async function argon2Binding(platform: string): Promise<{ package: string; file: string; path: string; bytes: Uint8Array }> {
  const name = `@node-rs/argon2-${platform}`;
  const file = `argon2.${platform}.node`;
  const dir = join(ROOT, "dist/.release-cache", `argon2-${platform}-${argon2Version}`);
  const path = join(dir, file);
  if (!existsSync(path)) {
    const integrity = new RegExp(`"${name.replace("/", "\\/")}@${argon2Version.replaceAll(".", "\\.")}",[^\\]]*"(sha512-[^"]+)"`).exec(lock)?.[1];
    if (!integrity) fail(`bun.lock records no integrity for ${name}@${argon2Version}`);
    const registry = (process.env.NPM_CONFIG_REGISTRY ?? "https://registry.npmjs.org").replace(/\/$/, "");
    const url = `${registry}/${name}/-/argon2-${platform}-${argon2Version}.tgz`;
    const response = await fetch(url);
    if (!response.ok) fail(`fetching ${url}: HTTP ${response.status}`);
    const tgz = new Uint8Array(await response.arrayBuffer());
    const got = `sha512-${createHash("sha512").update(tgz).digest("base64")}`;
    if (got !== integrity) fail(`${url}: integrity ${got} is not bun.lock's ${integrity}`);
    const node = tarEntry(gunzipSync(tgz), `package/${file}`);
    if (!node) fail(`${url} holds no package/${file}`);
    mkdirSync(dir, { recursive: true });
    // Beside it under a name of its own, then renamed: two releases fetching at once never mix bytes.
    writeFileSync(`${path}.${process.pid}.tmp`, node);
    renameSync(`${path}.${process.pid}.tmp`, path);
  }
  return { package: `${name}@${argon2Version}`, file, path, bytes: await Bun.file(path).bytes() };
}

/** One regular file's bytes from a tar archive (ustar headers of 512 bytes, contents padded to 512). */
function tarEntry(tar: Uint8Array, wantedName: string): Uint8Array | undefined {
  const text = (from: number, length: number) =>
    new TextDecoder().decode(tar.subarray(from, from + length)).replace(/\0.*$/s, "");
  for (let at = 0; at + 512 <= tar.length; ) {
    const entryName = text(at, 100);
    if (!entryName) return undefined; // the two zero blocks that end the archive
    const prefix = text(at + 345, 155);
    const size = parseInt(text(at + 124, 12).trim() || "0", 8);
    const full = prefix ? `${prefix}/${entryName}` : entryName;
    if (full === wantedName) return tar.slice(at + 512, at + 512 + size);
    at += 512 + Math.ceil(size / 512) * 512;
  }
  return undefined;
}

function sha256(bytes: Uint8Array): string {
  return createHash("sha256").update(bytes).digest("hex");
}

function shellQuote(s: string): string {
  return `'${s.replaceAll("'", `'"'"'`)}'`;
}

function git(...args: string[]): string {
  const r = Bun.spawnSync(["git", ...args], { cwd: ROOT, stdout: "pipe", stderr: "pipe" });
  const text = r.stdout.toString().trim();
  if (r.exitCode !== 0 || !text) fail(`git ${args.join(" ")} failed: ${r.stderr.toString().trim()}`);
  return text;
}

function fail(message: string): never {
  console.error(`release: ${message}`);
  process.exit(1);
}
