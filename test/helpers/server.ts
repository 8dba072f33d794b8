import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig, type Config } from "../../src/config.ts";
import { createLogger, silentLogger, type Logger } from "../../src/core/log.ts";
import { startServer, type RunningServer } from "../../src/server.ts";

/** Environment every test server starts from: quick argon2, trusted X-Forwarded-For so each test client has its own address. */
export const TEST_ENV: Record<string, string> = {
  QUIRE_ENV: "test",
  ARGON2_MEMORY: "1024",
  ARGON2_TIME: "1",
  ARGON2_THREADS: "1",
  TRUST_PROXY: "true",
};

export function tempDir(prefix = "quire-test-"): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

export interface TestServer extends RunningServer {
  dataDir: string;
  config: Config;
  logs: string[];
  /** Stops the server and removes its data directory. */
  close(): Promise<void>;
}

/** A real server on port 0 over a fresh temporary data directory. */
export async function startTestServer(
  env: Record<string, string> = {},
  opts: { dataDir?: string; keepDir?: boolean; port?: number } = {},
): Promise<TestServer> {
  const dataDir = opts.dataDir ?? tempDir();
  const config = loadConfig({ ...TEST_ENV, ...env });
  const logs: string[] = [];
  const log: Logger = process.env.QUIRE_TEST_LOGS ? createLogger({ pretty: true }) : createLogger({ write: (l) => logs.push(l) });
  const server = await startServer({ config, dataDir, log, port: opts.port ?? 0, hostname: "127.0.0.1" });
  return {
    ...server,
    dataDir,
    config,
    logs,
    async close() {
      await server.stop(1000);
      if (!opts.keepDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export { silentLogger };

/**
 * A port free right now on 127.0.0.1, for a server whose BASE_URL must be known before it starts
 * (an OpenID provider registers its redirect URI; passkeys name their origin).
 */
export async function freePort(): Promise<number> {
  const probe = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response("") });
  const port = probe.port!;
  await probe.stop(true);
  return port;
}
