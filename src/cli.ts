#!/usr/bin/env bun
/**
 * The one entry point of the `quire` executable: a citty dispatcher. Importing this file runs
 * nothing; commands are loaded lazily so `quire --version` never pays for the server's imports.
 *
 * Adding a command: write `src/commands/<name>.ts` exporting `<name>Command` (a citty
 * `defineCommand`) and add one line to `commands` below. Commands report failure by throwing;
 * `src/commands/exit.ts` turns the error into a message on stderr and an exit code.
 */
import { defineCommand, runCommand, renderUsage, type CommandDef } from "citty";
import { VERSION } from "./version.ts";
import { exitWithError, forStream, isUsageError } from "./commands/exit.ts";

const commands: Record<string, () => Promise<CommandDef<any>>> = {
  serve: () => import("./commands/serve.ts").then((m) => m.serveCommand),
  version: () => import("./commands/version.ts").then((m) => m.versionCommand),
  "reset-password": () => import("./commands/reset-password.ts").then((m) => m.resetPasswordCommand),
  init: () => import("./commands/init.ts").then((m) => m.initCommand),
  rebuild: () => import("./commands/rebuild.ts").then((m) => m.rebuildCommand),
  status: () => import("./commands/status.ts").then((m) => m.statusCommand),
  open: () => import("./commands/open.ts").then((m) => m.openCommand),
  stop: () => import("./commands/stop.ts").then((m) => m.stopCommand),
  upgrade: () => import("./commands/upgrade.ts").then((m) => m.upgradeCommand),
  service: () => import("./commands/service.ts").then((m) => m.serviceCommand),
  doctor: () => import("./commands/doctor.ts").then((m) => m.doctorCommand),
  backup: () => import("./commands/backup.ts").then((m) => m.backupCommand),
  mcp: () => import("./commands/mcp.ts").then((m) => m.mcpCommand),
  "mcp-server": () => import("./commands/mcp-server.ts").then((m) => m.mcpServerCommand),
  export: () => import("./commands/export.ts").then((m) => m.exportCommand),
  history: () => import("./commands/history.ts").then((m) => m.historyCommand),
  restore: () => import("./commands/history.ts").then((m) => m.restoreCommand),
  preview: () => import("./commands/preview.ts").then((m) => m.previewCommand),
};

export const root = defineCommand({
  // citty prints "v" itself; VERSION already carries it.
  meta: { name: "quire", version: VERSION.replace(/^v/, ""), description: "Self-hosted documentation platform" },
  subCommands: commands,
});

/** Runs the CLI for `argv` (without the executable and script) and exits with the command's code. */
export async function main(argv: string[] = process.argv.slice(2)): Promise<void> {
  const flags = argv.slice(0, argv.includes("--") ? argv.indexOf("--") : argv.length);
  try {
    if (flags.includes("--help") || flags.includes("-h") || argv.length === 0) {
      process.stdout.write(forStream(await usage(argv), process.stdout));
      return;
    }
    // Global on every command, as the interface says: `quire <anything> --version` prints it too.
    if (flags.includes("--version") || flags.includes("-v")) {
      process.stdout.write(`quire ${VERSION}\n`);
      return;
    }
    await runCommand(root, { rawArgs: argv });
  } catch (error) {
    if (isUsageError(error)) {
      process.stderr.write(forStream(await usage(argv), process.stderr) + "\n");
    }
    exitWithError(error);
  }
}

const GLOBAL_OPTIONS = "Global options (every command): -h, --help  show help;  -v, --version  print the version";

/** Shown under each command's --help (citty has no place for examples of its own). */
export const EXAMPLES: Record<string, string[]> = {
  serve: ["quire serve --port 8080 --data-dir /srv/quire"],
  version: ["quire version --json"],
  init: ["quire init --workspace-name 'Team docs' --slug team-docs", "quire init --workspace-name Handbook --slug handbook --git-url https://github.com/acme/handbook.git --branch main"],
  rebuild: ["quire rebuild -w 01HZX3K8R2V6J9Q4T7W1Y5B0NC --search"],
  "reset-password": ["quire reset-password --email ada@example.com --base-url https://docs.example.com"],
  status: ["quire status", "quire status --json --data-dir /srv/quire"],
  open: ["quire open", "quire open --no-browser"],
  stop: ["quire stop", "quire stop --force --data-dir /srv/quire"],
  service: ["quire service install --user --port 8080", "quire service install --dry-run", "quire service status"],
  upgrade: ["quire upgrade --check", "quire upgrade", "quire upgrade --to v1.2.3 --json"],
  doctor: ["quire doctor", "quire doctor --json", "quire doctor --bundle"],
  backup: ["quire backup", "quire backup --json --data-dir /srv/quire"],
  export: ["quire export -w 01HZX3K8R2V6J9Q4T7W1Y5B0NC -o site.zip --base-url https://docs.example.com"],
  preview: ["quire preview -w handbook -p 4000 --drafts"],
  history: ["quire history -w 01HZX3K8R2V6J9Q4T7W1Y5B0NC guides/setup.md --json"],
  restore: ["quire restore -w 01HZX3K8R2V6J9Q4T7W1Y5B0NC guides/setup.md --commit 3f2a9c1b7d4e"],
};

async function usage(argv: string[]): Promise<string> {
  const [command, parent] = await commandFor(argv);
  const name = parent ? argv.find((a) => !a.startsWith("-")) : undefined;
  const examples = name ? EXAMPLES[name] : undefined;
  const block = examples ? `\n\nExamples:\n${examples.map((e) => `  ${e}`).join("\n")}` : "";
  return `${await renderUsage(command, parent)}${block}\n\n${GLOBAL_OPTIONS}\n`;
}

/** The (sub)command named by argv and its parent, for usage text. */
async function commandFor(argv: string[]): Promise<[CommandDef<any>, CommandDef<any> | undefined]> {
  const name = argv.find((a) => !a.startsWith("-"));
  const load = name === undefined ? undefined : commands[name];
  return load ? [await load(), root] : [root, undefined];
}

if (import.meta.main) await main();
