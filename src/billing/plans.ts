/**
 * Editions and plans. Community (the default) has no plans: every feature, no limits, and no
 * billing routes at all. Cloud gives each organization a plan (Free until a subscription says
 * otherwise) whose limits the services enforce. docs/interfaces.md §7 fixes the errors (PLAN_LIMIT_REACHED for
 * seats, PLAN_LIMIT for analytics) but not the figures; they are decided in
 * docs/decisions/editions.md and listed here once.
 */
import type { Db } from "../db/database.ts";
import { PlanLimitError, PlanLimitReachedError } from "../core/errors.ts";

type Edition = "community" | "cloud";
export type PlanId = "free" | "team" | "business";
type PlanFeature = "analytics";

interface Plan {
  id: PlanId;
  name: string;
  /** People who may edit (editors and admins of any workspace, plus the organization's super admins); null: unlimited. */
  seats: number | null;
  features: PlanFeature[];
  /** Price per month in US cents (the figure shown; checkout is the payment provider's). */
  price_monthly_cents: number;
}

export const PLANS: Record<PlanId, Plan> = {
  free: { id: "free", name: "Free", seats: 3, features: [], price_monthly_cents: 0 },
  team: { id: "team", name: "Team", seats: 25, features: ["analytics"], price_monthly_cents: 4900 },
  business: { id: "business", name: "Business", seats: null, features: ["analytics"], price_monthly_cents: 19900 },
};

/** Roles that take a seat (docs/interfaces.md §3: inviting an Editor or Admin counts against the seat limit). */
const SEAT_ROLES = ["editor", "admin"] as const;

export class Plans {
  constructor(private readonly deps: { db: Db; edition: Edition }) {}

  get edition(): Edition {
    return this.deps.edition;
  }

  /** The organization's plan in Cloud (Free without an active subscription); null in Community. */
  planOf(orgId: string): Plan | null {
    if (this.deps.edition !== "cloud") return null;
    const row = this.deps.db
      .query<{ plan: PlanId; status: string }, [string]>("SELECT plan, status FROM org_subscriptions WHERE org_id = ?")
      .get(orgId);
    if (!row || !ACTIVE_STATUSES.has(row.status)) return PLANS.free;
    return PLANS[row.plan] ?? PLANS.free;
  }

  /** 403 PLAN_LIMIT when the organization's plan lacks the feature (never in Community). */
  requireFeature(orgId: string, feature: PlanFeature): void {
    const plan = this.planOf(orgId);
    if (plan && !plan.features.includes(feature)) {
      throw new PlanLimitError(`The ${plan.name} plan does not include ${feature}; upgrade to Team or Business`, {
        feature,
        plan: plan.id,
      });
    }
  }

  /**
   * Seats in use: distinct people who hold editor or admin in a live workspace of the organization,
   * are its super admins, or are invited as editor or admin (pending, unexpired) and not yet counted.
   */
  seatsUsed(orgId: string, nowIso = new Date().toISOString()): number {
    return this.deps.db
      .query<{ n: number }, [string, string, string, string]>(
        `SELECT COUNT(*) AS n FROM (
           SELECT m.user_id AS who FROM workspace_members m JOIN workspaces w ON w.id = m.workspace_id
            WHERE w.org_id = ? AND w.deleted_at IS NULL AND m.role IN ('editor', 'admin')
           UNION
           SELECT user_id FROM org_members WHERE org_id = ? AND role = 'super_admin'
           UNION
           SELECT 'invite:' || i.email_normalized FROM invitations i JOIN workspaces w ON w.id = i.workspace_id
            WHERE w.org_id = ? AND w.deleted_at IS NULL AND i.status = 'pending' AND i.expires_at > ? AND i.role IN ('editor', 'admin')
              AND NOT EXISTS (SELECT 1 FROM users u WHERE u.email_normalized = i.email_normalized
                              AND (u.id IN (SELECT m2.user_id FROM workspace_members m2 JOIN workspaces w2 ON w2.id = m2.workspace_id
                                            WHERE w2.org_id = w.org_id AND m2.role IN ('editor', 'admin'))
                                   OR u.id IN (SELECT user_id FROM org_members WHERE org_id = w.org_id AND role = 'super_admin')))
         )`,
      )
      .get(orgId, orgId, orgId, nowIso)!.n;
  }

  /**
   * 403 PLAN_LIMIT_REACHED when giving `email` (who may already hold a seat) an editor or admin
   * role would need one seat more than the plan has. Never in Community.
   */
  requireSeatFor(orgId: string, role: string, emailNormalized: string | null): void {
    const plan = this.planOf(orgId);
    if (!plan || plan.seats === null || !(SEAT_ROLES as readonly string[]).includes(role)) return;
    if (emailNormalized !== null && this.holdsSeat(orgId, emailNormalized)) return;
    const used = this.seatsUsed(orgId);
    if (used >= plan.seats) {
      throw new PlanLimitReachedError(`All ${plan.seats} seats of the ${plan.name} plan are taken; upgrade to add editors or admins`, {
        limit: "seats",
        plan: plan.id,
        seats: plan.seats,
        used,
      });
    }
  }

  /** As requireSeatFor, for a person who has an account. */
  requireSeatForUser(orgId: string, role: string, userId: string): void {
    const email = this.deps.db.query<{ e: string }, [string]>("SELECT email_normalized AS e FROM users WHERE id = ?").get(userId)?.e ?? null;
    this.requireSeatFor(orgId, role, email);
  }

  private holdsSeat(orgId: string, emailNormalized: string): boolean {
    return (
      this.deps.db
        .query<{ one: number }, [string, string, string, string, string, string]>(
          `SELECT 1 AS one FROM users u WHERE u.email_normalized = ? AND (
             u.id IN (SELECT m.user_id FROM workspace_members m JOIN workspaces w ON w.id = m.workspace_id
                      WHERE w.org_id = ? AND w.deleted_at IS NULL AND m.role IN ('editor', 'admin'))
             OR u.id IN (SELECT user_id FROM org_members WHERE org_id = ? AND role = 'super_admin'))
           UNION ALL
           SELECT 1 FROM invitations i JOIN workspaces w ON w.id = i.workspace_id
            WHERE i.email_normalized = ? AND w.org_id = ? AND w.deleted_at IS NULL AND i.status = 'pending'
              AND i.expires_at > ? AND i.role IN ('editor', 'admin')
           LIMIT 1`,
        )
        .get(emailNormalized, orgId, orgId, emailNormalized, orgId, new Date().toISOString()) !== null
    );
  }

  /** Limits and current usage, for GET /api/v1/billing/limits. */
  limits(orgId: string): { plan: PlanId; seats: { limit: number | null; used: number }; features: Record<PlanFeature, boolean> } {
    const plan = this.planOf(orgId) ?? PLANS.business;
    return {
      plan: plan.id,
      seats: { limit: plan.seats, used: this.seatsUsed(orgId) },
      features: { analytics: plan.features.includes("analytics") },
    };
  }
}

/** Subscription states (the payment provider's) in which the paid plan applies. */
const ACTIVE_STATUSES = new Set(["active", "trialing", "past_due"]);
