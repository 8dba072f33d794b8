import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join } from "node:path";
import { LAUNCHD_LABEL, SERVICE_NAME, launchdPlist, systemdUnit, windowsSteps, type ServiceOptions } from "./units.ts";

type Manager = "systemd" | "launchd" | "windows";
type Env = Record<string, string | undefined>;

/** Where the service file goes on this platform, and what it holds (null path: Windows, printed steps). */
interface ServicePlan {
  manager: Manager;
  user: boolean;
  path: string | null;
  content: string;
}

export function servicePlan(o: ServiceOptions, env: Env = process.env, platform: NodeJS.Platform = process.platform): ServicePlan {
  const manager = managerFor(platform);
  if (manager === "windows") return { manager, user: o.user, path: null, content: windowsSteps(o) };
  const path = serviceFilePath(manager, o.user, env);
  return { manager, user: o.user, path, content: manager === "systemd" ? systemdUnit(o) : launchdPlist(o) };
}

function managerFor(platform: NodeJS.Platform): Manager {
  if (platform === "darwin") return "launchd";
  if (platform === "win32") return "windows";
  return "systemd";
}

function serviceFilePath(manager: "systemd" | "launchd", user: boolean, env: Env): string {
  const home = env.HOME || homedir();
  if (manager === "launchd") {
    return user ? join(home, "Library", "LaunchAgents", `${LAUNCHD_LABEL}.plist`) : `/Library/LaunchDaemons/${LAUNCHD_LABEL}.plist`;
  }
  if (!user) return `/etc/systemd/system/${SERVICE_NAME}.service`;
  return join(env.XDG_CONFIG_HOME?.trim() || join(home, ".config"), "systemd", "user", `${SERVICE_NAME}.service`);
}

/** A service manager command's outcome. */
interface Ran {
  ok: boolean;
  out: string;
}

async function run(cmd: string[]): Promise<Ran> {
  try {
    const proc = Bun.spawn(cmd, { stdin: "ignore", stdout: "pipe", stderr: "pipe" });
    const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
    return { ok: code === 0, out: (out + err).trim() };
  } catch (error) {
    return { ok: false, out: `${cmd[0]} could not be run: ${error instanceof Error ? error.message : String(error)}` };
  }
}

function systemctl(user: boolean, ...args: string[]): string[] {
  return ["systemctl", ...(user ? ["--user"] : []), ...args];
}

function launchDomain(user: boolean): string {
  return user ? `gui/${process.getuid?.() ?? 0}` : "system";
}

/** What install or uninstall did: whether the file changed, and what the service manager said. */
interface ServiceOutcome {
  path: string | null;
  changed: boolean;
  /** The service manager accepted the change (enabled and started, or stopped and disabled). */
  applied: boolean;
  /** What to run by hand when the manager could not be reached (or, on Windows, the steps). */
  message: string;
}

/**
 * Writes the unit or property list (atomically: a file beside it renamed over; unchanged content is
 * not rewritten) and has the service manager enable and (re)start it.
 */
export async function installService(plan: ServicePlan): Promise<ServiceOutcome> {
  if (plan.path === null) return { path: null, changed: false, applied: false, message: plan.content };
  const before = existsSync(plan.path) ? readFileSync(plan.path, "utf8") : null;
  const changed = before !== plan.content;
  if (changed) {
    mkdirSync(dirname(plan.path), { recursive: true });
    const tmp = `${plan.path}.tmp-${process.pid}`;
    writeFileSync(tmp, plan.content, { mode: 0o644 });
    renameSync(tmp, plan.path);
  }
  const steps =
    plan.manager === "systemd"
      ? [systemctl(plan.user, "daemon-reload"), systemctl(plan.user, "enable", `${SERVICE_NAME}.service`), systemctl(plan.user, "restart", `${SERVICE_NAME}.service`)]
      : [["launchctl", "bootout", `${launchDomain(plan.user)}/${LAUNCHD_LABEL}`], ["launchctl", "bootstrap", launchDomain(plan.user), plan.path]];
  for (const [i, step] of steps.entries()) {
    const r = await run(step);
    // launchd: `bootout` of a service that is not loaded fails, which is fine before a bootstrap.
    if (!r.ok && !(plan.manager === "launchd" && i === 0)) {
      const manual = steps.filter((_, j) => plan.manager === "systemd" || j > 0).map((s) => s.join(" ")).join(" && ");
      return { path: plan.path, changed, applied: false, message: `${step.join(" ")} failed: ${r.out || "no output"}. Start it by hand: ${manual}` };
    }
  }
  return { path: plan.path, changed, applied: true, message: "enabled and started" };
}

