/**
 * The OCI image (Dockerfile): built with Debian's podman on a base made here from this machine's
 * own glibc (the image's default base, distroless/cc, cannot be pulled without the internet), then
 * inspected: non-root user, one volume owned by that user, the health check, the executable inside;
 * the image's file system is exported and its quire started there (a mount namespace with its own
 * /proc, chroot, the image's user); then the image runs as a container under runc (crun cannot in
 * this build machine's sandbox: docs/decisions/releases.md, "OCI image"). Needs root, podman and
 * runc (.ci/run installs them).
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { chmodSync, chownSync, copyFileSync, cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import pkg from "../../package.json" with { type: "json" };
import { tempDir } from "../helpers/server.ts";

const REPO = join(import.meta.dir, "../..");
const dir = tempDir("quire-container-");
const tag = `localhost/quire-test-${process.pid}`;
const base = `${tag}-base`;
const container = `quire-test-${process.pid}-ctr`;
const podman = (...args: string[]) => {
  const r = Bun.spawnSync(["podman", ...args], { stdout: "pipe", stderr: "pipe" });
  return { code: r.exitCode, out: r.stdout.toString(), err: r.stderr.toString() };
};

function dockerfileInstructions(text: string): Array<[string, string]> {
  return text
    .replace(/\\\n/g, " ")
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith("#"))
    .map((l) => {
      const [word, ...rest] = l.split(/\s+/);
      return [word!.toUpperCase(), rest.join(" ")] as [string, string];
    });
}

test("the Dockerfile: a minimal base, the executable, a non-root user, one volume, a health check through /api/health", () => {
  const ins = dockerfileInstructions(readFileSync(join(REPO, "Dockerfile"), "utf8"));
  const all = (word: string) => ins.filter(([w]) => w === word).map(([, v]) => v);
  expect(all("ARG")).toContain("BASE=gcr.io/distroless/cc-debian12:nonroot");
  expect(all("FROM").at(-1)).toBe("${BASE}");
  expect(all("USER")).toEqual(["65532:65532"]);
  expect(all("VOLUME")).toEqual(['["/data"]']);
  expect(all("ENV").join(" ")).toContain("DATA_DIR=/data");
  expect(all("HEALTHCHECK")[0]).toEndWith('CMD ["/usr/local/bin/quire", "status", "--data-dir", "/data"]');
  expect(all("ENTRYPOINT")).toEqual(['["/usr/local/bin/quire"]']);
  expect(all("CMD")).toEqual(['["serve"]']);
  // compose.yaml: the image, the port and the named volume at the data directory.
  const compose = Bun.YAML.parse(readFileSync(join(REPO, "compose.yaml"), "utf8")) as {
    services: { quire: { ports: string[]; volumes: string[]; build: string } };
    volumes: Record<string, unknown>;
  };
  expect(compose.services.quire.build).toBe(".");
  expect(compose.services.quire.ports).toEqual(["3000:3000"]);
  expect(compose.services.quire.volumes).toEqual(["quire-data:/data"]);
  expect(Object.keys(compose.volumes)).toEqual(["quire-data"]);
});

const ctx = join(dir, "context");
const binary = join(ctx, "dist", "quire");
beforeAll(async () => {
  mkdirSync(join(ctx, "dist"), { recursive: true });
  const build = Bun.spawn(["bun", "run", "build", "--outfile", binary], { cwd: REPO, stdout: "pipe", stderr: "pipe" });
  const [out, err, code] = await Promise.all([new Response(build.stdout).text(), new Response(build.stderr).text(), build.exited]);
  if (code !== 0) throw new Error(`build failed:\n${out}${err}`);
  copyFileSync(join(REPO, "Dockerfile"), join(ctx, "Dockerfile"));
  copyFileSync(join(REPO, ".dockerignore"), join(ctx, ".dockerignore"));
  writeFileSync(join(ctx, "unrelated.txt"), "the .dockerignore keeps this out of the image's context");

  // The base: what distroless/cc holds that quire needs — glibc's libraries (as ldd lists them for the
  // executable and the argon2 binding), /etc/passwd with the nonroot user and its home.
  const rootfs = join(dir, "rootfs");
  for (const d of ["etc", "tmp", "home/nonroot", "lib64", "lib/x86_64-linux-gnu", "lib/aarch64-linux-gnu"]) mkdirSync(join(rootfs, d), { recursive: true });
  chmodSync(join(rootfs, "tmp"), 0o1777);
  const binding = join(REPO, "node_modules/@node-rs/argon2-linux-x64-gnu/argon2.linux-x64-gnu.node");
  const libs = new Set<string>();
  for (const file of [binary, binding]) {
    for (const m of Bun.spawnSync(["ldd", file]).stdout.toString().matchAll(/(\/\S+\.so[.\d]*)/g)) libs.add(m[1]!);
  }
  for (const lib of libs) cpSync(lib, join(rootfs, lib), { dereference: true });
  writeFileSync(join(rootfs, "etc/passwd"), "root:x:0:0:root:/root:/sbin/nologin\nnonroot:x:65532:65532:nonroot:/home/nonroot:/sbin/nologin\n");
  writeFileSync(join(rootfs, "etc/group"), "root:x:0:\nnonroot:x:65532:\n");
  chownSync(join(rootfs, "home/nonroot"), 65532, 65532);
  expect(Bun.spawnSync(["tar", "--numeric-owner", "-C", rootfs, "-cf", join(dir, "base.tar"), "."]).exitCode).toBe(0);
  const imported = podman("import", join(dir, "base.tar"), base);
  if (imported.code !== 0) throw new Error(`podman import failed: ${imported.err}`);
}, 180_000);
afterAll(() => {
  podman("rm", "-f", container);
  podman("rmi", "-f", tag, base);
  rmSync(dir, { recursive: true, force: true });
});

test("podman builds the image; it runs as 65532 with /data its own, checks its health with quire status, and carries the executable", async () => {
  const built = podman("build", "--format", "docker", "--build-arg", `BASE=${base}`, "-t", tag, ctx);
  expect(built.err).not.toContain("Error");
  expect(built.code).toBe(0);
  const config = JSON.parse(podman("image", "inspect", tag).out)[0] as {
    Config: { User: string; Volumes: Record<string, unknown>; Entrypoint: string[]; Cmd: string[]; Env: string[]; ExposedPorts: Record<string, unknown> };
    Healthcheck?: { Test: string[] };
  };
  expect(config.Config.User).toBe("65532:65532");
  expect(Object.keys(config.Config.Volumes)).toEqual(["/data"]);
  expect(config.Config.Entrypoint).toEqual(["/usr/local/bin/quire"]);
  expect(config.Config.Cmd).toEqual(["serve"]);
  expect(config.Config.Env).toContain("DATA_DIR=/data");
  expect(Object.keys(config.Config.ExposedPorts)).toEqual(["3000/tcp"]);
  expect(config.Healthcheck?.Test).toEqual(["CMD", "/usr/local/bin/quire", "status", "--data-dir", "/data"]);

  // The image's files: the executable byte for byte, /data owned by the user, nothing else of the context.
  expect(podman("create", "--name", container, tag).code).toBe(0);
  const exported = join(dir, "image.tar");
  expect(podman("export", "-o", exported, container).code).toBe(0);
  const listing = Bun.spawnSync(["tar", "--numeric-owner", "-tvf", exported]).stdout.toString();
  expect(listing).toMatch(/^d\S+ 65532\/65532 .* \.?\/?data\/?$/m);
  expect(listing).not.toContain("unrelated.txt");
  const fs = join(dir, "image");
  mkdirSync(fs);
  expect(Bun.spawnSync(["tar", "--numeric-owner", "-xf", exported, "-C", fs]).exitCode).toBe(0);
  const sha = (p: string) => createHash("sha256").update(readFileSync(p)).digest("hex");
  expect(sha(join(fs, "usr/local/bin/quire"))).toBe(sha(binary));

  // Its quire runs in that file system as the image's user, as a container would start it (its own
  // /proc, the image's environment, the working directory /data): serves, hashes a password with
  // the embedded binding, and answers the image's health check.
  mkdirSync(join(fs, "proc"), { recursive: true });
  const inImage = (args: string[], env: Record<string, string> = {}) =>
    Bun.spawn(
      ["unshare", "--mount", "--fork", "--kill-child", "sh", "-c", 'mount -t proc proc "$0/proc" && cd "$0/data" && exec chroot --userspec=65532:65532 "$0" "$@"', fs, ...args],
      { env: { PATH: "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", DATA_DIR: "/data", ...env }, stdout: "pipe", stderr: "pipe" },
    );
  const version = inImage(["/usr/local/bin/quire", "--version"]);
  expect(await new Response(version.stdout).text()).toBe(`quire v${pkg.version}\n`);
  // A port free right now (the server in the image binds it itself; the host's network is shared).
  const probe = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response() });
  const port = probe.port;
  probe.stop(true);
  const server = inImage(["/usr/local/bin/quire", "serve"], { PORT: String(port) });
  try {
    let health: Response | undefined;
    for (let i = 0; i < 100 && !health?.ok; i++) {
      await Bun.sleep(100);
      health = await fetch(`http://127.0.0.1:${port}/api/health`).catch(() => undefined);
    }
    expect(health?.status).toBe(200);
    const reg = await fetch(`http://127.0.0.1:${port}/api/auth/register`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ name: "Img", email: "img@example.test", password: "long enough password", terms_accepted: true }),
    });
    expect(reg.status).toBe(201);
    const check = inImage(config.Healthcheck!.Test.slice(1));
    expect(await check.exited).toBe(0);
  } finally {
    // unshare ignores SIGTERM while it waits: stop quire the way an operator would, inside the image.
    const stop = inImage(["/usr/local/bin/quire", "stop", "--force"]);
    await stop.exited;
    await server.exited;
  }
  const owners = Bun.spawnSync(["find", join(fs, "data"), "!", "-uid", "65532"]).stdout.toString().trim();
  expect(owners).toBe("");
  expect(readFileSync(join(fs, "data", "quire.db")).length).toBeGreaterThan(0);
}, 180_000);

test("the image runs as a container: healthy, confirmed by quire status inside, stopped gracefully, its volume's data kept by the next start", async () => {
  // The image of the test above. This build machine's sandbox refuses what podman's defaults ask:
  // crun cannot raise RLIMIT_NOFILE/NPROC here nor use its hybrid cgroups, so runc (Debian's,
  // .ci/run installs it) runs the container, with limits the sandbox grants and no network but
  // its own loopback — where the health check asks.
  const volume = `quire-test-${process.pid}-data`;
  const name = `${container}-run`;
  const nofile = Bun.spawnSync(["sh", "-c", "ulimit -Hn"]).stdout.toString().trim();
  const run = (...args: string[]) => podman("--runtime", "runc", ...args);
  const healthy = async () => {
    for (let i = 0; i < 150; i++) {
      if (run("healthcheck", "run", name).code === 0) return true;
      await Bun.sleep(200);
    }
    return false;
  };
  const status = () => JSON.parse(run("exec", name, "/usr/local/bin/quire", "status", "--json").out) as { running: boolean; confirmed: boolean; instance_id: string; port: number };
  try {
    const started = run("run", "-d", "--name", name, "--network=none", "--ulimit", `nofile=${nofile}:${nofile}`, "--ulimit", "nproc=4096:4096", "-v", `${volume}:/data`, tag);
    // Periodic health checks are systemd timers, and this machine runs no systemd: podman says so;
    // `podman healthcheck run` below runs the image's check itself.
    const complaints = started.err.split("\n").filter((l) => l.trim() && !/systemd connection to (add|start) healthchecks/.test(l));
    expect(complaints).toEqual([]);
    expect(started.code).toBe(0);
    expect(await healthy()).toBe(true);
    const first = status();
    expect(first).toMatchObject({ running: true, confirmed: true, port: 3000 });
    expect(run("exec", name, "id", "-u").code).not.toBe(0); // no shell tools in the image: only quire
    // quire runs as the image's nonroot user: 65532 on the host too (no user namespace here).
    expect(run("top", name, "user", "huser").out.trim().split("\n")[1]!.trim().split(/\s+/)).toEqual(["nonroot", "65532"]);

    // `podman stop` sends the image's STOPSIGNAL (SIGTERM): the server drains and exits 0.
    expect(run("stop", "-t", "30", name).code).toBe(0);
    expect(run("inspect", name, "--format", "{{.State.ExitCode}}").out.trim()).toBe("0");
    expect(run("logs", name).err + run("logs", name).out).toContain('"msg":"stopped"');

    // Started again on the same volume: the same instance (its id lives in quire.db on the volume).
    expect(run("start", name).code).toBe(0);
    expect(await healthy()).toBe(true);
    expect(status()).toMatchObject({ running: true, confirmed: true, instance_id: first.instance_id });
  } finally {
    run("rm", "-f", "-t", "0", name);
    podman("volume", "rm", "-f", volume);
  }
}, 120_000);
