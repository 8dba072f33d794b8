import { z } from "zod";
import { lazyOutput } from "../core/schemas.ts";
import { ulidString, lazyInput } from "../core/validate.ts";

/** Input schemas of the realtime endpoints, shared by every transport. */

/** POST /api/v1/workspaces/:id/viewing: the page the caller has open (null: none). */
export const viewingInput = lazyInput(() => z.strictObject({
  path: z.string().min(1, "must not be empty").max(512, "must be at most 512 characters").nullable(),
}));

/** What a client may send. Anything else is answered with an `error` frame, never a close. */
export const clientMessage = lazyInput(() => z.discriminatedUnion("type", [
  z.object({ type: z.literal("ping") }),
  z.object({ type: z.literal("subscribe"), workspace_id: ulidString }),
  z.object({ type: z.literal("unsubscribe"), workspace_id: ulidString }),
]));

// ---- outputs (the OpenAPI document is generated from these) ----

/** Who has which page open, since when (this server's connected people). */
export const viewingOutput = lazyOutput(() => z.object({ user_id: z.string(), path: z.string(), since: z.iso.datetime() }));
/** GET /api/v1/workspaces/:id/viewing */
export const viewingListOutput = lazyOutput(() => z.object({ items: z.array(viewingOutput), next_cursor: z.null() }));
