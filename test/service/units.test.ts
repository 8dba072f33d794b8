/**
 * The service files quire writes, checked by the tools that read them: systemd's own verifier for
 * the units (every key known, every value parsed, the executable there), an XML parser for the
 * launchd property list (there is no plutil on Linux), and the Windows steps' command line.
 */
import { afterAll, expect, test } from "bun:test";
import { chmodSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseDocument } from "htmlparser2";
import { launchdPlist, systemdUnit, windowsSteps } from "../../src/service/units.ts";
import { tempDir } from "../helpers/server.ts";

const dir = tempDir("quire-units-");
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const exe = join(dir, "bin", "quire");
mkdirSync(join(dir, "bin"));
writeFileSync(exe, "#!/bin/sh\nexit 0\n", { mode: 0o755 });
// A data directory whose name systemd would otherwise read as a specifier, a variable or two words.
const awkward = join(dir, "my docs 100% $HOME");

/** `systemd-analyze verify` on the unit; it exits 0 on unknown keys too, so anything it says is a failure. */
function verify(name: string, content: string, user: boolean): { code: number; said: string } {
  const path = join(dir, name);
  writeFileSync(path, content);
  const runtime = join(dir, "runtime");
  mkdirSync(runtime, { recursive: true });
  chmodSync(runtime, 0o700);
  const r = Bun.spawnSync(["systemd-analyze", ...(user ? ["--user"] : []), "verify", path], {
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", XDG_RUNTIME_DIR: runtime, HOME: dir },
    stdout: "pipe",
    stderr: "pipe",
  });
  return { code: r.exitCode ?? -1, said: (r.stdout.toString() + r.stderr.toString()).trim() };
}

test("the system unit passes systemd-analyze verify with its hardening, an awkward data directory and a low port", () => {
  for (const [port, dataDir] of [[3000, "/var/lib/quire"], [80, awkward]] as const) {
    const unit = systemdUnit({ command: [exe], port, dataDir, user: false });
    expect(verify("quire.service", unit, false)).toEqual({ code: 0, said: "" });
    for (const key of ["NoNewPrivileges=yes", "ProtectSystem=strict", "StateDirectory=quire", "PrivateTmp=yes", "DynamicUser=yes", "ProtectHome=yes"]) {
      expect(unit).toContain(`\n${key}\n`);
    }
    expect(unit).toContain(port < 1024 ? "\nAmbientCapabilities=CAP_NET_BIND_SERVICE\n" : "\nCapabilityBoundingSet=\n");
  }
  const unit = systemdUnit({ command: [exe], port: 80, dataDir: awkward, user: false });
  expect(unit).toContain(`ExecStart=${exe} serve --port 80 --data-dir "${dir}/my docs 100%% $$HOME"`);
  expect(unit).toContain(`ReadWritePaths="${dir}/my docs 100%% $$HOME"`);
  const inHome = systemdUnit({ command: [exe], port: 3000, dataDir: "/home/ada/quire", user: false });
  expect(verify("home.service", inHome, false)).toEqual({ code: 0, said: "" });
  expect(inHome).toContain("\nReadWritePaths=/home/ada/quire\nProtectSystem=strict\nProtectHome=read-only\n");
});

test("the user unit passes systemd-analyze --user verify", () => {
  const unit = systemdUnit({ command: [exe], port: 8080, dataDir: awkward, user: true });
  expect(verify("quire-user.service", unit, true)).toEqual({ code: 0, said: "" });
  expect(unit).toContain("\nWantedBy=default.target\n");
  expect(unit).not.toContain("DynamicUser");
});

test("the verifier does catch a bad unit (the check can fail)", () => {
  const bad = systemdUnit({ command: [exe], port: 3000, dataDir: "/var/lib/quire", user: false }).replace("NoNewPrivileges=yes", "NoNewPrivilege=yes");
  expect(verify("bad.service", bad, false).said).toContain("Unknown key 'NoNewPrivilege'");
  const missing = systemdUnit({ command: [join(dir, "nope")], port: 3000, dataDir: "/var/lib/quire", user: false });
  expect(verify("missing.service", missing, false).said).toContain("is not executable");
});

test("the launchd property list is well-formed and carries the exact arguments", () => {
  const plist = launchdPlist({ command: [exe], port: 8080, dataDir: `${awkward} <&>`, user: true });
  const doc = parseDocument(plist, { xmlMode: true });
  const root = doc.children.find((n) => "name" in n && n.name === "plist") as unknown as { children: Array<{ name?: string; children?: unknown[] }> };
  const dict = root.children.find((n) => n.name === "dict") as { children: Array<{ name?: string; children?: Array<{ data?: string; name?: string; children?: Array<{ data?: string }> }> }> };
  const elements = dict.children.filter((n) => n.name);
  const entries = new Map<string, (typeof elements)[number]>();
  for (let i = 0; i < elements.length; i += 2) entries.set(elements[i]!.children![0]!.data!, elements[i + 1]!);
  expect([...entries.keys()]).toEqual(["Label", "ProgramArguments", "RunAtLoad", "KeepAlive", "ProcessType", "StandardErrorPath"]);
  const text = (node: { children?: Array<{ data?: string }> }) => (node.children ?? []).map((c) => c.data ?? "").join("");
  expect(text(entries.get("Label")! as never)).toBe("quire");
  const args = entries.get("ProgramArguments")!.children!.filter((n) => n.name === "string").map((n) => text(n as never));
  // htmlparser2 leaves entities as written: decode the five XML ones to compare with the input.
  const decoded = args.map((a) => a.replaceAll("&lt;", "<").replaceAll("&gt;", ">").replaceAll("&quot;", '"').replaceAll("&amp;", "&"));
  expect(decoded).toEqual([exe, "serve", "--port", "8080", "--data-dir", `${awkward} <&>`]);
  expect(entries.get("RunAtLoad")!.name).toBe("true");
});

test("Windows gets Task Scheduler and NSSM steps with the command quoted", () => {
  const steps = windowsSteps({ command: ["C:\\Program Files\\quire\\quire.exe"], port: 8080, dataDir: "C:\\Users\\Ada\\quire data", user: true });
  expect(steps).toContain('schtasks /Create /TN Quire /SC ONLOGON /RL LIMITED /F /TR "\\"C:\\Program Files\\quire\\quire.exe\\" serve --port 8080 --data-dir \\"C:\\Users\\Ada\\quire data\\""');
  expect(steps).toContain('nssm install Quire "C:\\Program Files\\quire\\quire.exe" serve --port 8080 --data-dir "C:\\Users\\Ada\\quire data"');
});

test("Windows command lines: a folder ending in a backslash, quotes and backslashes before them survive as one word each", () => {
  const steps = windowsSteps({ command: ["C:\\quire\\quire.exe"], port: 8080, dataDir: "D:\\quire data\\", user: true });
  // Backslashes are doubled only before a quote: here the closing one.
  expect(steps).toContain('nssm install Quire C:\\quire\\quire.exe serve --port 8080 --data-dir "D:\\quire data\\\\"');
  const quoted = windowsSteps({ command: ["C:\\q.exe"], port: 1, dataDir: 'D:\\a\\"b c', user: true });
  expect(quoted).toContain('--data-dir "D:\\a\\\\\\"b c"');
});
