/**
 * `quire service` as a user runs it: --dry-run prints without writing, install writes the user unit
 * (twice: the same bytes, "Unchanged"), says how to start it when no service manager answers (as in
 * this container), status and uninstall; `quire open` then points at the service, not at `serve`.
 */
import { afterAll, expect, test } from "bun:test";
import { existsSync, readFileSync, readdirSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../helpers/server.ts";
import { runCli } from "./spawn.ts";

const home = tempDir("quire-service-home-");
afterAll(() => rmSync(home, { recursive: true, force: true }));
const unitPath = join(home, ".config", "systemd", "user", "quire.service");
const dataDir = join(home, "docs data");
// No user service manager is reachable here (no session bus), as in most containers and CI runners.
const env = { HOME: home, XDG_CONFIG_HOME: undefined, XDG_RUNTIME_DIR: join(home, "no-runtime"), DBUS_SESSION_BUS_ADDRESS: undefined, DATA_DIR: undefined, PORT: undefined };
const service = (...args: string[]) => runCli(["service", ...args], { env, cwd: home });

test("--dry-run prints the unit and where it would go, and writes nothing", async () => {
  const r = await service("install", "--user", "--port", "8080", "--data-dir", dataDir, "--dry-run");
  expect(r.code).toBe(0);
  expect(r.stdout.split("\n")[0]).toBe(`# ${unitPath}`);
  expect(r.stdout).toContain(`serve --port 8080 --data-dir "${dataDir}"\n`);
  expect(existsSync(unitPath)).toBe(false);
  const system = await service("install", "--dry-run");
  expect(system.stdout.split("\n")[0]).toBe("# /etc/systemd/system/quire.service");
  expect(system.stdout).toContain("--data-dir /var/lib/quire\n");
});

test("install writes the user unit; a second install changes nothing; without a service manager it says how to start it", async () => {
  const first = await service("install", "--user", "--port", "8080", "--data-dir", dataDir);
  expect(first.stdout).toBe(`Wrote ${unitPath}\n`);
  expect(first.code).toBe(1);
  expect(first.stderr).toContain("systemctl --user daemon-reload failed");
  expect(first.stderr).toContain("Start it by hand: systemctl --user daemon-reload && systemctl --user enable quire.service && systemctl --user restart quire.service");
  const written = readFileSync(unitPath, "utf8");
  const mtime = statSync(unitPath).mtimeMs;
  expect(written).toContain(`serve --port 8080 --data-dir "${dataDir}"\n`);

  const second = await service("install", "--user", "--port", "8080", "--data-dir", dataDir);
  expect(second.stdout).toBe(`Unchanged: ${unitPath}\n`);
  expect(readFileSync(unitPath, "utf8")).toBe(written);
  expect(statSync(unitPath).mtimeMs).toBe(mtime);
  expect(readdirSync(join(home, ".config", "systemd", "user"))).toEqual(["quire.service"]);

  const status = await service("status", "--user", "--json");
  expect(JSON.parse(status.stdout)).toEqual({ manager: "systemd", user: true, path: unitPath, installed: true, state: "unknown" });
});

test("quire open, with the service installed but nothing running, says how to start the service", async () => {
  const r = await runCli(["open", "--no-browser", "--data-dir", dataDir], { env, cwd: home });
  expect(r.code).toBe(3);
  expect(r.stderr).toContain(`nothing is running on ${dataDir}; start it with: systemctl --user start quire.service (quire is installed as a service: ${unitPath})`);
});

test("uninstall removes the unit; then open says `quire serve` again", async () => {
  const r = await service("uninstall", "--user");
  expect(r.code).toBe(0);
  expect(r.stdout).toContain(`${unitPath}: removed;`);
  expect(existsSync(unitPath)).toBe(false);
  const again = await service("uninstall", "--user");
  expect(again.stdout).toBe(`${unitPath}: not installed\n`);
  const open = await runCli(["open", "--no-browser", "--data-dir", dataDir], { env, cwd: home });
  expect(open.stderr).toContain("start it with: quire serve");
});

test("bad input: a port that is not one is refused and nothing is written", async () => {
  for (const port of ["abc", "0", "70000", "80x"]) {
    const r = await service("install", "--user", "--port", port);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("--port must be a port number from 1 to 65535");
  }
  expect(existsSync(unitPath)).toBe(false);
});
