import { z } from "zod";

/** Input schemas of the realtime endpoints, shared by every transport. */

/** POST /api/v1/workspaces/:id/viewing: the page the caller has open (null: none). */
export const viewingInput = z.strictObject({
  path: z.string().min(1, "must not be empty").max(512, "must be at most 512 characters").nullable(),
});
