/**
 * Checkout and customer-portal sessions through Stripe's REST API. Stripe cannot be reached from
 * here, so a loopback stand-in answers as Stripe documents: form-encoded POSTs with the secret key
 * as a Bearer token, a Checkout Session / Billing Portal Session object with `url` on success, and
 * `{error: {type, code, message, param}}` with 4xx on failure (401 for a wrong key, 400
 * resource_missing for an unknown price).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHmac } from "node:crypto";
import { startTestServer, TEST_ENV, type TestServer } from "../helpers/server.ts";
import { Client } from "../helpers/client.ts";
import { registerUser, type TestUser } from "../helpers/factories.ts";
import { ConfigError, loadConfig } from "../../src/config.ts";
import { redactedConfig, scrub } from "../../src/ops/diagnostics-bundle.ts";

const KEY = "sk_test_51StandInKey0123456789";
const WEBHOOK_SECRET = "whsec_test_checkout0123";
const KNOWN_PRICES = new Set(["price_team_monthly"]);

interface Received {
  path: string;
  authorization: string | null;
  contentType: string | null;
  form: URLSearchParams;
}

/** Stripe's API as documented, for the two calls Quire makes. */
function stripeStandIn() {
  const received: Received[] = [];
  const error = (status: number, err: Record<string, string>) => Response.json({ error: err }, { status });
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(req) {
      const url = new URL(req.url);
      const form = new URLSearchParams(await req.text());
      received.push({ path: url.pathname, authorization: req.headers.get("authorization"), contentType: req.headers.get("content-type"), form });
      if (req.headers.get("authorization") !== `Bearer ${KEY}`) {
        return error(401, { type: "invalid_request_error", message: `Invalid API Key provided: sk_test_****${KEY.slice(-4)}` });
      }
      if (req.method === "POST" && url.pathname === "/v1/checkout/sessions") {
        const price = form.get("line_items[0][price]") ?? "";
        if (!KNOWN_PRICES.has(price)) {
          return error(400, { type: "invalid_request_error", code: "resource_missing", param: "line_items[0][price]", message: `No such price: '${price}'` });
        }
        const id = `cs_test_${received.length}`;
        return Response.json({ id, object: "checkout.session", mode: "subscription", status: "open", url: `https://checkout.stripe.com/c/pay/${id}` });
      }
      if (req.method === "POST" && url.pathname === "/v1/billing_portal/sessions") {
        const customer = form.get("customer");
        if (customer !== "cus_known") {
          return error(400, { type: "invalid_request_error", code: "resource_missing", param: "customer", message: `No such customer: '${customer}'` });
        }
        return Response.json({ id: "bps_1", object: "billing_portal.session", customer, return_url: form.get("return_url"), url: "https://billing.stripe.com/p/session/test_1" });
      }
      return error(404, { type: "invalid_request_error", message: `Unrecognized request URL (${req.method}: ${url.pathname})` });
    },
  });
  return { url: `http://127.0.0.1:${server.port}`, received, stop: () => server.stop(true) };
}

