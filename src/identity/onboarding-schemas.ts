import { z } from "zod";
import { closedObject } from "../core/validate.ts";

/** The first-run checklist the web app shows, in order. */
export const ONBOARDING_STEPS = ["create_page", "invite_teammate", "connect_git", "publish_site", "create_api_key"] as const;
export type OnboardingStep = (typeof ONBOARDING_STEPS)[number];

/**
 * PATCH /api/v1/users/me/onboarding: marks steps done (true) or not done (false), and hides or
 * shows the checklist. Keys not given stay as they were.
 */
export const updateOnboardingInput = closedObject({
  steps: z.partialRecord(z.enum(ONBOARDING_STEPS, { error: `must be one of ${ONBOARDING_STEPS.join(", ")}` }), z.boolean()).optional(),
  dismissed: z.boolean().optional(),
});
