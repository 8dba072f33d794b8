/**
 * Jobs that write a large file refuse to start on a disk that cannot take it, for real: the
 * target is a small tmpfs. `quire export` estimates its ZIP from the workspace's files and
 * `quire doctor --bundle` knows its bundle's size; either says so (exit 1, the full-disk wording
 * with the figures) and writes nothing, and goes through once space is freed. An export prepared
 * for download (MCP `quire_export`) is written to the temporary folder first and is refused the
 * same way when that disk cannot take it. Skipped with a
 * message where mounting is refused (not root).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statfsSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startTestServer, tempDir } from "../helpers/server.ts";
import { registerUser } from "../helpers/factories.ts";
import { runCli } from "./spawn.ts";

const MOUNT = mkdtempSync(join(tmpdir(), "quire-tmpfs-cli-"));
const mounted = spawnSync("mount", ["-t", "tmpfs", "-o", "size=8m", "tmpfs", MOUNT]).status === 0;
if (!mounted) console.warn(`test/cli/full-disk.test.ts: skipped, mounting a tmpfs on ${MOUNT} was refused (needs root)`);
const BALLAST = join(MOUNT, "ballast.bin");
const free = () => {
  const s = statfsSync(MOUNT);
  return s.bavail * s.bsize;
};
/** Leaves about `bytes` free on the tmpfs. */
const leaveFree = (bytes: number) => writeFileSync(BALLAST, Buffer.alloc(Math.max(0, free() - bytes), 1));

let root: string;
beforeAll(() => {
  root = tempDir("quire-full-disk-cli-");
});
afterAll(() => {
  rmSync(root, { recursive: true, force: true });
  if (mounted) spawnSync("umount", ["-l", MOUNT]);
  rmSync(MOUNT, { recursive: true, force: true });
});

describe.skipIf(!mounted)("on a disk too full for the job", () => {
  test("quire export refuses to start when the output's disk has less free space than the export needs", async () => {
    const dataDir = join(root, "data");
    const init = await runCli(["init", "--workspace-name", "Handbook", "--slug", "handbook", "--data-dir", dataDir]);
    expect(init.code).toBe(0);
    const id = /id ([0-9A-HJKMNP-TV-Z]{26})/.exec(init.stdout)![1]!;
    // 3 MB of files in the work tree: the export is expected to need about 4 MB.
    mkdirSync(join(dataDir, "workspaces", id, "assets"), { recursive: true });
    writeFileSync(join(dataDir, "workspaces", id, "assets", "film.bin"), crypto.getRandomValues(new Uint8Array(3 * 1024 * 1024)));
    const out = join(MOUNT, "out");
    mkdirSync(out);

    leaveFree(2 * 1024 * 1024);
    const refused = await runCli(["export", "-w", id, "-o", join(out, "site.zip"), "--data-dir", dataDir]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/^quire: Not enough free disk space for the export: it needs about 4\.\d MB and the disk holding .*out has [12]\.\d MB free\. Nothing was written/);
    expect(readdirSync(out)).toEqual([]);

    rmSync(BALLAST);
    const done = await runCli(["export", "-w", id, "-o", join(out, "site.zip"), "--data-dir", dataDir]);
    expect(done.stderr).toBe("");
    expect(done.code).toBe(0);
    expect(readdirSync(out)).toEqual(["site.zip"]);
    rmSync(out, { recursive: true });
  }, 60_000);

  test("quire doctor --bundle refuses to write the bundle onto a full data directory, and still reports the checks", async () => {
    const dataDir = join(MOUNT, "data");
    expect((await runCli(["init", "--workspace-name", "Ops", "--slug", "ops", "--data-dir", dataDir])).code).toBe(0);
    const bundles = () => readdirSync(dataDir).filter((n) => n.startsWith("diagnostics-"));

    leaveFree(256 * 1024);
    const refused = await runCli(["doctor", "--bundle", "--json", "--data-dir", dataDir]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/^quire: the diagnostics bundle could not be written: Not enough free disk space for the diagnostics bundle: it needs about 1\.\d MB/);
    const report = JSON.parse(refused.stdout) as { checks: Array<{ name: string; status: string }>; bundle?: string };
    expect(report.bundle).toBeUndefined();
    expect(report.checks.find((c) => c.name === "storage")?.status).not.toBe("pass"); // low space is flagged too
    expect(bundles()).toEqual([]);

    rmSync(BALLAST);
    const written = await runCli(["doctor", "--bundle", "--json", "--data-dir", dataDir]);
    expect(written.stderr).toBe("");
    expect(JSON.parse(written.stdout).bundle).toMatch(/diagnostics-\d{8}T\d{6}Z\.zip$/);
    expect(bundles()).toHaveLength(1);
  }, 60_000);

  test("an export prepared for download refuses to start when the temporary folder's disk is too full, and goes through once space is freed", async () => {
    const server = await startTestServer();
    const owner = await registerUser(server.url);
    const principal = { kind: "session" as const, userId: owner.id, orgId: server.services.workspaces.byId(owner.workspaceId)!.org_id, sessionId: "test" };
    mkdirSync(join(server.dataDir, "workspaces", owner.workspaceId, "assets"), { recursive: true });
    writeFileSync(join(server.dataDir, "workspaces", owner.workspaceId, "assets", "film.bin"), crypto.getRandomValues(new Uint8Array(3 * 1024 * 1024)));
    const tmp = join(MOUNT, "tmp");
    mkdirSync(tmp);
    const before = process.env.TMPDIR;
    process.env.TMPDIR = tmp;
    try {
      leaveFree(2 * 1024 * 1024);
      const refused = await server.services.exporter.prepareDownload(principal, owner.workspaceId).then(
        () => null,
        (e: unknown) => e,
      );
      expect(refused).toMatchObject({ code: "INSUFFICIENT_STORAGE" });
      expect(String((refused as Error).message)).toMatch(/^Not enough free disk space for the export: it needs about 4\.\d MB/);
      expect(readdirSync(tmp)).toEqual([]);

      rmSync(BALLAST);
      const prepared = await server.services.exporter.prepareDownload(principal, owner.workspaceId);
      expect(prepared.pages).toBeGreaterThan(0);
      expect(prepared.url).toMatch(/\/api\/v1\/exports\//);
    } finally {
      if (before === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = before;
      await server.close();
    }
  }, 60_000);
});
