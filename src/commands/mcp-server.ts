/**
 * `quire mcp-server --addr 127.0.0.1:8081 --cors-origins …`: the MCP server over Streamable HTTP at
 * `POST /mcp` for every workspace a key reaches (Bearer API key). It is a server of its own on the
 * data directory, so it takes the instance lock; beside a running `serve` it refuses and names that
 * server's own `/mcp`, which serves the same. Exit 0 after SIGTERM/SIGINT; 1 when the data
 * directory is busy or the address is taken; 2 on bad usage or configuration.
 */
import { defineCommand } from "citty";
import { Elysia } from "elysia";
import { loadConfig, originList } from "../config.ts";
import { acquireLock, InstanceLockedError } from "../ops/instance-lock.ts";
import { readRunState } from "../ops/runstate.ts";
import { VERSION } from "../version.ts";
import { CommandError } from "./exit.ts";
import { commandLogger, dataDirArg, dataDirFrom } from "./shared.ts";

/** The two browser-based AI clients allowed by default (docs/interfaces.md §4: "a built-in list of two"). */
export const DEFAULT_MCP_ORIGINS = ["https://claude.ai", "https://chatgpt.com"];

export const mcpServerCommand = defineCommand({
  meta: { name: "mcp-server", description: "MCP server over Streamable HTTP at POST /mcp (every workspace an API key reaches)" },
  args: {
    addr: { type: "string", default: "127.0.0.1:8081", valueHint: "host:port", description: "Address to listen on (:8081 listens on every interface)" },
    "cors-origins": {
      type: "string",
      valueHint: "origins",
      description: `Browser origins allowed to call it, comma-separated (default: ${DEFAULT_MCP_ORIGINS.join(",")})`,
    },
    ...dataDirArg,
  },
  async run({ args }) {
    await mcpServer({ addr: args.addr, corsOrigins: args["cors-origins"], dataDir: args["data-dir"] });
  },
});

/** `host:port`, `:port` (every interface) or `[v6]:port`. */
export function parseAddr(addr: string): { hostname: string; port: number } {
  const m = /^(?:\[([0-9a-fA-F:.]+)\]|([A-Za-z0-9.-]*)):(\d{1,5})$/.exec(addr.trim());
  const port = m ? Number(m[3]) : NaN;
  if (!m || port > 65535) throw new CommandError(`--addr must be host:port, :port or [v6]:port (got "${addr}")`, 2);
  const host = m[1] ?? m[2] ?? "";
  return { hostname: host === "" ? "0.0.0.0" : host, port };
}

export async function mcpServer(opts: { addr: string; corsOrigins?: string | undefined; dataDir?: string | undefined }) {
  const { hostname, port } = parseAddr(opts.addr);
  const problems: string[] = [];
  const origins = opts.corsOrigins === undefined ? DEFAULT_MCP_ORIGINS : originList(opts.corsOrigins, "--cors-origins", problems);
  if (problems.length > 0) throw new CommandError(problems.join("; "), 2);
  const config = loadConfig(process.env);
  const { path: dataDir } = dataDirFrom({ "data-dir": opts.dataDir });
  const log = commandLogger(config, { command: "mcp-server" });
  let lock;
  try {
    lock = acquireLock(dataDir);
  } catch (error) {
    const state = error instanceof InstanceLockedError ? readRunState(dataDir) : null;
    if (state) throw new CommandError(`a Quire server is running on ${dataDir} (port ${state.port}); its own ${state.url.replace(/\/$/, "")}/mcp serves MCP — use it, or stop it first`, 1);
    throw error;
  }
  const { buildServices } = await import("../services.ts");
  const { httpCore, SERVER_BODY_LIMIT } = await import("../http/core.ts");
  const { healthRoutes } = await import("../http/routes/health.ts");
  const { mcpRoutes } = await import("../http/routes/mcp.ts");
  const services = await buildServices({ config, dataDir, log });
  const shown = hostname === "0.0.0.0" ? "127.0.0.1" : hostname.includes(":") ? `[${hostname}]` : hostname;
  const app = new Elysia({ serve: { maxRequestBodySize: SERVER_BODY_LIMIT, development: false } })
    .use(httpCore(services))
    .use(healthRoutes(services))
    .use(mcpRoutes(services, { origins, selfOrigin: `http://${shown}:${port}` }));
  try {
    app.listen({ hostname, port, reusePort: false });
  } catch (error) {
    lock.release();
    if ((error as { code?: unknown }).code === "EADDRINUSE") throw new CommandError(`${opts.addr} is already in use; choose another --addr`, 1);
    throw error;
  }
  const url = `http://${shown}:${app.server!.port}/mcp`;
  const stop = async () => {
    await app.server?.stop(true);
    await services.closeAll();
    lock.release();
    process.exit(0);
  };
  process.on("SIGTERM", () => void stop());
  process.on("SIGINT", () => void stop());
  log.info("started", { url, data_dir: dataDir, origins });
  process.stdout.write(`Quire ${VERSION} MCP server ready at ${url} (data directory: ${dataDir})\n`);
}