/** Stops and disables the service, then removes its file; nothing installed is not an error. */
export async function uninstallService(plan: ServicePlan): Promise<ServiceOutcome> {
  if (plan.path === null) {
    return { path: null, changed: false, applied: false, message: "schtasks /End /TN Quire\nschtasks /Delete /TN Quire /F\n(or, with NSSM: nssm stop Quire && nssm remove Quire confirm)" };
  }
  if (!existsSync(plan.path)) return { path: plan.path, changed: false, applied: true, message: "not installed" };
  const stop =
    plan.manager === "systemd"
      ? await run(systemctl(plan.user, "disable", "--now", `${SERVICE_NAME}.service`))
      : await run(["launchctl", "bootout", `${launchDomain(plan.user)}/${LAUNCHD_LABEL}`]);
  rmSync(plan.path, { force: true });
  if (plan.manager === "systemd") await run(systemctl(plan.user, "daemon-reload"));
  return {
    path: plan.path,
    changed: true,
    applied: stop.ok,
    message: stop.ok ? "stopped, disabled and removed" : `removed; the service manager said: ${stop.out || "nothing"} (a running quire keeps running until stopped: quire stop)`,
  };
}

interface ServiceStatus {
  manager: Manager;
  user: boolean;
  path: string | null;
  installed: boolean;
  /** What the service manager reports ("active", "inactive", "failed", …), or "unknown" when it cannot be asked. */
  state: string;
}

export async function serviceStatus(plan: ServicePlan): Promise<ServiceStatus> {
  const base = { manager: plan.manager, user: plan.user, path: plan.path };
  if (plan.path === null) {
    const r = await run(["schtasks", "/Query", "/TN", "Quire"]);
    return { ...base, installed: r.ok, state: r.ok ? "installed" : "unknown" };
  }
  const installed = existsSync(plan.path);
  if (!installed) return { ...base, installed, state: "not installed" };
  if (plan.manager === "systemd") {
    const r = await run(systemctl(plan.user, "is-active", `${SERVICE_NAME}.service`));
    // is-active prints the state and exits non-zero for anything but active; no output: no manager.
    const state = /^[a-z-]+$/.test(r.out) ? r.out : "unknown";
    return { ...base, installed, state };
  }
  const r = await run(["launchctl", "print", `${launchDomain(plan.user)}/${LAUNCHD_LABEL}`]);
  return { ...base, installed, state: r.ok ? (/state = running/.test(r.out) ? "active" : "inactive") : "unknown" };
}

/** The command that starts an installed service, for whoever finds quire not running. */
function startCommand(plan: ServicePlan): string {
  if (plan.manager === "systemd") return systemctl(plan.user, "start", `${SERVICE_NAME}.service`).join(" ");
  if (plan.manager === "launchd") return `launchctl kickstart ${launchDomain(plan.user)}/${LAUNCHD_LABEL}`;
  return "schtasks /Run /TN Quire";
}

/**
 * Restarts the installed service (user first, then system) that runs `binary`, after an upgrade put
 * a new executable there: the manager stops it gracefully (SIGTERM: saves flushed) and starts the
 * new one. A service that runs another executable is not this upgrade's to restart. Null when there
 * is none; otherwise what happened.
 */
export async function restartInstalledService(binary: string, env: Env = process.env, platform: NodeJS.Platform = process.platform): Promise<string | null> {
  const manager = managerFor(platform);
  if (manager === "windows") return null;
  for (const user of [true, false]) {
    const path = serviceFilePath(manager, user, env);
    if (!existsSync(path) || !runsBinary(readFileSync(path, "utf8"), binary)) continue;
    const cmd =
      manager === "systemd"
        ? systemctl(user, "try-restart", `${SERVICE_NAME}.service`)
        : ["launchctl", "kickstart", "-k", `${launchDomain(user)}/${LAUNCHD_LABEL}`];
    const r = await run(cmd);
    return r.ok ? `Restarted the service (${cmd.join(" ")}).` : `Could not restart the service (${cmd.join(" ")}: ${r.out || "no output"}); restart it by hand.`;
  }
  return null;
}

/** Whether a unit's ExecStart (or a property list's first program argument) is `binary`. */
function runsBinary(content: string, binary: string): boolean {
  const exec = /^ExecStart=("(?:[^"\\]|\\.)*"|\S+)/m.exec(content)?.[1];
  if (exec !== undefined) return exec.replace(/^"|"$/g, "").replaceAll('\\"', '"').replaceAll("\\\\", "\\").replaceAll("%%", "%").replaceAll("$$", "$") === binary;
  const first = /<key>ProgramArguments<\/key>\s*<array>\s*<string>([^<]*)<\/string>/.exec(content)?.[1];
  return first !== undefined && first.replaceAll("&quot;", '"').replaceAll("&lt;", "<").replaceAll("&gt;", ">").replaceAll("&amp;", "&") === binary;
}

/**
 * The start command of an installed service (user first, then system), or null when none is
 * installed: what `quire open` says when it finds nothing running.
 */
export function installedServiceStart(env: Env = process.env, platform: NodeJS.Platform = process.platform): { path: string; start: string } | null {
  const manager = managerFor(platform);
  if (manager === "windows") return null;
  for (const user of [true, false]) {
    const path = serviceFilePath(manager, user, env);
    if (existsSync(path)) return { path, start: startCommand({ manager, user, path, content: "" }) };
  }
  return null;
}
