/**
 * Editions. Community answers 404 NOT_FOUND, in the error shape of docs/interfaces.md §7, for every billing and
 * Cloud-only route (listed here from docs/interfaces.md §3, route by route, with and without credentials).
 * Cloud turns on plan limits: seats (PLAN_LIMIT_REACHED), analytics on Free (PLAN_LIMIT), and the
 * payment provider's signed events that change an organization's plan.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHmac } from "node:crypto";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { Client } from "../helpers/client.ts";
import { registerUser, type TestUser } from "../helpers/factories.ts";
import { API_ROUTES } from "../../src/http/routes/openapi.ts";

/** docs/interfaces.md §3: the Billing table ("Cloud edition only; 404 in Community") and the GDPR rows marked "Cloud". */
const CLOUD_ONLY: Array<[method: string, path: string, specPath: string]> = [
  ["POST", "/api/v1/billing/checkout", "/api/v1/billing/checkout"],
  ["POST", "/api/v1/billing/portal", "/api/v1/billing/portal"],
  ["GET", "/api/v1/billing/subscription", "/api/v1/billing/subscription"],
  ["GET", "/api/v1/billing/plans", "/api/v1/billing/plans"],
  ["GET", "/api/v1/billing/limits", "/api/v1/billing/limits"],
  ["POST", "/api/webhooks/stripe", "/api/webhooks/stripe"],
  ["GET", "/api/v1/users/me/export", "/api/v1/users/me/export"],
  ["DELETE", "/api/v1/users/me", "/api/v1/users/me"],
  ["GET", "/api/v1/orgs/acme/export", "/api/v1/orgs/:handle/export"],
];

const WEBHOOK_SECRET = "whsec_test_0123456789abcdef";

describe("Community edition", () => {
  let server: TestServer;
  let user: TestUser;
  beforeAll(async () => {
    server = await startTestServer();
    user = await registerUser(server.url);
  });
  afterAll(() => server.close());

  test("the list matches the routes the OpenAPI document marks Cloud-only", () => {
    const documented = Object.entries(API_ROUTES).filter(([, d]) => d.cloud).map(([k]) => k).sort();
    expect(CLOUD_ONLY.map(([m, , p]) => `${m} ${p}`).sort()).toEqual(documented);
  });

  for (const [method, path] of CLOUD_ONLY) {
    test(`${method} ${path} is 404 NOT_FOUND, signed in or not, whatever the body`, async () => {
      const anonymous = new Client(server.url);
      for (const [who, client] of [["signed in", user.client], ["anonymous", anonymous]] as const) {
        const r = await client.request(method, path, method === "GET" ? {} : { json: { plan: "team", password: "x" }, headers: { "stripe-signature": "t=1,v1=00" } });
        expect({ who, status: r.status }).toEqual({ who, status: 404 });
        expect(Object.keys(r.body).sort()).toEqual(["error", "message", "request_id"]);
        expect(r.body.error).toBe("NOT_FOUND");
        expect(r.body.request_id).toBe(r.headers.get("x-request-id"));
      }
    });
  }

  test("no plan limits: analytics is included and editor invitations are not counted", async () => {
    expect((await user.client.get(`/api/v1/workspaces/${user.workspaceId}/analytics/overview`)).status).toBe(200);
    for (let i = 0; i < 5; i++) {
      const r = await user.client.post(`/api/v1/workspaces/${user.workspaceId}/invitations`, { email: `ed${i}@example.test`, role: "editor" });
      expect(r.status).toBe(201);
    }
  });
});

