/**
 * `quire serve`: config → data dir → single-writer lock → database, services, workers, listen
 * (startServer) → runstate.json + control.token → one ready line on stdout. SIGTERM/SIGINT drain
 * in-flight requests (10 s), run the service closers and remove the run state; a hard deadline
 * 15 s after the signal exits with code 1 whatever is still hanging.
 */
import { defineCommand } from "citty";
import { ConfigError, loadConfig } from "../config.ts";
import { acquireLock } from "../ops/instance-lock.ts";
import { removeRunState, writeControlToken, writeRunState } from "../ops/runstate.ts";
import { startControlEndpoint, type ControlEndpoint } from "../ops/control.ts";
import { LogFile } from "../ops/log-file.ts";
import { MetricsListenError } from "../ops/metrics-listener.ts";
import { VERSION } from "../version.ts";
import { CommandError } from "./exit.ts";
import { commandLogger, dataDirArg, dataDirFrom } from "./shared.ts";

export const DRAIN_MS = 10_000;
export const SHUTDOWN_DEADLINE_MS = 15_000;

export const serveCommand = defineCommand({
  meta: { name: "serve", description: "Start the HTTP server (web editor and API)" },
  args: {
    port: { type: "string", valueHint: "port", description: "Port to listen on; overrides PORT (default 3000; 0 picks a free port)" },
    ...dataDirArg,
  },
  async run({ args }) {
    await serve({ port: args.port, dataDir: args["data-dir"] });
  },
});

export async function serve(opts: { port?: string | undefined; dataDir?: string | undefined }): Promise<void> {
  const env = { ...process.env };
  if (opts.port !== undefined) {
    if (!/^\d+$/.test(opts.port) || Number(opts.port) > 65535) {
      throw new ConfigError([`--port must be an integer from 0 to 65535 (got "${opts.port}")`]);
    }
    // The flag wins over PORT, and the default BASE_URL follows it.
    env.PORT = opts.port;
  }
  const config = loadConfig(env);
  const { path: dataDir, rule } = dataDirFrom({ "data-dir": opts.dataDir });
  const lock = acquireLock(dataDir);
  // Recent lines for `quire doctor --bundle` (docs/decisions/diagnostics.md); opened once the lock is ours.
  const logFile = new LogFile(dataDir);
  const log = commandLogger(config, {}, logFile);

  let running: Awaited<ReturnType<typeof import("../server.ts").startServer>>;
  try {
    const { startServer } = await import("../server.ts");
    running = await startServer({ config, dataDir, log });
  } catch (error) {
    logFile.flush();
    lock.release();
    if (error instanceof MetricsListenError) throw new CommandError(error.message, 1);
    if ((error as { code?: unknown }).code === "EADDRINUSE") {
      throw new CommandError(`port ${config.port} is already in use (another program listens on it); choose another with --port`);
    }
    throw error;
  }

  const cleanUp = () => {
    logFile.flush();
    removeRunState(dataDir);
    lock.release();
  };
  // A crash after this point still removes the run state; the OS releases the lock anyway.
  process.on("exit", cleanUp);
  const token = writeControlToken(dataDir);
  const startedAt = new Date().toISOString();
  // `quire stop` and `quire status` reach us here (127.0.0.1, per-boot token); `shutdown` is
  // defined below and only called after the ready line.
  let control: ControlEndpoint | undefined;
  try {
    control = startControlEndpoint({
      token,
      status: () => ({ pid: process.pid, instance_id: running.services.instanceId, version: VERSION, url: running.url, started_at: startedAt }),
      onStop: () => void shutdown("control"),
    });
  } catch (error) {
    // Without it `stop` falls back to SIGTERM for a verified instance; not a reason to refuse to serve.
    log.warn("control endpoint could not listen; `quire stop` will signal instead", { error: String(error) });
  }
  writeRunState(dataDir, {
    pid: process.pid,
    port: running.port,
    url: running.url,
    version: VERSION,
    instance_id: running.services.instanceId,
    started_at: startedAt,
    ...(control ? { control_port: control.port } : {}),
  });
  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) {
      log.warn("second signal during shutdown; exiting now", { signal });
      process.exit(1);
    }
    stopping = true;
    log.info("shutting down", { signal, drain_ms: DRAIN_MS });
    setTimeout(() => {
      log.error("shutdown deadline passed; exiting forcefully", { deadline_ms: SHUTDOWN_DEADLINE_MS });
      process.exit(1);
    }, SHUTDOWN_DEADLINE_MS);
    control?.stop();
    try {
      await running.stop(DRAIN_MS);
    } catch (error) {
      log.error("error during shutdown", { error: String(error) });
    }
    cleanUp();
    log.info("stopped");
    process.exit(0);
  };
  process.on("SIGTERM", () => void shutdown("SIGTERM"));
  process.on("SIGINT", () => void shutdown("SIGINT"));
  // Windows: Ctrl+Break in the console (what some service wrappers send); Ctrl+C arrives as SIGINT.
  if (process.platform === "win32") process.on("SIGBREAK", () => void shutdown("SIGBREAK"));

  // Announced only now, so whoever reacts to the line (a supervisor, a test) can already signal us.
  if (running.metricsPort !== undefined) log.info("metrics listening", { url: `http://127.0.0.1:${running.metricsPort}/metrics` });
  log.info("started", { url: running.url, data_dir: dataDir, data_dir_rule: rule, pid: process.pid, version: VERSION });
  process.stdout.write(`Quire ${VERSION} ready at ${running.url} (data directory: ${dataDir})\n`);
}
