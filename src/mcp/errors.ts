import { AppError, ConflictError, ForbiddenError, NotFoundError, RateLimitedError, UnauthorizedError, ValidationError } from "../core/errors.ts";
import type { Logger } from "../core/log.ts";
import { ulid } from "../core/ids.ts";
import { InsufficientStorageError, ServiceUnavailableError } from "../core/errors.ts";
import { storageRefusal, type StorageHealth } from "../core/storage-errors.ts";

interface ToolErrorResult {
  [key: string]: unknown;
  content: Array<{ type: "text"; text: string }>;
  isError: true;
}

/**
 * The MCP transport's one error mapper: anything a tool throws becomes an `isError` result whose
 * text says what happened and what to do next, followed by the machine-readable error as JSON (the
 * same code and fields as the HTTP error body). Unknown errors are logged and named only by an id.
 */
export function toolError(error: unknown, tool: string, args: Record<string, unknown> | undefined, log: Logger, storage?: StorageHealth): ToolErrorResult {
  // A write the disk refused is named as such (src/core/storage-errors.ts), not an internal error.
  const refusal = storage ? storage.refusal(error, "mcp") : storageRefusal(error);
  if (refusal) error = refusal;
  if (error instanceof AppError) {
    const extra = error instanceof ConflictError ? error.extra : undefined;
    const body = { error: error.code, message: error.message, ...(error.details ? { details: error.details } : {}), ...extra };
    return result(`${advice(error, tool, args)}\n\n${JSON.stringify(body)}`);
  }
  const id = ulid();
  log.error("mcp tool failed", { tool, error_id: id, error: String(error), stack: (error as Error)?.stack });
  return result(`Internal error while running ${tool}; nothing is known to have changed. The server log names it ${id}.\n\n${JSON.stringify({ error: "INTERNAL_ERROR", message: "Internal server error", error_id: id })}`);
}

function result(text: string): ToolErrorResult {
  return { content: [{ type: "text", text }], isError: true };
}

function advice(error: AppError, tool: string, args: Record<string, unknown> | undefined): string {
  const path = typeof args?.path === "string" ? args.path : undefined;
  if (error instanceof ConflictError) {
    const current = error.extra?.current_hash;
    if (typeof current === "string") {
      const who = error.extra?.modified_by ? ` by ${String(error.extra.modified_by)}` : "";
      const when = error.extra?.modified_at ? ` at ${String(error.extra.modified_at)}` : "";
      return (
        `Conflict: the page${path ? ` ${path}` : ""} changed since you read it (changed${who}${when}); its current hash is ${current}. ` +
        `Read it again with quire_read_page, redo your change on the new text, and retry with last_known_hash "${current}".`
      );
    }
    return `Conflict: ${error.message}. Read the current state first (e.g. quire_read_page or quire_list_pages), then choose another name or path.`;
  }
  if (error instanceof NotFoundError) {
    if (/workspace/i.test(error.message)) {
      return `${error.message}: this API key reaches no workspace by that slug. quire_list_workspaces lists the workspaces it reaches.`;
    }
    if (/page/i.test(error.message)) {
      return `${error.message}${path ? `: ${path}` : ""}. Use quire_search (by words) or quire_list_pages (by folder) to find the page's path.`;
    }
    return `${error.message}. Check the identifier; the matching list tool shows valid ones.`;
  }
  if (error instanceof ValidationError) return `Invalid input: ${error.message}. Correct that argument and call ${tool} again.`;
  if (error instanceof ForbiddenError) {
    return `Not allowed: ${error.message}. This key acts with its owner's role in the workspace, limited by its scopes; a workspace admin can grant a higher role.`;
  }
  if (error instanceof UnauthorizedError) {
    return "The API key is no longer valid (revoked, expired or deleted). Create a new key under Settings → API keys and restart the MCP client with it.";
  }
  if (error instanceof RateLimitedError) return `Too many requests: retry in ${error.retryAfter} seconds.`;
  if (error instanceof InsufficientStorageError) {
    return `The server's disk is full: ${tool} changed nothing. Keep the content you sent; retry once an administrator has freed space (retrying sooner fails the same way).`;
  }
  if (error instanceof ServiceUnavailableError && /read-only/.test(error.message)) {
    return `The server's storage is read-only: ${tool} changed nothing. Keep the content you sent; retry once an administrator has fixed the disk.`;
  }
  return error.message;
}