describe("Cloud edition", () => {
  let server: TestServer;
  let owner: TestUser;
  let now = Math.floor(Date.now() / 1000);
  beforeAll(async () => {
    server = await startTestServer({ QUIRE_EDITION: "cloud", STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET });
    owner = await registerUser(server.url);
  });
  afterAll(() => server.close());

  const orgId = () => server.services.workspaces.byId(owner.workspaceId)!.org_id;
  const invite = (email: string, role: string) => owner.client.post(`/api/v1/workspaces/${owner.workspaceId}/invitations`, { email, role });

  /** Sends an event the way Stripe does: `Stripe-Signature: t=<unix>,v1=<HMAC-SHA256 of "t.payload">`. */
  function stripe(event: Record<string, unknown>, opts: { secret?: string; t?: number } = {}) {
    const payload = JSON.stringify(event);
    const t = opts.t ?? now;
    const v1 = createHmac("sha256", opts.secret ?? WEBHOOK_SECRET).update(`${t}.${payload}`).digest("hex");
    return new Client(server.url).request("POST", "/api/webhooks/stripe", {
      body: payload,
      headers: { "content-type": "application/json", "stripe-signature": `t=${t},v1=${v1}` },
    });
  }
  const subscriptionEvent = (id: string, type: string, plan: string, status: string, created: number) => ({
    id,
    object: "event",
    type,
    created,
    data: {
      object: {
        id: "sub_123",
        object: "subscription",
        customer: "cus_123",
        status,
        current_period_end: now + 30 * 86400,
        cancel_at_period_end: false,
        metadata: { org_id: orgId(), plan },
        items: { object: "list", data: [{ price: { lookup_key: plan } }] },
      },
    },
  });

  test("plans and limits are shown; a new organization is on Free", async () => {
    const plans = await new Client(server.url).get("/api/v1/billing/plans");
    expect(plans.status).toBe(200);
    expect(plans.body.items.map((p: { id: string }) => p.id)).toEqual(["free", "team", "business"]);
    const limits = await owner.client.get("/api/v1/billing/limits");
    expect(limits.body).toEqual({ plan: "free", seats: { limit: 3, used: 1 }, features: { analytics: false } });
    const sub = await owner.client.get("/api/v1/billing/subscription");
    expect(sub.body).toMatchObject({ plan: "free", status: "none" });
  });

  test("Free: analytics is 403 PLAN_LIMIT", async () => {
    for (const report of ["pages", "searches", "overview"]) {
      const r = await owner.client.get(`/api/v1/workspaces/${owner.workspaceId}/analytics/${report}`);
      expect({ report, status: r.status, error: r.body.error }).toEqual({ report, status: 403, error: "PLAN_LIMIT" });
    }
  });

  test("Free: the fourth seat (an editor or admin invitation) is 403 PLAN_LIMIT_REACHED; viewers and resends are not counted", async () => {
    expect((await invite("e1@example.test", "editor")).status).toBe(201);
    expect((await invite("a1@example.test", "admin")).status).toBe(201);
    const full = await invite("e2@example.test", "editor");
    expect(full.status).toBe(403);
    expect(full.body).toMatchObject({ error: "PLAN_LIMIT_REACHED", details: { limit: "seats", plan: "free", seats: 3, used: 3 } });
    expect(server.services.db.query("SELECT COUNT(*) AS n FROM invitations WHERE email = 'e2@example.test'").get()).toEqual({ n: 0 });
    expect((await invite("v1@example.test", "viewer")).status).toBe(201);
    expect((await invite("e1@example.test", "editor")).status).toBe(201); // a resend holds the same seat
    expect((await owner.client.get("/api/v1/billing/limits")).body.seats).toEqual({ limit: 3, used: 3 });
  });

  test("Free, seats full: raising a member to editor, or joining through an editor share link, is PLAN_LIMIT_REACHED too", async () => {
    const invited = await invite("viewer2@example.test", "viewer");
    const token = new URL(invited.body.url).pathname.split("/").pop()!;
    const accepted = await new Client(server.url).post("/api/auth/invitations/accept", { token, name: "Vera Viewer", password: "a long passphrase" });
    expect(accepted.status).toBe(201);
    const raise = await owner.client.put(`/api/v1/workspaces/${owner.workspaceId}/admin/members/${accepted.body.user.id}/role`, { role: "editor" });
    expect(raise.status).toBe(403);
    expect(raise.body.error).toBe("PLAN_LIMIT_REACHED");
    expect((await owner.client.put(`/api/v1/workspaces/${owner.workspaceId}/admin/members/${accepted.body.user.id}/role`, { role: "commenter" })).status).toBe(200);

    const link = await owner.client.post(`/api/v1/workspaces/${owner.workspaceId}/share-links`, { role: "editor" });
    expect(link.status).toBe(201);
    const joiner = await registerUser(server.url);
    const use = await joiner.client.post(`/api/v1/share-links/${link.body.token}/use`, {});
    expect(use.status).toBe(403);
    expect(use.body.error).toBe("PLAN_LIMIT_REACHED");
    expect((await joiner.client.get(`/api/v1/workspaces/${owner.workspaceId}`)).status).toBe(404); // not joined
    const viewerLink = await owner.client.post(`/api/v1/workspaces/${owner.workspaceId}/share-links`, { role: "viewer" });
    expect((await joiner.client.post(`/api/v1/share-links/${viewerLink.body.token}/use`, {})).status).toBe(200);
  });

  test("a signed subscription event moves the organization to Team: analytics opens and seats grow; a replay changes nothing", async () => {
    const event = subscriptionEvent("evt_1", "customer.subscription.created", "team", "active", now);
    const r = await stripe(event);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ received: true, applied: true });
    expect((await stripe(event)).body).toEqual({ received: true, applied: false, duplicate: true });

    expect((await owner.client.get(`/api/v1/workspaces/${owner.workspaceId}/analytics/overview`)).status).toBe(200);
    expect((await invite("e2@example.test", "editor")).status).toBe(201);
    expect((await owner.client.get("/api/v1/billing/limits")).body).toMatchObject({ plan: "team", seats: { limit: 25, used: 4 } });
    expect((await owner.client.get("/api/v1/billing/subscription")).body).toMatchObject({ plan: "team", status: "active", subscribed_plan: "team" });

    // An older event arriving late does not undo a newer one; a cancellation returns the org to Free.
    expect((await stripe(subscriptionEvent("evt_0", "customer.subscription.updated", "team", "incomplete", now - 60))).body.applied).toBe(false);
    expect((await stripe(subscriptionEvent("evt_2", "customer.subscription.deleted", "team", "canceled", now + 1))).body.applied).toBe(true);
    expect((await owner.client.get("/api/v1/billing/limits")).body.plan).toBe("free");
    expect((await owner.client.get(`/api/v1/workspaces/${owner.workspaceId}/analytics/pages`)).status).toBe(403);
  });

  test("payment events with a wrong, missing, stale or forged signature are refused and change nothing", async () => {
    const event = subscriptionEvent("evt_forged", "customer.subscription.created", "business", "active", now + 5);
    const before = server.services.db.query("SELECT * FROM org_subscriptions").all();
    for (const r of [
      await stripe(event, { secret: "whsec_wrong" }),
      await stripe(event, { t: now - 3600 }),
      await new Client(server.url).post("/api/webhooks/stripe", event),
    ]) {
      expect(r.status).toBe(400);
      expect(r.body.error).toBe("VALIDATION_ERROR");
    }
    expect(server.services.db.query("SELECT * FROM org_subscriptions").all()).toEqual(before);
    expect(server.services.db.query("SELECT COUNT(*) AS n FROM billing_events WHERE id = 'evt_forged'").get()).toEqual({ n: 0 });
  });

  test("checkout and portal say plainly that the payment provider is not set up (503); billing is the super admin's", async () => {
    const checkout = await owner.client.post("/api/v1/billing/checkout", { plan: "team" });
    expect(checkout.status).toBe(503);
    expect(checkout.body.error).toBe("SERVICE_UNAVAILABLE");
    expect(checkout.body.message).toContain("STRIPE_SECRET_KEY");
    expect((await owner.client.post("/api/v1/billing/checkout", { plan: "gold" })).status).toBe(400);
    const other = await registerUser(server.url);
    expect((await other.client.get("/api/v1/billing/subscription")).status).toBe(200); // their own organization
    expect((await new Client(server.url).get("/api/v1/billing/limits")).status).toBe(401);
  });

  test("the organization's export is its super admin's: members, workspaces, invitations, webhooks, comments, pages; no secret", async () => {
    const handle = server.services.db.query<{ handle: string }, [string]>("SELECT handle FROM organizations WHERE id = ?").get(orgId())!.handle;
    const hook = await owner.client.post(`/api/v1/workspaces/${owner.workspaceId}/webhooks`, { url: "https://8.8.4.4/h" });
    expect((await owner.client.post(`/api/v1/content/${owner.workspaceSlug}/exported.md`, { title: "Exported" })).status).toBe(201);
    expect((await owner.client.post(`/api/v1/workspaces/${owner.workspaceId}/comments`, { page_path: "exported.md", body: "Exported remark" })).status).toBe(201);
    const stranger = await registerUser(server.url);
    expect((await stranger.client.get(`/api/v1/orgs/${handle}/export`)).status).toBe(404);
    expect((await (await registerUser(server.url)).client.get("/api/v1/orgs/no-such-org/export")).status).toBe(404);

    const r = await owner.client.get(`/api/v1/orgs/${handle}/export`);
    expect(r.status).toBe(200);
    expect(r.body.organization.handle).toBe(handle);
    expect(r.body.workspaces.map((w: { id: string }) => w.id)).toContain(owner.workspaceId);
    expect(r.body.members.map((m: { email: string }) => m.email)).toContain(owner.email);
    expect(r.body.invitations.map((i: { email: string }) => i.email)).toContain("e1@example.test");
    expect(r.body.outbound_webhooks.map((h: { id: string }) => h.id)).toEqual([hook.body.id]);
    expect(r.body.comments.map((c: { body: string }) => c.body)).toContain("Exported remark");
    expect(r.body.pages.length).toBeGreaterThan(0);
    for (const secret of [hook.body.secret, "token_hash", "webhook_secret", "password_hash"]) expect(r.text).not.toContain(secret);
    // Once a day per organization.
    expect((await owner.client.get(`/api/v1/orgs/${handle}/export`)).status).toBe(429);
  });

  test("a person's own data export holds their account and memberships, never a secret", async () => {
    const r = await owner.client.get("/api/v1/users/me/export");
    expect(r.status).toBe(200);
    expect(r.body.user.email).toBe(owner.email);
    expect(r.body.workspaces.length + r.body.organizations.length).toBeGreaterThan(0);
    expect(r.text).not.toContain("password_hash");
    expect(r.text).not.toContain(owner.accessToken);
  });
});
