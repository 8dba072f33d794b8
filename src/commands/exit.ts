/**
 * The CLI's one error mapper: every command throws, and this turns what it threw into a message
 * on stderr and an exit code. Codes: 1 a known failure (an application error, a refused lock),
 * 2 bad configuration or bad usage, 3 and up as individual commands define through CommandError.
 */
import { ConfigError } from "../config.ts";
import { NewerSchemaError } from "../db/newer-schema-error.ts";
import { ReleaseError } from "../releases/errors.ts";
import { AppError } from "../core/errors.ts";
import { storageRefusal } from "../core/storage-errors.ts";
import { InstanceLockedError } from "../ops/instance-lock.ts";

/** A failure a command reports itself, with its own exit code (e.g. `status`: 3 nothing running). */
export class CommandError extends Error {
  constructor(
    message: string,
    readonly exitCode = 1,
  ) {
    super(message);
    this.name = "CommandError";
  }
}

/** citty throws a CLIError (not exported) for unknown commands and missing or bad arguments. */
export function isUsageError(error: unknown): boolean {
  return error instanceof Error && error.name === "CLIError";
}

export function describeError(error: unknown): { message: string; exitCode: number } {
  if (error instanceof ConfigError) return { message: error.message, exitCode: 2 };
  if (isUsageError(error)) return { message: (error as Error).message, exitCode: 2 };
  if (error instanceof InstanceLockedError) return { message: error.message, exitCode: 1 };
  if (error instanceof CommandError) return { message: error.message, exitCode: error.exitCode };
  if (error instanceof NewerSchemaError || error instanceof ReleaseError) return { message: error.message, exitCode: 1 };
  // A disk that is full or read-only is said as such, not as an unexpected error.
  const refusal = storageRefusal(error);
  if (refusal) return { message: refusal.message, exitCode: 1 };
  if (error instanceof AppError) {
    const field = typeof error.details?.field === "string" ? ` (${error.details.field})` : "";
    return { message: `${error.message}${field}`, exitCode: 1 };
  }
  // Unknown errors are bugs: say so with the message, without a stack trace or internals.
  const message = error instanceof Error ? error.message : String(error);
  return { message: `Unexpected error: ${message}`, exitCode: 1 };
}

export function exitWithError(error: unknown): never {
  const { message, exitCode } = describeError(error);
  process.stderr.write(forStream(`quire: ${message}\n`, process.stderr));
  process.exit(exitCode);
}

/** citty colours its text unconditionally; keep escape codes away from pipes and files. */
export function forStream(text: string, stream: { isTTY?: boolean }): string {
  return stream.isTTY ? text : text.replace(/\x1b\[[0-9;]*m/g, "");
}
