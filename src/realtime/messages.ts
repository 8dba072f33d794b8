import { z } from "zod";
import { ulidString } from "../core/validate.ts";

/** Every frame the server sends: one JSON text frame per event (DESIGN.md §8). */
export interface Envelope {
  type: string;
  payload: Record<string, unknown>;
  ts: string;
}

export const envelope = (type: string, payload: Record<string, unknown> = {}): string =>
  JSON.stringify({ type, payload, ts: new Date().toISOString() } satisfies Envelope);

/** What a client may send. Anything else is answered with an `error` frame, never a close. */
export const clientMessage = z.discriminatedUnion("type", [
  z.object({ type: z.literal("ping") }),
  z.object({ type: z.literal("subscribe"), workspace_id: ulidString }),
  z.object({ type: z.literal("unsubscribe"), workspace_id: ulidString }),
]);
export type ClientMessage = z.infer<typeof clientMessage>;

/** Frames larger than this are refused unread. */
export const MAX_CLIENT_FRAME_BYTES = 4096;
