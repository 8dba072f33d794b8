/**
 * The Cloud edition's billing (the billing routes of docs/interfaces.md §3). In Community every billing and Cloud-only
 * route answers 404 NOT_FOUND, exactly like a route that does not exist (`requireCloud`).
 *
 * What works in Cloud: plans and prices, the organization's limits and usage, its subscription,
 * and the payment provider's (Stripe's) events — signature-verified with STRIPE_WEBHOOK_SECRET
 * (Stripe's documented `Stripe-Signature: t=…,v1=…` HMAC-SHA256 over `t.payload`, five-minute
 * tolerance), applied once per event id, older events never overwriting newer ones. Checkout and
 * customer-portal sessions are created through Stripe's REST API (src/billing/stripe-api.ts); without
 * STRIPE_SECRET_KEY (or the plan's price id) they answer 503 SERVICE_UNAVAILABLE saying what is
 * missing (docs/decisions/editions.md).
 */
import type { Db } from "../db/database.ts";
import { ForbiddenError, NotFoundError, ServiceUnavailableError, ValidationError } from "../core/errors.ts";
import { constantTimeEqual, hmacSha256Hex } from "../core/crypto.ts";
import { nowIso } from "../core/clock.ts";
import { parseInput } from "../core/validate.ts";
import type { Principal } from "../core/principal.ts";
import type { Permissions } from "../access/permissions.ts";
import { PLANS, type PlanId, type Plans } from "./plans.ts";
import { checkoutInput, portalInput, stripeEvent } from "./schemas.ts";
import type { StripeConfig } from "../config.ts";
import { StripeApi } from "./stripe-api.ts";

const STRIPE_TOLERANCE_SEC = 300;

export class Billing {
  constructor(
    private readonly deps: {
      db: Db;
      plans: Plans;
      permissions: Permissions;
      webhookSecret?: string;
      now?: () => number;
      stripe?: StripeConfig;
      /** BASE_URL without a trailing slash: where the provider sends the person back. */
      baseUrl?: string;
    },
  ) {}

  /** Every billing and Cloud-only route calls this first: in Community it is a route that does not exist. */
  requireCloud(): void {
    if (this.deps.plans.edition !== "cloud") throw new NotFoundError("No such endpoint");
  }

  plans() {
    this.requireCloud();
    return { items: Object.values(PLANS), currency: "usd" };
  }

  limits(principal: Principal) {
    this.requireCloud();
    return this.deps.plans.limits(principal.orgId);
  }

  subscription(principal: Principal) {
    this.requireCloud();
    this.requireOwner(principal);
    const row = this.deps.db
      .query<{ plan: PlanId; status: string; current_period_end: string | null; cancel_at_period_end: number; updated_at: string }, [string]>(
        "SELECT plan, status, current_period_end, cancel_at_period_end, updated_at FROM org_subscriptions WHERE org_id = ?",
      )
      .get(principal.orgId);
    const plan = this.deps.plans.planOf(principal.orgId)!;
    return {
      org_id: principal.orgId,
      plan: plan.id,
      status: row?.status ?? "none",
      subscribed_plan: row?.plan ?? null,
      current_period_end: row?.current_period_end ?? null,
      cancel_at_period_end: row ? row.cancel_at_period_end === 1 : false,
      updated_at: row?.updated_at ?? null,
    };
  }

  /**
   * A Stripe Checkout session for a paid plan: the organization's super admin is sent to `url`.
   * The subscription carries `metadata.org_id` and `metadata.plan`, which the signed
   * `customer.subscription.*` events bring back to set the plan (receiveStripe).
   */
  async checkout(principal: Principal, body: unknown): Promise<{ url: string }> {
    this.requireCloud();
    this.requireOwner(principal);
    const { plan } = parseInput(checkoutInput, body);
    const api = this.api();
    const price = this.deps.stripe?.prices[plan];
    if (!price) {
      throw new ServiceUnavailableError(`Checkout is not set up for the ${PLANS[plan].name} plan: STRIPE_PRICE_${plan.toUpperCase()} is not configured`, {
        missing: `STRIPE_PRICE_${plan.toUpperCase()}`,
      });
    }
    const orgId = principal.orgId;
    const known = this.customerOf(orgId);
    const base = this.deps.baseUrl ?? "";
    const fields: Array<[string, string]> = [
      ["mode", "subscription"],
      ["line_items[0][price]", price],
      ["line_items[0][quantity]", "1"],
      ["success_url", `${base}/?checkout=success`],
      ["cancel_url", `${base}/?checkout=cancelled`],
      ["client_reference_id", orgId],
      ["subscription_data[metadata][org_id]", orgId],
      ["subscription_data[metadata][plan]", plan],
      ["metadata[org_id]", orgId],
    ];
    if (known) fields.push(["customer", known]);
    else {
      const email = this.deps.db.query<{ email: string }, [string]>("SELECT email FROM users WHERE id = ?").get(principal.userId)?.email;
      if (email) fields.push(["customer_email", email]);
    }
    const session = await api.post("/v1/checkout/sessions", fields);
    return { url: session.url };
  }

