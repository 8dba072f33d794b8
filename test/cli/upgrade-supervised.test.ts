/**
 * An upgrade under a service manager while people write: no acknowledged save is lost. Two real
 * builds of this source (the installed one at package.json's version, the release at 9.9.9) and
 * runit, Debian's supervisor (.ci/run installs it), which runs `quire serve` as systemd or launchd
 * would — systemd itself cannot run here, not being the machine's init. Four people save over
 * HTTP without pause, each to their own page, each save one more line; meanwhile `quire upgrade`
 * swaps the executable and the supervisor restarts the service (`sv restart`: SIGTERM, wait for the
 * exit, start again — what `systemctl try-restart`, which the upgrade runs under systemd, does).
 * Then every acknowledged line is in the page, in its file on disk, and in the git remote.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { SCHEMA_VERSION } from "../../src/db/migrations/index.ts";
import { releaseFileName, releasePlatform } from "../../src/releases/platform.ts";
import pkg from "../../package.json" with { type: "json" };
import { Client } from "../helpers/client.ts";
import { registerUser } from "../helpers/factories.ts";
import { createLocalBareRemote, type BareRemote } from "../helpers/git-remote.ts";
import { tempDir } from "../helpers/server.ts";
import { GIT_ENV, waitFor } from "../git/support.ts";
import { cliEnv, REPO, runCli } from "./spawn.ts";

const root = tempDir("quire-supervised-");
const binary = join(root, "bin", "quire");
const releases = join(root, "releases");
const dataDir = join(root, "data");
const service = join(root, "service", "quire");
const NEW = "9.9.9";
let releaseServer: ReturnType<typeof Bun.serve>;
let runsv: Bun.Subprocess;
let bare: BareRemote;
let port = 0;

async function build(outfile: string, version: string): Promise<void> {
  const proc = Bun.spawn(["bun", "build.ts", "--outfile", outfile, "--version", version], { cwd: REPO, stdout: "pipe", stderr: "pipe" });
  const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  if (code !== 0) throw new Error(`build of ${version} failed:\n${out}${err}`);
}
const sv = (...args: string[]) => Bun.spawnSync(["sv", ...args], { stdout: "pipe", stderr: "pipe" });
async function health(): Promise<{ version: string } | null> {
  try {
    const r = await fetch(`http://127.0.0.1:${port}/api/health`, { signal: AbortSignal.timeout(1000) });
    return r.ok ? ((await r.json()) as { version: string }) : null;
  } catch {
    return null;
  }
}

beforeAll(async () => {
  // The release to upgrade to: this source as 9.9.9, in a release folder served on loopback.
  const file = releaseFileName(`v${NEW}`, releasePlatform());
  const folder = join(releases, "latest");
  mkdirSync(folder, { recursive: true });
  await Promise.all([build(binary, pkg.version), build(join(folder, file), NEW)]);
  const bytes = readFileSync(join(folder, file));
  writeFileSync(join(folder, "SHA256SUMS"), `${createHash("sha256").update(bytes).digest("hex")}  ${file}\n`);
  writeFileSync(join(folder, "manifest.json"), JSON.stringify({ version: `v${NEW}`, schema: SCHEMA_VERSION }));
  releaseServer = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch: (req) => new Response(Bun.file(join(releases, decodeURIComponent(new URL(req.url).pathname).replaceAll("..", "")))),
  });

  // The installed version's data: a workspace synced to a git remote.
  bare = await createLocalBareRemote({ branch: "main" });
  const init = await runCli(["init", "--workspace-name", "Handbook", "--slug", "handbook", "--git-url", bare.url, "--branch", "main", "--data-dir", dataDir], {
    cmd: [binary],
    env: GIT_ENV,
    cwd: root,
  });
  if (init.code !== 0) throw new Error(`init failed: ${init.stderr}`);

  // The service: runit's run script, on a fixed port (a restart must come back where the writers are).
  const probe = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
  port = probe.port;
  probe.stop(true);
  mkdirSync(service, { recursive: true });
  writeFileSync(join(service, "run"), `#!/bin/sh\nexec 2>>"${root}/serve.log"\nexec "${binary}" serve --port ${port} --data-dir "${dataDir}"\n`, { mode: 0o755 });
  runsv = Bun.spawn(["runsv", service], { env: cliEnv(GIT_ENV), cwd: root, stdio: ["ignore", "ignore", "inherit"] });
  await waitFor(health, 20_000, "the supervised server");
}, 240_000);

afterAll(async () => {
  sv("-w", "30", "down", service);
  sv("exit", service);
  await runsv?.exited;
  releaseServer?.stop(true);
  await bare?.close();
  rmSync(root, { recursive: true, force: true });
});

test("writers save without pause through `quire upgrade` and the supervisor's restart: every acknowledged save is kept", async () => {
  expect((await health())!.version).toBe(`v${pkg.version}`);
  const owner = await registerUser(`http://127.0.0.1:${port}`, { name: "Ada Lovelace", email: "ada@example.test", password: "analytical engine notes" });
  const workspaceId: string = (await owner.client.get("/api/v1/workspaces")).body.items.find((w: { slug: string }) => w.slug === "handbook").id;
  // Each writer is a person of their own (the owner and three editors she invites): the content_write
  // limit, 60 saves a minute, is each person's (docs/decisions/rate-limits.md), and one person does
  // not write four pages at once.
  const WRITERS = 4;
  const tokens = [owner.accessToken];
  for (let w = 1; w < WRITERS; w++) {
    const invited = await owner.client.post(`/api/v1/workspaces/${workspaceId}/invitations`, { email: `writer${w}@example.test`, role: "editor" });
    expect(invited.status).toBe(201);
    const accepted = await new Client(`http://127.0.0.1:${port}`).post("/api/auth/invitations/accept", {
      token: String(invited.body.url).split("/invite/")[1],
      name: `Writer ${w}`,
      password: "a writer's own password",
    });
    expect(accepted.status).toBe(201);
    tokens.push(accepted.body.access_token);
  }
  const acked = Array.from({ length: WRITERS }, () => 0);
  const phase = { restarting: false, upgraded: false, stop: false };
  const ackedOld = Array.from({ length: WRITERS }, () => 0);
  const ackedNew = Array.from({ length: WRITERS }, () => 0);
  let ackedRestarting = 0; // by either version: no answer says which
  // The fewest saves a person had left in a minute's allowance, as the servers' answers said.
  const lowest = Array.from({ length: WRITERS }, () => 60);
  let refused = 0;
  const line = (w: number, n: number) => `writer ${w} save ${n}`;
  const body = (w: number, n: number) => Array.from({ length: n }, (_, i) => line(w, i + 1)).join("\n") + "\n";

  // Each writer sends its next save once the last is acknowledged and a second has passed: one save
  // a second, the average pace the content_write limit allows a person (faster than the app's
  // autosave, every 2 s at most). When the restart begins, a resting writer wakes and saves at once,
  // and keeps saving as soon as answered until the restart meets one of its saves (refused or cut
  // off), so that saves meet the moment the server stops — while the server's answers say its minute
  // has more than 10 saves left, as a client reading the limit headers would. An unacknowledged save
  // is sent again every 5 ms until the new server acknowledges it, and the writer is back to its
  // pace. A refused connection reaches no server and counts against nothing.
  const writer = async (w: number) => {
    let hash: string | undefined;
    let metRestart = false;
    let left = 60;
    const hurrying = () => phase.restarting && !metRestart && left > 10;
    while (!phase.stop) {
      const n = acked[w]! + 1;
      let pause = 5;
      try {
        const r = await fetch(`http://127.0.0.1:${port}/api/v1/content/handbook/writers/w${w}.md`, {
          method: "PUT",
          headers: { authorization: `Bearer ${tokens[w]}`, "content-type": "application/json" },
          body: JSON.stringify({ body: body(w, n), frontmatter: { title: `Writer ${w}` }, lastKnownHash: hash }),
          signal: AbortSignal.timeout(15_000),
        });
        const text = await r.text();
        left = Number(r.headers.get("x-ratelimit-remaining") ?? 60);
        lowest[w] = Math.min(lowest[w]!, left);
        if (r.status === 200 || r.status === 201) {
          hash = JSON.parse(text).content_hash;
          acked[w] = n;
          if (phase.upgraded) ackedNew[w]!++;
          else if (phase.restarting) ackedRestarting++;
          else ackedOld[w]!++;
          if (!hurrying()) pause = 1000;
        } else if (r.status === 409) {
          // A save whose answer the restart cut off had landed: the same save again, on top of it.
          hash = JSON.parse(text).current_hash;
        } else {
          // 503 while the server drains; anything else (a 429 included) fails the test.
          if (r.status !== 503) throw new Error(`save answered ${r.status}: ${text}`);
          refused++;
          if (phase.restarting) metRestart = true;
        }
      } catch (error) {
        if (String(error).includes("save answered")) throw error;
        refused++; // the server is restarting: not acknowledged, sent again
        if (phase.restarting) metRestart = true;
      }
      // A writer resting between saves wakes as soon as the restart begins, unless the restart has
      // already met it: a restart shorter than the rest would otherwise pass between two saves.
      for (let rested = 0; rested < pause && !hurrying() && !phase.stop; rested += 5) await Bun.sleep(5);
    }
  };
  const writers = Array.from({ length: WRITERS }, (_, w) => writer(w));

  await Bun.sleep(1500);
  const upgrade = await runCli(["upgrade", "--json"], {
    cmd: [binary],
    cwd: root,
    env: { QUIRE_RELEASE_URL: `http://127.0.0.1:${releaseServer.port}`, QUIRE_RELEASE_ALLOW_PRIVATE: "true", DATA_DIR: dataDir },
  });
  expect(upgrade.code).toBe(0);
  expect(JSON.parse(upgrade.stdout)).toMatchObject({ upgraded: true, target: `v${NEW}`, running_server: { version: `v${pkg.version}` } });
  // The supervisor restarts the service: SIGTERM (the server drains), then the new executable.
  phase.restarting = true;
  const restart = Bun.spawn(["sv", "-w", "30", "restart", service], { stdout: "pipe", stderr: "pipe" });
  expect(await restart.exited).toBe(0);
  await waitFor(async () => (await health())?.version === `v${NEW}`, 30_000, "the new version");
  phase.upgraded = true;
  phase.restarting = false;
  // Long enough for every writer, back at its pace of a save a second, to save at least once more
  // even when a loaded machine answers slowly.
  await Bun.sleep(3000);
  phase.stop = true;
  await Promise.all(writers);

  // Saves met the restart (some found no server), and were acknowledged by both versions.
  expect(refused).toBeGreaterThan(0);
  for (let w = 0; w < WRITERS; w++) {
    expect(ackedOld[w]).toBeGreaterThan(0);
    expect(ackedNew[w]).toBeGreaterThan(0);
    const want = body(w, acked[w]!);
    const page = await owner.client.get(`/api/v1/content/handbook/writers/w${w}.md`);
    expect(page.body.content).toBe(want);
    const onDisk = readFileSync(join(dataDir, "workspaces", workspaceId, "writers", `w${w}.md`), "utf8");
    expect(onDisk.endsWith(want)).toBe(true);
    await waitFor(async () => (await bare.show(`writers/w${w}.md`))?.endsWith(want), 30_000, `writer ${w}'s last save in the git remote`);
  }
  console.log(`supervised upgrade: ${acked.reduce((a, b) => a + b, 0)} saves acknowledged (${ackedOld.join("+")} by v${pkg.version}, ${ackedRestarting} during the restart, ${ackedNew.join("+")} by v${NEW}), ${refused} attempts refused or cut off during the restart, fewest saves left in a person's minute: ${lowest.join(", ")}`);
}, 180_000);
