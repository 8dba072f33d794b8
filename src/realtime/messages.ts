import { AppError } from "../core/errors.ts";

/** Every frame the server sends: one JSON text frame per event (docs/architecture.md §8). */
interface Envelope {
  type: string;
  payload: Record<string, unknown>;
  ts: string;
}

export const envelope = (type: string, payload: Record<string, unknown> = {}): string =>
  JSON.stringify({ type, payload, ts: new Date().toISOString() } satisfies Envelope);

/**
 * The live stream's one error mapper: an `error` frame with the machine code and message of an
 * application error (plus `extra` fields); anything else a client sent is an invalid message.
 */
export const errorFrame = (error: unknown, extra: Record<string, unknown> = {}): string =>
  error instanceof AppError
    ? envelope("error", { error: error.code, message: error.message, ...extra })
    : envelope("error", { error: "VALIDATION_ERROR", message: "Invalid message", ...extra });


/** Frames larger than this are refused unread. */
export const MAX_CLIENT_FRAME_BYTES = 4096;
