/**
 * `quire service install|uninstall|status [--user] [--port] [--data-dir] [--dry-run]`: a systemd
 * unit (Linux), a launchd property list (macOS) or the Task Scheduler steps (Windows) that start
 * `quire serve` at boot (or, with --user, at login). The files are src/service/units.ts; writing
 * and the service manager's commands src/service/manager.ts.
 */
import { defineCommand } from "citty";
import { resolveDataDir } from "../core/data-dir.ts";
import { installService, servicePlan, serviceStatus, uninstallService } from "../service/manager.ts";
import { SYSTEM_DATA_DIR } from "../service/units.ts";
import { CommandError } from "./exit.ts";
import { dataDirArg } from "./shared.ts";

const scopeArgs = {
  user: { type: "boolean", description: "A per-user service (systemd --user, a LaunchAgent) started at login, instead of a system one" },
  port: { type: "string", valueHint: "port", description: "Port the service listens on (default: $PORT, else 3000)" },
  "dry-run": { type: "boolean", description: "Print the unit or property list and where it would go; change nothing" },
  ...dataDirArg,
} as const;

type ScopeArgs = { user?: boolean; port?: string; "dry-run"?: boolean; "data-dir"?: string };

function planFrom(args: ScopeArgs) {
  const portText = args.port ?? process.env.PORT ?? "3000";
  const port = Number(portText);
  if (!/^\d+$/.test(portText) || port < 1 || port > 65535) throw new CommandError(`--port must be a port number from 1 to 65535, not ${JSON.stringify(portText)}`, 2);
  const user = args.user === true;
  // A LaunchDaemon runs as root unless given a user account made for it: on macOS, quire runs as the
  // user who installs it (a LaunchAgent, started at login), which is what a laptop needs.
  if (process.platform === "darwin" && !user) {
    throw new CommandError("on macOS the service runs as your user: quire service install --user (a system LaunchDaemon would run as root)", 2);
  }
  // A system service keeps its data where systemd keeps state; a user service where quire would.
  const dataDir = args["data-dir"] || process.env.DATA_DIR || (user || process.platform !== "linux" ? resolveDataDir(undefined).path : SYSTEM_DATA_DIR);
  const explicit = args["data-dir"] || process.env.DATA_DIR ? resolveDataDir(dataDir).path : dataDir;
  // What starts quire: this executable, or from source the runtime and this script.
  const command = Bun.main.startsWith("/$bunfs/") || /^[A-Z]:[\\/]~BUN[\\/]/i.test(Bun.main) ? [process.execPath] : [process.execPath, Bun.main];
  return servicePlan({ command, port, dataDir: explicit, user });
}

function dryRun(plan: ReturnType<typeof servicePlan>): void {
  process.stdout.write(plan.path ? `# ${plan.path}\n${plan.content}` : plan.content);
}

const install = defineCommand({
  meta: { name: "install", description: "Write and enable the service that runs `quire serve` (idempotent)" },
  args: scopeArgs,
  async run({ args }) {
    const plan = planFrom(args);
    if (args["dry-run"] || plan.path === null) return dryRun(plan);
    const outcome = await installService(plan);
    process.stdout.write(`${outcome.changed ? "Wrote" : "Unchanged:"} ${outcome.path}\n`);
    if (!outcome.applied) throw new CommandError(outcome.message, 1);
    process.stdout.write(`Service ${outcome.message}.\n`);
  },
});

const uninstall = defineCommand({
  meta: { name: "uninstall", description: "Stop, disable and remove the service" },
  args: scopeArgs,
  async run({ args }) {
    const plan = planFrom(args);
    if (args["dry-run"]) {
      process.stdout.write(plan.path ? `would remove ${plan.path}\n` : "");
      return;
    }
    const outcome = await uninstallService(plan);
    process.stdout.write(plan.path ? `${plan.path}: ${outcome.message}\n` : `${outcome.message}\n`);
  },
});

const status = defineCommand({
  meta: { name: "status", description: "Whether the service is installed and what the service manager says of it" },
  args: { ...scopeArgs, json: { type: "boolean", description: "Print the status as one JSON object" } },
  async run({ args }) {
    const s = await serviceStatus(planFrom(args));
    if (args.json) process.stdout.write(JSON.stringify(s) + "\n");
    else process.stdout.write(s.installed ? `installed: ${s.path ?? s.manager}\nstate: ${s.state}\n` : `not installed (${s.path ?? s.manager})\n`);
  },
});

export const serviceCommand = defineCommand({
  meta: { name: "service", description: "Install, remove or inspect the service that starts quire at boot or login" },
  subCommands: { install, uninstall, status },
});