describe("Cloud billing with the payment provider connected", () => {
  let stripe: ReturnType<typeof stripeStandIn>;
  let server: TestServer;
  let owner: TestUser;
  beforeAll(async () => {
    stripe = stripeStandIn();
    server = await startTestServer({
      QUIRE_EDITION: "cloud",
      STRIPE_SECRET_KEY: KEY,
      STRIPE_PRICE_TEAM: "price_team_monthly",
      STRIPE_PRICE_BUSINESS: "price_business_retired",
      STRIPE_API_URL: stripe.url,
      STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET,
    });
    owner = await registerUser(server.url);
  });
  afterAll(async () => {
    await server.close();
    stripe.stop();
  });
  const orgId = () => server.services.workspaces.byId(owner.workspaceId)!.org_id;

  test("checkout returns Stripe's session address; Stripe receives the documented form fields and the Bearer key", async () => {
    const r = await owner.client.post("/api/v1/billing/checkout", { plan: "team" });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ url: expect.stringMatching(/^https:\/\/checkout\.stripe\.com\/c\/pay\/cs_test_/) });
    const got = stripe.received.at(-1)!;
    expect(got.path).toBe("/v1/checkout/sessions");
    expect(got.authorization).toBe(`Bearer ${KEY}`);
    expect(got.contentType).toBe("application/x-www-form-urlencoded");
    expect(Object.fromEntries(got.form)).toEqual({
      mode: "subscription",
      "line_items[0][price]": "price_team_monthly",
      "line_items[0][quantity]": "1",
      success_url: `${server.config.baseUrl}/?checkout=success`,
      cancel_url: `${server.config.baseUrl}/?checkout=cancelled`,
      client_reference_id: orgId(),
      "subscription_data[metadata][org_id]": orgId(),
      "subscription_data[metadata][plan]": "team",
      "metadata[org_id]": orgId(),
      customer_email: owner.email,
    });
    expect(server.logs.join("\n")).not.toContain(KEY);
  });

  test("Stripe's refusal (an unknown price) becomes a clear 503 naming Stripe's error; nothing is stored", async () => {
    const before = server.services.db.query("SELECT * FROM org_subscriptions").all();
    const r = await owner.client.post("/api/v1/billing/checkout", { plan: "business" });
    expect(r.status).toBe(503);
    expect(r.body.error).toBe("SERVICE_UNAVAILABLE");
    expect(r.body.message).toContain("No such price: 'price_business_retired'");
    expect(r.body.details).toEqual({ provider_status: 400, provider_type: "invalid_request_error", provider_code: "resource_missing" });
    expect(server.services.db.query("SELECT * FROM org_subscriptions").all()).toEqual(before);
  });

  test("the portal needs a subscription first, then opens for the organization's Stripe customer", async () => {
    const none = await owner.client.post("/api/v1/billing/portal", {});
    expect(none.status).toBe(404);
    expect(none.body.message).toContain("subscribe");

    // Stripe tells Quire the customer through the signed subscription event after checkout.
    const now = Math.floor(Date.now() / 1000);
    const payload = JSON.stringify({
      id: "evt_portal_1",
      object: "event",
      type: "customer.subscription.created",
      created: now,
      data: { object: { id: "sub_1", object: "subscription", customer: "cus_known", status: "active", metadata: { org_id: orgId(), plan: "team" } } },
    });
    const v1 = createHmac("sha256", WEBHOOK_SECRET).update(`${now}.${payload}`).digest("hex");
    const event = await new Client(server.url).request("POST", "/api/webhooks/stripe", {
      body: payload,
      headers: { "content-type": "application/json", "stripe-signature": `t=${now},v1=${v1}` },
    });
    expect(event.body.applied).toBe(true);

    const r = await owner.client.post("/api/v1/billing/portal", {});
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ url: "https://billing.stripe.com/p/session/test_1" });
    const got = stripe.received.at(-1)!;
    expect(got.path).toBe("/v1/billing_portal/sessions");
    expect(got.authorization).toBe(`Bearer ${KEY}`);
    expect(Object.fromEntries(got.form)).toEqual({ customer: "cus_known", return_url: `${server.config.baseUrl}/` });

    // Now a customer exists, checkout names it instead of an email.
    expect((await owner.client.post("/api/v1/billing/checkout", { plan: "team" })).status).toBe(200);
    const again = Object.fromEntries(stripe.received.at(-1)!.form);
    expect(again.customer).toBe("cus_known");
    expect(again.customer_email).toBeUndefined();
  });

  test("billing is the super admin's: a member of the organization gets 403 and Stripe is not called", async () => {
    const inv = await owner.client.post(`/api/v1/workspaces/${owner.workspaceId}/invitations`, { email: `viewer.${Date.now()}@example.test`, role: "viewer" });
    expect(inv.status).toBe(201);
    const member = new Client(server.url);
    const acc = await member.post("/api/auth/invitations/accept", { token: String(inv.body.url).split("/invite/")[1], name: "Viewer", password: "a viewer password here" });
    expect([200, 201]).toContain(acc.status);
    member.token = acc.body.access_token;
    // A key scoped to the owner's workspace speaks for the member inside the owner's organization.
    const key = await member.post("/api/v1/api-keys", { name: "docs", workspace_id: owner.workspaceId });
    expect(key.status).toBe(201);
    member.token = key.body.key;
    const calls = stripe.received.length;
    for (const path of ["/api/v1/billing/checkout", "/api/v1/billing/portal"]) {
      const r = await member.post(path, path.endsWith("checkout") ? { plan: "team" } : {});
      expect({ path, status: r.status, error: r.body.error }).toEqual({ path, status: 403, error: "FORBIDDEN" });
    }
    expect(stripe.received.length).toBe(calls);
  });

  test("a wrong key is reported without repeating any of it", async () => {
    const other = await startTestServer({ QUIRE_EDITION: "cloud", STRIPE_SECRET_KEY: "sk_test_WrongKey0123456789", STRIPE_PRICE_TEAM: "price_team_monthly", STRIPE_API_URL: stripe.url });
    try {
      const someone = await registerUser(other.url);
      const r = await someone.client.post("/api/v1/billing/checkout", { plan: "team" });
      expect(r.status).toBe(503);
      expect(r.body.message).toContain("STRIPE_SECRET_KEY");
      expect(JSON.stringify(r.body)).not.toContain("6789");
      expect(other.logs.join("\n")).not.toContain("sk_test_WrongKey");
    } finally {
      await other.close();
    }
  });
});

