import type { Config } from "../config.ts";
import type { Db } from "../db/database.ts";
import type { Permissions } from "../access/permissions.ts";
import { Plans } from "./plans.ts";
import { Billing } from "./billing.ts";

/** The edition's plans and limits, and billing (Cloud). Built on first use (src/services.ts). */
export interface BillingServices {
  /** The edition's plans and limits (Cloud); no limits in Community. */
  plans: Plans;
  /** Billing and the other Cloud-only routes (404 in Community). */
  billing: Billing;
}

export function buildBillingServices(deps: { db: Db; config: Config; permissions: Permissions }): BillingServices {
  const { db, config } = deps;
  const plans = new Plans({ db, edition: config.edition });
  const billing = new Billing({
    db,
    plans,
    permissions: deps.permissions,
    stripe: config.stripe,
    baseUrl: config.baseUrl,
    ...(config.stripeWebhookSecret ? { webhookSecret: config.stripeWebhookSecret } : {}),
  });
  return { plans, billing };
}
