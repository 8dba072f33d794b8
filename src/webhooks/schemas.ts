import { z } from "zod";
import { lazyOutput } from "../core/schemas.ts";
import { CONTROL, closedObject, lazyInput } from "../core/validate.ts";

/** The events docs/interfaces.md §6 names that a webhook may subscribe to (presence is not a change worth a call). */
export const WEBHOOK_EVENTS = [
  "page-created",
  "page-updated",
  "page-deleted",
  "page-moved",
  "sync-status",
  "conflict-detected",
  "bulk-sync",
] as const;

const MAX_WEBHOOK_URL_LENGTH = 2048;

/** Shape only; where the URL may point (public addresses only) is checked by the service. */
const webhookUrl = lazyInput(() => z
  .string({ error: "is required" })
  .trim()
  .min(1, "is required")
  .max(MAX_WEBHOOK_URL_LENGTH, `must be at most ${MAX_WEBHOOK_URL_LENGTH} characters`)
  .refine((s) => !CONTROL.test(s) && !/\s/.test(s), "must not contain spaces or control characters"));

const events = lazyInput(() => z
  .array(z.enum(WEBHOOK_EVENTS, { error: `must be one of ${WEBHOOK_EVENTS.join(", ")}` }))
  .min(1, "must name at least one event")
  .max(WEBHOOK_EVENTS.length));

const description = lazyInput(() => z.string().max(200, "must be at most 200 characters").refine((s) => !CONTROL.test(s), "must not contain control characters"));

/** Restricted pages' events go only to hooks an admin marks trusted (docs/decisions/restricted-folders.md). */
const trusted = lazyInput(() => z.boolean().describe("Also sent events about pages a restriction hides from some member (default false)"));

/** POST /api/v1/workspaces/:id/webhooks */
export const createWebhookInput = lazyInput(() => closedObject({
  url: webhookUrl,
  events: events.optional(),
  active: z.boolean().optional(),
  description: description.optional(),
  trusted: trusted.optional(),
}));

/** PUT /api/v1/workspaces/:id/webhooks/:wid: the keys given are changed, the others stay. */
export const updateWebhookInput = lazyInput(() => closedObject({
  url: webhookUrl.optional(),
  events: events.optional(),
  active: z.boolean().optional(),
  description: description.optional(),
  trusted: trusted.optional(),
}));

// ---- outputs (the OpenAPI document is generated from these) ----

/** An outbound webhook definition; its secret appears only in the answer to the create. */
export const webhookOutput = lazyOutput(() => z.object({
  id: z.string().describe("ULID"),
  url: z.string(),
  events: z.array(z.enum(WEBHOOK_EVENTS)),
  active: z.boolean(),
  description: z.string(),
  trusted: z.boolean().describe("Sent events about restricted pages too; untrusted hooks get only what every member may see"),
  created_at: z.iso.datetime(),
  updated_at: z.iso.datetime(),
}));
export type WebhookOutput = z.infer<typeof webhookOutput>;

/** POST …/webhooks: the definition and its signing secret, shown this once. */
export const webhookWithSecretOutput = lazyOutput(() => webhookOutput.unwrap().extend({ secret: z.string().describe("Signs deliveries (whsec_…); shown only in this answer") }));

/** GET …/webhooks: every definition of the workspace (one page: at most 25 exist). */
export const webhookListOutput = lazyOutput(() => z.object({ items: z.array(webhookOutput), next_cursor: z.null() }));

/** GET …/webhooks/:wid/deliveries: delivery is not active, so the log is always empty. */
export const webhookDeliveryListOutput = lazyOutput(() => z.object({ items: z.array(z.never()).max(0), next_cursor: z.null() }));