describe("Cloud billing without the payment provider", () => {
  let server: TestServer;
  let owner: TestUser;
  beforeAll(async () => {
    server = await startTestServer({ QUIRE_EDITION: "cloud" });
    owner = await registerUser(server.url);
  });
  afterAll(() => server.close());

  test("checkout and portal answer 503 SERVICE_UNAVAILABLE naming the missing setting, never 500", async () => {
    for (const [path, body] of [["/api/v1/billing/checkout", { plan: "team" }], ["/api/v1/billing/portal", {}]] as const) {
      const r = await owner.client.post(path, body);
      expect({ path, status: r.status }).toEqual({ path, status: 503 });
      expect(r.body.error).toBe("SERVICE_UNAVAILABLE");
      expect(r.body.message).toContain("STRIPE_SECRET_KEY");
      expect(r.body.request_id).toBe(r.headers.get("x-request-id"));
    }
    // Bad input is still bad input.
    expect((await owner.client.post("/api/v1/billing/checkout", { plan: "gold" })).status).toBe(400);
  });
});

describe("Community edition", () => {
  test("checkout and portal are 404 even with Stripe configured", async () => {
    const server = await startTestServer({ STRIPE_SECRET_KEY: KEY, STRIPE_PRICE_TEAM: "price_team_monthly" });
    try {
      const user = await registerUser(server.url);
      for (const path of ["/api/v1/billing/checkout", "/api/v1/billing/portal"]) {
        expect((await user.client.post(path, { plan: "team" })).status).toBe(404);
      }
    } finally {
      await server.close();
    }
  });
});

describe("start-up checks of the payment provider's settings", () => {
  const problemsOf = (env: Record<string, string>) => {
    try {
      loadConfig({ ...TEST_ENV, ...env });
      return [];
    } catch (e) {
      if (!(e instanceof ConfigError)) throw e;
      return e.problems;
    }
  };

  test("every problem is reported at once, and a malformed key is never repeated", () => {
    const problems = problemsOf({ STRIPE_SECRET_KEY: "pk_live_oops_public", STRIPE_PRICE_TEAM: "team", STRIPE_API_URL: "http://stripe.example.com" });
    expect(problems).toHaveLength(3);
    expect(problems.join("\n")).toContain("STRIPE_SECRET_KEY must be a Stripe secret or restricted key");
    expect(problems.join("\n")).toContain("STRIPE_PRICE_TEAM must be a Stripe price id");
    expect(problems.join("\n")).toContain("STRIPE_API_URL must be an https URL");
    expect(problems.join("\n")).not.toContain("pk_live_oops_public");
  });

  test("price ids without a key are refused; a complete setting is accepted", () => {
    expect(problemsOf({ STRIPE_PRICE_BUSINESS: "price_biz" })).toEqual([expect.stringContaining("STRIPE_SECRET_KEY is not")]);
    expect(problemsOf({ STRIPE_SECRET_KEY: KEY, STRIPE_PRICE_TEAM: "price_team_monthly", STRIPE_API_URL: "https://api.stripe.com/" })).toEqual([]);
    expect(loadConfig({ ...TEST_ENV, STRIPE_SECRET_KEY: KEY }).stripe.apiUrl).toBe("https://api.stripe.com");
  });

  test("the diagnostics bundle never carries the key: redacted in the configuration, scrubbed from log text", () => {
    const config = loadConfig({ ...TEST_ENV, STRIPE_SECRET_KEY: KEY, STRIPE_PRICE_TEAM: "price_team_monthly" });
    const shown = JSON.stringify(redactedConfig(config));
    expect(shown).not.toContain(KEY);
    expect(shown).toContain("price_team_monthly");
    expect(scrub(`calling with ${KEY} and whsec_abc123`)).toBe("calling with [payment provider secret] and [payment provider secret]");
  });
});
