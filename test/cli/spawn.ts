/**
 * Runs the real CLI as a child process (asynchronously: a synchronous spawn would block the
 * event loop these tests also serve from) and watches a `serve` child until its ready line.
 */
import { join } from "node:path";
import { TEST_ENV } from "../helpers/server.ts";

export const REPO = join(import.meta.dir, "../..");
export const CLI = join(REPO, "src/cli.ts");

/** The test process's environment (already cleaned by the preload) plus fast argon2 and JSON logs. */
export function cliEnv(extra: Record<string, string | undefined> = {}): Record<string, string> {
  const env: Record<string, string | undefined> = { ...process.env, ...TEST_ENV, LOG_FORMAT: "json", ...extra };
  return Object.fromEntries(Object.entries(env).filter((e): e is [string, string] => e[1] !== undefined));
}

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `bun src/cli.ts ...args` (or `cmd` instead of the first two) to completion. */
export async function runCli(
  args: string[],
  opts: { env?: Record<string, string | undefined>; cwd?: string; cmd?: string[] } = {},
): Promise<CliResult> {
  const proc = Bun.spawn([...(opts.cmd ?? [process.execPath, CLI]), ...args], {
    cwd: opts.cwd ?? REPO,
    env: cliEnv(opts.env),
    stdout: "pipe",
    stderr: "pipe",
    stdin: "ignore",
  });
  const [stdout, stderr, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  return { code, stdout, stderr };
}

export interface ServeProcess {
  proc: Bun.Subprocess<"ignore", "pipe", "pipe">;
  pid: number;
  readyLine: string;
  url: string;
  /** http://127.0.0.1:<port>, independent of how "localhost" resolves. */
  base: string;
  port: number;
  /** Everything written to stderr so far (JSON log lines). */
  stderr(): string;
  /** Waits for the exit code (the process must end on its own or be signalled). */
  exited: Promise<number>;
}

/** Starts `serve --port 0 --data-dir <dataDir>` and resolves at its ready line (or rejects with its output). */
export async function startServe(
  dataDir: string | undefined,
  opts: { env?: Record<string, string | undefined>; cwd?: string; cmd?: string[]; args?: string[] } = {},
): Promise<ServeProcess> {
  const args = ["serve", "--port", "0", ...(dataDir ? ["--data-dir", dataDir] : []), ...(opts.args ?? [])];
  const proc = Bun.spawn([...(opts.cmd ?? [process.execPath, CLI]), ...args], {
    cwd: opts.cwd ?? REPO,
    env: cliEnv(opts.env),
    stdout: "pipe",
    stderr: "pipe",
    stdin: "ignore",
  });
  let err = "";
  const errDone = (async () => {
    const decoder = new TextDecoder();
    for await (const chunk of proc.stderr) err += decoder.decode(chunk, { stream: true });
  })();
  let out = "";
  const reader = proc.stdout.getReader();
  const decoder = new TextDecoder();
  const timeout = setTimeout(() => proc.kill("SIGKILL"), 15_000);
  try {
    while (!out.includes("\n")) {
      const { value, done } = await reader.read();
      if (done) break;
      out += decoder.decode(value, { stream: true });
    }
  } catch (error) {
    proc.kill("SIGKILL"); // never leave a server behind when the test cannot track it
    throw error;
  } finally {
    clearTimeout(timeout);
  }
  // Keep draining stdout so the child never blocks on a full pipe.
  void (async () => {
    while (!(await reader.read()).done);
  })().catch(() => {});
  const readyLine = out.split("\n")[0] ?? "";
  const match = /(http:\/\/\S+):(\d+)/.exec(readyLine);
  if (!match) {
    proc.kill("SIGKILL");
    const code = await proc.exited;
    await errDone;
    throw new Error(`serve did not become ready (exit ${code}):\n${out}\n${err}`);
  }
  const port = Number(match[2]);
  return {
    proc,
    pid: proc.pid,
    readyLine,
    url: `${match[1]}:${port}`,
    base: `http://127.0.0.1:${port}`,
    port,
    stderr: () => err,
    exited: proc.exited.then(async (code) => {
      await errDone;
      return code;
    }),
  };
}

/** True when nothing answers on the port any more. */
export async function refusesConnections(base: string): Promise<boolean> {
  try {
    await fetch(`${base}/api/health`, { signal: AbortSignal.timeout(1000) });
    return false;
  } catch {
    return true;
  }
}

/** Polls `check` until it returns true (or fails after `ms`). */
export async function waitFor(check: () => boolean, ms = 5000): Promise<void> {
  const until = Date.now() + ms;
  while (!check()) {
    if (Date.now() > until) throw new Error("condition not met in time");
    await Bun.sleep(10);
  }
}
