import { z } from "zod";
import { closedObject, lazyInput } from "../core/validate.ts";

/** POST /api/v1/billing/checkout: the paid plan to subscribe to. */
export const checkoutInput = lazyInput(() => closedObject({
  plan: z.enum(["team", "business"], { error: "must be team or business" }),
}));

/** POST /api/v1/billing/portal: no input; an empty JSON object (or no body) is accepted. */
export const portalInput = lazyInput(() => closedObject({}));

/**
 * The parts of a payment-provider (Stripe) event this service reads, as Stripe documents them:
 * `customer.subscription.*` carry a Subscription object (status, current_period_end in Unix
 * seconds, metadata set at checkout: org_id and plan; or the price's lookup_key naming the plan).
 */
export const stripeEvent = lazyInput(() => z.looseObject({
  id: z.string().min(1).max(255),
  type: z.string().min(1).max(255),
  created: z.number().int(),
  data: z.looseObject({
    object: z.looseObject({
      id: z.string().max(255).optional(),
      customer: z.string().max(255).nullable().optional(),
      status: z.string().max(64).optional(),
      current_period_end: z.number().int().nullable().optional(),
      cancel_at_period_end: z.boolean().optional(),
      metadata: z.record(z.string(), z.string()).nullable().optional(),
      items: z
        .looseObject({ data: z.array(z.looseObject({ price: z.looseObject({ lookup_key: z.string().nullable().optional() }).optional() })) })
        .optional(),
    }),
  }),
}));
