/** Pieces every command shares: the `--data-dir` flag, a logger configured from Config, the data directory of a command that reads beside a running server. */
import type { Config } from "../config.ts";
import { createLogger, type Logger } from "../core/log.ts";
import { resolveDataDir, type ResolvedDataDir } from "../core/data-dir.ts";
import type { LogFile } from "../ops/log-file.ts";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { loadConfig } from "../config.ts";
import { acquireLock, InstanceLockedError, type InstanceLock } from "../ops/instance-lock.ts";
import { CommandError } from "./exit.ts";

/** Spread into a command's `args`: every command accepts `--data-dir` (docs/architecture.md §4). */
export const dataDirArg = {
  "data-dir": {
    type: "string",
    valueHint: "dir",
    description: "Data directory (default: $DATA_DIR, else ./.quire if it exists, else the per-user data directory)",
  },
} as const;

export function dataDirFrom(args: { "data-dir"?: string | undefined }): ResolvedDataDir {
  return resolveDataDir(args["data-dir"]);
}

/**
 * JSON lines on stderr, or short human lines when stderr is a terminal (LOG_FORMAT=auto). With
 * `file` (serve), every line is also kept as JSON in the data directory's rotating log file.
 */
export function commandLogger(config: Config, base: Record<string, unknown> = {}, file?: LogFile): Logger {
  const pretty = config.log.format === "pretty" || (config.log.format === "auto" && process.stderr.isTTY === true);
  if (!file) return createLogger({ level: config.log.level, pretty }, base);
  const toStderr = (line: string) => process.stderr.write(line + "\n");
  if (!pretty) {
    return createLogger({ level: config.log.level, write: (line) => (toStderr(line), file.write(line)) }, base);
  }
  return teeLogger(createLogger({ level: config.log.level, pretty: true }, base), createLogger({ level: config.log.level, write: (l) => file.write(l) }, base));
}

function teeLogger(a: Logger, b: Logger): Logger {
  return {
    debug: (m, f) => (a.debug(m, f), b.debug(m, f)),
    info: (m, f) => (a.info(m, f), b.info(m, f)),
    warn: (m, f) => (a.warn(m, f), b.warn(m, f)),
    error: (m, f) => (a.error(m, f), b.error(m, f)),
    child: (fields) => teeLogger(a.child(fields), b.child(fields)),
    enabled: (level) => a.enabled(level) || b.enabled(level),
  };
}

/**
 * The data directory of a command that works alone or beside a running server (export, history,
 * restore): its database must exist; the lock is taken when free (null when a server holds it,
 * and the command then only reads, or works through the server).
 */
export function existingDataDir(args: { "data-dir"?: string | undefined }): { dataDir: string; dbPath: string; lock: InstanceLock | null } {
  loadConfig(process.env);
  const { path: dataDir } = dataDirFrom(args);
  const dbPath = join(dataDir, "quire.db");
  if (!existsSync(dbPath)) throw new CommandError(`No Quire database in ${dataDir} (run \`quire init\` or \`quire serve\` first)`, 1);
  let lock: InstanceLock | null = null;
  try {
    lock = acquireLock(dataDir);
  } catch (error) {
    if (!(error instanceof InstanceLockedError)) throw error;
  }
  return { dataDir, dbPath, lock };
}
