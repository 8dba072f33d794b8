import { z } from "zod";
import { lazyOutput } from "../core/schemas.ts";
import { closedObject, lazyInput } from "../core/validate.ts";

/** The first-run checklist the web app shows, in order. */
export const ONBOARDING_STEPS = ["create_page", "invite_teammate", "connect_git", "publish_site", "create_api_key"] as const;
export type OnboardingStep = (typeof ONBOARDING_STEPS)[number];

/**
 * PATCH /api/v1/users/me/onboarding: marks steps done (true) or not done (false), and hides or
 * shows the checklist. Keys not given stay as they were.
 */
export const updateOnboardingInput = lazyInput(() => closedObject({
  steps: closedObject(Object.fromEntries(ONBOARDING_STEPS.map((s) => [s, z.boolean().optional()])) as Record<OnboardingStep, z.ZodOptional<z.ZodBoolean>>).optional(),
  dismissed: z.boolean().optional(),
}));

// ---- output (the OpenAPI document is generated from it) ----

/** GET|PATCH /api/v1/users/me/onboarding: every step in order, done or not, and the checklist's state. */
export const onboardingOutput = lazyOutput(() => z.object({
  steps: z.array(z.object({ id: z.enum(ONBOARDING_STEPS), done: z.boolean(), done_at: z.iso.datetime().nullable() })),
  completed: z.boolean().describe("Every step is done"),
  dismissed: z.boolean(),
  dismissed_at: z.iso.datetime().nullable(),
  updated_at: z.iso.datetime().nullable().describe("null: the person never touched the checklist"),
}));
export type OnboardingOutput = z.infer<typeof onboardingOutput>;
