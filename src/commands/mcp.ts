/**
 * `quire mcp -w <slug> --api-key <key>`: the MCP server on stdin/stdout for one workspace, for
 * local agents (Claude Desktop, Claude Code, Cursor, VS Code). stdout carries JSON-RPC only; logs
 * go to stderr. Alone on its data directory it takes the instance lock and runs the services
 * itself; beside a running `serve` it sends every call to that server's `/mcp` over loopback
 * (docs/architecture.md §4: one writer per data directory). Exit 0 when the client closes stdin; 1 when the
 * key or workspace is refused or the data directory is busy; 2 on bad usage or configuration.
 */
import { defineCommand } from "citty";
import { loadConfig } from "../config.ts";
import { NotFoundError, UnauthorizedError } from "../core/errors.ts";
import { InstanceLockedError, tryLock } from "../ops/instance-lock.ts";
import { readRunState } from "../ops/runstate.ts";
import { CommandError } from "./exit.ts";
import { commandLogger, dataDirArg, dataDirFrom } from "./shared.ts";
import type { Services } from "../services.ts";

export const mcpCommand = defineCommand({
  meta: { name: "mcp", description: "MCP server on stdin/stdout for one workspace (for local AI agents)" },
  args: {
    workspace: { type: "string", alias: "w", required: true, valueHint: "slug", description: "Workspace slug" },
    "api-key": { type: "string", valueHint: "key", description: "API key (default: $QUIRE_API_KEY)" },
    ...dataDirArg,
  },
  async run({ args }) {
    await mcpStdio({ workspace: args.workspace, apiKey: args["api-key"], dataDir: args["data-dir"] });
  },
});

export async function mcpStdio(opts: { workspace: string; apiKey?: string | undefined; dataDir?: string | undefined }): Promise<void> {
  const key = opts.apiKey ?? process.env.QUIRE_API_KEY;
  if (key === undefined || key.trim() === "") throw new CommandError("an API key is required: pass --api-key or set QUIRE_API_KEY", 2);
  const slug = opts.workspace.trim();
  const config = loadConfig(process.env);
  const { path: dataDir } = dataDirFrom({ "data-dir": opts.dataDir });
  const log = commandLogger(config, { command: "mcp" });
  const { serveOnStdio, localServer } = await import("../mcp/stdio.ts");
  const onError = (error: Error) => log.debug("mcp transport", { error: error.message });

  const lock = tryLock(dataDir);
  if (lock === null) {
    const state = readRunState(dataDir);
    if (state === null) throw new InstanceLockedError(dataDir);
    const { RemoteMcp, remoteServer } = await import("../mcp/remote.ts");
    const remote = new RemoteMcp(`http://127.0.0.1:${state.port}/mcp`, key.trim());
    let factory;
    try {
      factory = await remoteServer(remote, slug);
    } catch (error) {
      throw startRefusal(error, slug);
    }
    log.info("serving MCP through the running server", { port: state.port, workspace: slug });
    await serveOnStdio(factory, onError);
    process.exit(0);
  }

  // The handshake and tools/list need only the key, its rights and the tool schemas: they are
  // answered from this small core while the other services (git, search, publishing, sign-in, …)
  // are neither imported nor built. Those are built on the first message that needs them, or after
  // 2 s, whichever comes first; the start-up reconcile (files changed while nothing ran) begins
  // as soon as they exist, so every tool call meets it as before: started, in the background.
  let core;
  try {
    const { openLocalCore } = await import("../mcp/local-core.ts");
    core = openLocalCore({ config, dataDir, log });
  } catch (error) {
    lock.release();
    throw error;
  }
  const opened = core;
  let building: Promise<Services> | undefined;
  let closing = false;
  const shutdown = async (code: number) => {
    if (closing) return;
    closing = true;
    const built = building ? await building.catch(() => null) : null;
    if (built) await built.closeAll();
    else opened.db.close();
    lock.release();
    process.exit(code);
  };
  const services = (): Promise<Services> =>
    (building ??= import("../services.ts")
      .then(({ buildServices }) => buildServices({ config, dataDir, log, db: opened.db, deferStartupReconcile: true }))
      .then((built) => {
        built.reconciler.startBackground();
        return built;
      })
      .catch((error: unknown) => {
        // As when they were built at start: the reason on stderr, exit 1.
        process.stderr.write(`quire: could not start the MCP server: ${(error as Error).message}\n`);
        void shutdown(1);
        throw error;
      }));
  process.on("SIGTERM", () => void shutdown(0));
  process.on("SIGINT", () => void shutdown(0));
  let factory;
  try {
    factory = localServer(opened, services, key.trim(), slug);
  } catch (error) {
    const refusal = startRefusal(error, slug);
    process.stderr.write(`quire: ${refusal.message}\n`);
    await shutdown(refusal.exitCode);
    return;
  }
  log.info("serving MCP", { workspace: slug, data_dir: dataDir });
  const timer = setTimeout(() => void services().catch(() => {}), 2000);
  const onMessage = (method: string | undefined) => {
    if (method !== undefined && NO_SERVICES.has(method)) return;
    clearTimeout(timer);
    void services().catch(() => {});
  };
  await serveOnStdio(factory, onError, onMessage);
  clearTimeout(timer);
  await shutdown(0);
}

/** Messages answered without the services (no page is touched): they neither build them nor start the reconcile. */
const NO_SERVICES = new Set(["initialize", "notifications/initialized", "server/discover", "tools/list", "prompts/list", "prompts/get", "resources/templates/list", "ping"]);

function startRefusal(error: unknown, slug: string): CommandError {
  if (error instanceof UnauthorizedError) return new CommandError("the API key is not valid (unknown, revoked or expired)", 1);
  if (error instanceof NotFoundError || /not found|not reachable/i.test((error as Error).message)) {
    return new CommandError(`workspace "${slug}" does not exist or this API key cannot reach it`, 1);
  }
  if (error instanceof CommandError) return error;
  return new CommandError(`could not start the MCP server: ${(error as Error).message}`, 1);
}
