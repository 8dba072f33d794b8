import { AppError, ConflictError, PayloadTooLargeError, RateLimitedError, ValidationError, type ErrorCode } from "../core/errors.ts";
import type { Logger } from "../core/log.ts";
import { storageRefusal, type StorageHealth } from "../core/storage-errors.ts";
import { RATE_LIMIT_LIMIT, RATE_LIMIT_REMAINING, RATE_LIMIT_RESET } from "./per-request-headers.ts";

/** HTTP status of each machine code: the one place errors meet HTTP. */
export const HTTP_STATUS: Record<ErrorCode, number> = {
  VALIDATION_ERROR: 400,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  PLAN_LIMIT_REACHED: 403,
  PLAN_LIMIT: 403,
  SIGNUP_DISABLED: 403,
  NOT_FOUND: 404,
  CONFLICT: 409,
  PAYLOAD_TOO_LARGE: 413,
  RATE_LIMITED: 429,
  INTERNAL_ERROR: 500,
  SERVICE_UNAVAILABLE: 503,
  INSUFFICIENT_STORAGE: 507,
};

interface ErrorBody {
  error: ErrorCode;
  message: string;
  details?: Record<string, unknown>;
  request_id: string;
  [extra: string]: unknown;
}

function errorBody(code: ErrorCode, message: string, requestId: string, details?: Record<string, unknown>): ErrorBody {
  return { error: code, message, ...(details ? { details } : {}), request_id: requestId };
}

/**
 * Turns anything thrown into (status, body, headers). Framework errors (unknown route, bad JSON,
 * schema) become their codes; anything unexpected is logged with its stack and answered with a
 * bare 500 that names nothing internal. `storage` (the instance's) records and logs refused writes.
 */
export function toErrorResponse(
  error: unknown,
  frameworkCode: string | number | undefined,
  requestId: string,
  log: Logger,
  storage?: StorageHealth,
): { status: number; body: ErrorBody; headers: Record<string, string> } {
  // A body parser that refuses (the chunked body limit) reaches us wrapped in the framework's PARSE error.
  const cause = frameworkCode === "PARSE" ? (error as { cause?: unknown })?.cause : undefined;
  if (cause instanceof AppError) return fromAppError(cause, requestId);
  if (error instanceof AppError) return fromAppError(error, requestId);
  // A write the disk refused (full, over quota, read-only) is a 507 or 503 that says so, logged
  // once a minute as a warning: never an "unhandled error" 500 (src/core/storage-errors.ts).
  const refusal = storage ? storage.refusal(error, "http") : storageRefusal(error);
  if (refusal) return fromAppError(refusal, requestId);
  switch (frameworkCode) {
    case "NOT_FOUND":
      return { status: 404, body: errorBody("NOT_FOUND", "No such endpoint", requestId), headers: {} };
    case "PARSE":
      return {
        status: 400,
        body: errorBody("VALIDATION_ERROR", "The request body is not valid JSON or form data", requestId, { field: "body" }),
        headers: {},
      };
    case "VALIDATION": {
      const field = validationField(error) ?? "body";
      return {
        status: 400,
        body: errorBody("VALIDATION_ERROR", `Invalid value for ${field}`, requestId, { field }),
        headers: {},
      };
    }
    case "INVALID_COOKIE_SIGNATURE":
      return { status: 400, body: errorBody("VALIDATION_ERROR", "Invalid cookie", requestId, { field: "cookie" }), headers: {} };
  }
  log.error("unhandled error", { request_id: requestId, error: String(error), stack: (error as Error)?.stack });
  return { status: 500, body: errorBody("INTERNAL_ERROR", "Internal server error", requestId), headers: {} };
}

function fromAppError(error: AppError, requestId: string): { status: number; body: ErrorBody; headers: Record<string, string> } {
  const headers: Record<string, string> = {};
  if (error instanceof RateLimitedError) {
    headers["retry-after"] = String(error.retryAfter);
    headers[RATE_LIMIT_LIMIT] = String(error.limit);
    headers[RATE_LIMIT_REMAINING] = "0";
    headers[RATE_LIMIT_RESET] = String(error.resetAt);
  }
  if (error instanceof PayloadTooLargeError) headers["connection"] = "close";
  let details = error.details;
  // A validation failure that names no field is about the body as a whole (an array or a string
  // where an object belongs); say so, so clients can always point at something.
  if (error instanceof ValidationError && (details === undefined || details.field === undefined)) {
    details = { ...details, field: "body" };
  }
  const body = errorBody(error.code, error.message, requestId, details);
  if (error instanceof ConflictError && error.extra) Object.assign(body, error.extra);
  return { status: HTTP_STATUS[error.code], body, headers };
}

function validationField(error: unknown): string | undefined {
  const all = (error as { all?: Array<{ path?: string }> })?.all;
  const path = Array.isArray(all) ? all[0]?.path : undefined;
  return path ? path.replace(/^\//, "").replace(/\//g, ".") : undefined;
}