  /** A Stripe customer-portal session for the organization's existing customer. */
  async portal(principal: Principal, body: unknown): Promise<{ url: string }> {
    this.requireCloud();
    this.requireOwner(principal);
    parseInput(portalInput, body ?? {});
    const api = this.api();
    const customer = this.customerOf(principal.orgId);
    if (!customer) throw new NotFoundError("This organization has no subscription with the payment provider yet; subscribe through checkout first");
    const session = await api.post("/v1/billing_portal/sessions", [
      ["customer", customer],
      ["return_url", `${this.deps.baseUrl ?? ""}/`],
    ]);
    return { url: session.url };
  }

  private customerOf(orgId: string): string | null {
    return this.deps.db.query<{ customer_id: string | null }, [string]>("SELECT customer_id FROM org_subscriptions WHERE org_id = ?").get(orgId)?.customer_id ?? null;
  }

  private api(): StripeApi {
    const cfg = this.deps.stripe;
    if (!cfg?.secretKey) {
      throw new ServiceUnavailableError("Billing is not set up on this instance: STRIPE_SECRET_KEY is not configured", { missing: "STRIPE_SECRET_KEY" });
    }
    return new StripeApi(cfg.apiUrl, cfg.secretKey);
  }

  /**
   * POST /api/webhooks/stripe. Returns what was done; a replayed event id changes nothing.
   * Events that do not concern subscriptions are acknowledged and ignored.
   */
  receiveStripe(headers: Headers, raw: Uint8Array): { received: true; applied: boolean; duplicate?: true } {
    this.requireCloud();
    const text = new TextDecoder().decode(raw);
    this.verifyStripe(headers.get("stripe-signature"), text);
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      throw new ValidationError("body: must be a JSON event", "body");
    }
    const event = parseInput(stripeEvent, json);
    const { db } = this.deps;
    return db.transaction(() => {
      const fresh = db.query("INSERT OR IGNORE INTO billing_events (id, type, received_at) VALUES (?, ?, ?)").run(event.id, event.type, nowIso()).changes;
      if (!fresh) return { received: true as const, applied: false, duplicate: true as const };
      if (!event.type.startsWith("customer.subscription.")) return { received: true as const, applied: false };
      return { received: true as const, applied: this.applySubscription(event) };
    })();
  }

  private applySubscription(event: ReturnType<typeof stripeEvent.parse>): boolean {
    const { db } = this.deps;
    const sub = event.data.object;
    const customer = sub.customer ?? null;
    const orgId =
      sub.metadata?.org_id ??
      (customer ? db.query<{ org_id: string }, [string]>("SELECT org_id FROM org_subscriptions WHERE customer_id = ?").get(customer)?.org_id : undefined);
    if (!orgId || !db.query("SELECT 1 FROM organizations WHERE id = ?").get(orgId)) return false;
    const named = sub.metadata?.plan ?? sub.items?.data[0]?.price?.lookup_key ?? null;
    const plan: PlanId = named === "team" || named === "business" ? named : "free";
    const status = event.type === "customer.subscription.deleted" ? "canceled" : (sub.status ?? "active");
    const periodEnd = sub.current_period_end ? new Date(sub.current_period_end * 1000).toISOString() : null;
    // Stripe does not promise order: an event older than the one already applied changes nothing.
    const changes = db
      .query(
        `INSERT INTO org_subscriptions (org_id, plan, status, customer_id, subscription_id, current_period_end, cancel_at_period_end, event_created, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (org_id) DO UPDATE SET plan = excluded.plan, status = excluded.status, customer_id = excluded.customer_id,
           subscription_id = excluded.subscription_id, current_period_end = excluded.current_period_end,
           cancel_at_period_end = excluded.cancel_at_period_end, event_created = excluded.event_created, updated_at = excluded.updated_at
         WHERE excluded.event_created >= org_subscriptions.event_created`,
      )
      .run(orgId, plan, status, customer, sub.id ?? null, periodEnd, sub.cancel_at_period_end ? 1 : 0, event.created, nowIso()).changes;
    return changes > 0;
  }

  private verifyStripe(header: string | null, payload: string): void {
    const secret = this.deps.webhookSecret;
    const refuse = (): never => {
      throw new ValidationError("stripe-signature: the signature does not verify", "stripe-signature");
    };
    if (!secret || !header || header.length > 2048) return refuse();
    const parts = header.split(",").map((p) => p.trim().split("="));
    const t = parts.find(([k]) => k === "t")?.[1];
    const signatures = parts.filter(([k]) => k === "v1").map(([, v]) => v ?? "");
    if (!t || !/^\d+$/.test(t) || signatures.length === 0) return refuse();
    const now = Math.floor((this.deps.now?.() ?? Date.now()) / 1000);
    if (Math.abs(now - Number(t)) > STRIPE_TOLERANCE_SEC) return refuse();
    const expected = hmacSha256Hex(secret, `${t}.${payload}`);
    if (!signatures.some((s) => constantTimeEqual(s, expected))) refuse();
  }

  private requireOwner(principal: Principal): void {
    if (!this.deps.permissions.isSuperAdminOf(principal.userId, principal.orgId)) {
      throw new ForbiddenError("Billing is managed by the organization's super admin");
    }
  }
}
