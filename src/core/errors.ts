/**
 * One error class per machine code of the error table (docs/interfaces.md §7). Services throw these;
 * each transport maps them in exactly one place (HTTP: src/http/error-response.ts,
 * MCP: src/mcp/errors.ts, CLI: src/commands/exit.ts).
 */
export const ERROR_CODES = [
  "VALIDATION_ERROR",
  "UNAUTHORIZED",
  "FORBIDDEN",
  "PLAN_LIMIT_REACHED",
  "PLAN_LIMIT",
  "SIGNUP_DISABLED",
  "NOT_FOUND",
  "CONFLICT",
  "PAYLOAD_TOO_LARGE",
  "RATE_LIMITED",
  "INTERNAL_ERROR",
  "SERVICE_UNAVAILABLE",
  "INSUFFICIENT_STORAGE",
] as const;
export type ErrorCode = (typeof ERROR_CODES)[number];

type ErrorDetails = Record<string, unknown>;

export abstract class AppError extends Error {
  abstract readonly code: ErrorCode;
  readonly details?: ErrorDetails;
  constructor(message: string, details?: ErrorDetails) {
    super(message);
    this.name = new.target.name;
    if (details !== undefined) this.details = details;
  }
}

export class ValidationError extends AppError {
  readonly code = "VALIDATION_ERROR";
  /** `field` names the offending input field, as `details.field`. */
  constructor(message: string, field?: string, details?: ErrorDetails) {
    super(message, field === undefined ? details : { field, ...details });
  }
}

export class UnauthorizedError extends AppError {
  readonly code = "UNAUTHORIZED";
  constructor(message = "Authentication required") {
    super(message);
  }
}

export class ForbiddenError extends AppError {
  readonly code = "FORBIDDEN";
  constructor(message = "You do not have permission to do this") {
    super(message);
  }
}

export class PlanLimitReachedError extends AppError {
  readonly code = "PLAN_LIMIT_REACHED";
}

export class PlanLimitError extends AppError {
  readonly code = "PLAN_LIMIT";
}

export class SignupDisabledError extends AppError {
  readonly code = "SIGNUP_DISABLED";
  constructor(message = "Sign-up is disabled on this instance; ask an administrator for an invitation") {
    super(message);
  }
}

export class NotFoundError extends AppError {
  readonly code = "NOT_FOUND";
  constructor(message = "Not found") {
    super(message);
  }
}

export class ConflictError extends AppError {
  readonly code = "CONFLICT";
  /** Extra top-level fields of the error body (the page update conflict adds its hashes). */
  readonly extra?: Record<string, unknown>;
  constructor(message: string, extra?: Record<string, unknown>, details?: ErrorDetails) {
    super(message, details);
    if (extra !== undefined) this.extra = extra;
  }
}

export class PayloadTooLargeError extends AppError {
  readonly code = "PAYLOAD_TOO_LARGE";
}

export class RateLimitedError extends AppError {
  readonly code = "RATE_LIMITED";
  constructor(
    readonly limit: number,
    readonly resetAt: number,
    readonly retryAfter: number,
  ) {
    super("Too many requests; try again later", { retry_after: retryAfter });
  }
}

export class InternalError extends AppError {
  readonly code = "INTERNAL_ERROR";
  constructor(message = "Internal server error") {
    super(message);
  }
}

/**
 * 503: something this instance depends on is not set up or did not answer (the payment provider
 * unconfigured, or refusing). Not the caller's fault and not a crash: the message says what is missing.
 */
export class ServiceUnavailableError extends AppError {
  readonly code = "SERVICE_UNAVAILABLE";
}

/**
 * 507: the data directory's filesystem is full (or over quota), so the write was refused before
 * anything changed. Not the caller's fault and not a bug: an administrator has to free space.
 */
export class InsufficientStorageError extends AppError {
  readonly code = "INSUFFICIENT_STORAGE";
  constructor(message = "The server's disk is full; nothing was saved. Ask your administrator to free space.") {
    super(message);
  }
}
