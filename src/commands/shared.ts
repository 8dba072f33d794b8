/** Pieces every command shares: the `--data-dir` flag and a logger configured from Config. */
import type { Config } from "../config.ts";
import { createLogger, type Logger } from "../core/log.ts";
import { resolveDataDir, type ResolvedDataDir } from "../core/data-dir.ts";

/** Spread into a command's `args`: every command accepts `--data-dir` (DESIGN.md §4). */
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

/** JSON lines on stderr, or short human lines when stderr is a terminal (LOG_FORMAT=auto). */
export function commandLogger(config: Config, base: Record<string, unknown> = {}): Logger {
  const pretty = config.log.format === "pretty" || (config.log.format === "auto" && process.stderr.isTTY === true);
  return createLogger({ level: config.log.level, pretty }, base);
}
