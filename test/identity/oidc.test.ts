import { afterAll, afterEach, beforeAll, describe, expect, setSystemTime, test } from "bun:test";
import { freePort, startTestServer, type TestServer } from "../helpers/server.ts";
import { Client } from "../helpers/client.ts";
import { errorOf, signUp } from "./support.ts";
import { signInAtIssuer, startIssuer, type TestIssuer } from "./oidc-issuer.ts";

/**
 * External sign-in against a real OpenID provider (oidc-provider, under Node, on loopback) in the
 * Google slot: the whole authorization-code flow headlessly, and every check that must refuse.
 */
let issuer: TestIssuer;
let server: TestServer;
let base: string;
const stamp = Date.now();
const ACCOUNTS = {
  alice: { email: `alice.${stamp}@example.test`, email_verified: true, name: "Alice Issuer" },
  bob: { email: `bob.${stamp}@example.test`, email_verified: true, name: "Bob Existing" },
  eve: { email: `eve.${stamp}@example.test`, email_verified: false, name: "Eve Unverified" },
  carol: { email: `carol.${stamp}@example.test`, email_verified: true, name: "Carol Replay" },
  dan: { email: `dan.${stamp}@example.test`, email_verified: true, name: "Dan Tampered" },
};

beforeAll(async () => {
  const port = await freePort();
  base = `http://localhost:${port}`;
  issuer = await startIssuer({ redirectUris: [`${base}/api/auth/oidc/google/callback`], accounts: ACCOUNTS });
  server = await startTestServer({ ...issuer.env, BASE_URL: base }, { port });
}, 30_000);
afterAll(async () => {
  await server?.close();
  await issuer?.close();
});
afterEach(async () => {
  setSystemTime();
  await issuer.setIdTokenMode("pass");
});

/** A browser: its own address and cookie jar (the flow cookie binds the sign-in to it). */
const browser = () => new Client(server.url);

/** start → the provider's screens → the callback; returns the app URL the callback redirects to. */
async function signInVia(c: Client, login: string, opts: { link?: boolean } = {}) {
  const start = await c.post("/api/auth/oidc/google", opts.link ? { link: true } : {});
  expect(start.status).toBe(200);
  const callback = await signInAtIssuer(start.body.url, login);
  const back = await c.get(callback.pathname + callback.search);
  expect(back.status).toBe(303);
  return { start, callback, landing: new URL(back.headers.get("location")!) };
}

describe("the authorization-code flow", () => {
  test("the callback answers the status its OpenAPI entry documents (303: the browser GETs the app)", async () => {
    const doc = (await browser().get("/api/openapi.json")).body;
    const responses = doc.paths["/api/auth/oidc/{provider}/callback"].get.responses as Record<string, unknown>;
    const documented = Object.keys(responses).filter((status) => Number(status) < 400);
    // A callback the flow cookie does not back still answers with the redirect (to the sign-in screen).
    const back = await browser().get("/api/auth/oidc/google/callback?state=unknown&code=x");
    expect(new URL(back.headers.get("location")!).searchParams.get("oidc_error")).toBe("invalid_state");
    expect([back.status]).toEqual(documented.map(Number));
    expect(back.status).toBe(303);
  });

  test("providers lists the issuer under its configured name", async () => {
    const r = await browser().get("/api/auth/providers");
    expect(r.body).toEqual({ items: [{ id: "google", name: "Test ID" }] });
    expect((await browser().get("/api/auth/config")).body.providers).toEqual([{ id: "google", name: "Test ID" }]);
  });

  test("start asks for code + PKCE S256 + state + nonce at the discovered endpoint, redirect URI from BASE_URL; the flow cookie is HttpOnly", async () => {
    const c = browser();
    const r = await c.post("/api/auth/oidc/google", {}, { headers: { host: "evil.example", "x-forwarded-host": "evil.example" } });
    const url = new URL(r.body.url);
    expect(url.origin + url.pathname).toBe(`${issuer.issuer}/auth`);
    const q = url.searchParams;
    expect(q.get("response_type")).toBe("code");
    expect(q.get("code_challenge_method")).toBe("S256");
    expect(q.get("code_challenge")).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(q.get("state")!.length).toBeGreaterThanOrEqual(32);
    expect(q.get("nonce")!.length).toBeGreaterThanOrEqual(32);
    expect(q.get("redirect_uri")).toBe(`${base}/api/auth/oidc/google/callback`);
    expect(q.get("scope")).toBe("openid email profile");
    const cookie = r.headers.getSetCookie().find((h) => h.startsWith("quire_oidc="))!;
    expect(cookie).toMatch(/HttpOnly/i);
    expect(cookie).toMatch(/SameSite=Lax/i);
    expect(cookie).toMatch(/Max-Age=600/i);
  });

  test("first sign-in creates the account (own organization, starter workspace, no password); the claim code gives the token pair once", async () => {
    const c = browser();
    const t0 = performance.now();
    const { landing, callback } = await signInVia(c, "alice");
    expect(callback.searchParams.get("iss")).toBe(issuer.issuer);
    expect(landing.origin + landing.pathname).toBe(`${base}/login`);
    const code = landing.searchParams.get("oidc_code")!;
    const claimed = await c.post("/api/auth/oidc/claim", { code });
    expect(claimed.status).toBe(200);
    console.log(`[oidc] loopback round trip (start → provider → callback → claim): ${Math.round(performance.now() - t0)} ms`);
    expect(claimed.body).toEqual({ access_token: expect.any(String), refresh_token: expect.any(String), expires_in: 900 });
    expect(c.cookies.get("quire_refresh")).toBe(claimed.body.refresh_token);
    const me = await c.get("/api/auth/me", { token: claimed.body.access_token });
    expect(me.body.user).toMatchObject({ email: ACCOUNTS.alice.email, name: "Alice Issuer", email_verified: true, has_password: false });
    const ws = await c.get("/api/v1/workspaces", { token: claimed.body.access_token });
    expect(ws.body.items).toHaveLength(1);
    // A claim code is single use.
    errorOf(await c.post("/api/auth/oidc/claim", { code }), 401, "UNAUTHORIZED");

    // Signing in again finds the same account. Timed by leg: Quire's own steps apart from the provider's screens.
    const again = browser();
    const t1 = performance.now();
    const start = await again.post("/api/auth/oidc/google", {});
    const t2 = performance.now();
    const cb = await signInAtIssuer(start.body.url, "alice");
    const t3 = performance.now();
    const landed = await again.get(cb.pathname + cb.search);
    const t4 = performance.now();
    const tokens = await again.post("/api/auth/oidc/claim", { code: new URL(landed.headers.get("location")!).searchParams.get("oidc_code") });
    const t5 = performance.now();
    const f = (ms: number) => `${ms.toFixed(1)} ms`;
    console.log(`[oidc] second sign-in: start ${f(t2 - t1)}, provider screens ${f(t3 - t2)}, callback (code → tokens → ID token checks → account) ${f(t4 - t3)}, claim ${f(t5 - t4)}, total ${f(t5 - t1)}`);
    expect((await again.get("/api/auth/me", { token: tokens.body.access_token })).body.user.id).toBe(me.body.user.id);
  });

  test("a claim code expires after 60 s and only works in the browser that signed in", async () => {
    const c = browser();
    const { landing } = await signInVia(c, "alice");
    const code = landing.searchParams.get("oidc_code")!;
    // Another browser holding the code (a leaked URL) gets nothing.
    errorOf(await browser().post("/api/auth/oidc/claim", { code }), 401, "UNAUTHORIZED");
    setSystemTime(new Date(Date.now() + 61_000));
    errorOf(await c.post("/api/auth/oidc/claim", { code }), 401, "UNAUTHORIZED");
  });

  test("a verified email meeting an existing account links it; the password keeps working", async () => {
    const existing = await signUp(server.url, { email: ACCOUNTS.bob.email, name: "Bob" });
    const c = browser();
    const { landing } = await signInVia(c, "bob");
    const tokens = await c.post("/api/auth/oidc/claim", { code: landing.searchParams.get("oidc_code") });
    const me = await c.get("/api/auth/me", { token: tokens.body.access_token });
    expect(me.body.user.id).toBe(existing.id);
    expect(me.body.user.has_password).toBe(true);
    const methods = await c.get("/api/auth/methods", { token: tokens.body.access_token });
    expect(methods.body).toMatchObject({ password: true, passkeys: 0, providers: [{ id: "google", linked: true, email: ACCOUNTS.bob.email }] });
  });

  test("linking from a profile: needs a session; an identity already linked to another account is refused", async () => {
    errorOf(await browser().post("/api/auth/oidc/google", { link: true }), 401, "UNAUTHORIZED");
    // alice's identity belongs to the account her first sign-in made; another person cannot take it.
    const other = await signUp(server.url);
    const { landing } = await signInVia(other.client, "alice", { link: true });
    expect(landing.pathname).toBe("/account");
    expect(landing.searchParams.get("oidc_error")).toBe("already_linked");
    expect(server.services.identities.ofUser(other.id)).toEqual([]);
  });

  test("an unverified email meeting an existing account is refused with a clear error; nothing is linked", async () => {
    const existing = await signUp(server.url, { email: ACCOUNTS.eve.email });
    const { landing } = await signInVia(browser(), "eve");
    expect(landing.pathname).toBe("/login");
    expect(landing.searchParams.get("oidc_error")).toBe("email_unverified");
    expect(server.services.identities.ofUser(existing.id)).toEqual([]);
  });
});

/** What openid-client says for each broken ID token (the log names it for the administrator). */
const EXPECTED_REFUSAL = { tamper: "signature", audience: "aud", "old-nonce": "nonce" } as const;

describe("what must refuse", () => {
  test("a replayed state (the callback used twice) is refused", async () => {
    const c = browser();
    const start = await c.post("/api/auth/oidc/google", {});
    const callback = await signInAtIssuer(start.body.url, "carol");
    const first = await c.get(callback.pathname + callback.search);
    expect(new URL(first.headers.get("location")!).searchParams.has("oidc_code")).toBe(true);
    const replay = await c.get(callback.pathname + callback.search);
    expect(new URL(replay.headers.get("location")!).searchParams.get("oidc_error")).toBe("invalid_state");
  });

  test("a state from another browser (no flow cookie, or another one) is refused", async () => {
    const c = browser();
    const start = await c.post("/api/auth/oidc/google", {});
    const callback = await signInAtIssuer(start.body.url, "carol");
    const other = browser();
    await other.post("/api/auth/oidc/google", {});
    const r = await other.get(callback.pathname + callback.search);
    expect(new URL(r.headers.get("location")!).searchParams.get("oidc_error")).toBe("invalid_state");
  });

  test("a flow older than 10 minutes is refused", async () => {
    const c = browser();
    const start = await c.post("/api/auth/oidc/google", {});
    const callback = await signInAtIssuer(start.body.url, "carol");
    setSystemTime(new Date(Date.now() + 10 * 60_000 + 1000));
    const r = await c.get(callback.pathname + callback.search);
    expect(new URL(r.headers.get("location")!).searchParams.get("oidc_error")).toBe("invalid_state");
  });

  test("a callback whose iss is not the issuer is refused", async () => {
    const c = browser();
    const start = await c.post("/api/auth/oidc/google", {});
    const callback = await signInAtIssuer(start.body.url, "carol");
    callback.searchParams.set("iss", "http://127.0.0.1:1/other-issuer");
    const r = await c.get(callback.pathname + callback.search);
    expect(new URL(r.headers.get("location")!).searchParams.get("oidc_error")).toBe("provider_error");
  });

  for (const [mode, what] of [
    ["tamper", "an ID token changed after signing (bad signature)"],
    ["audience", "a validly signed ID token for another client (wrong audience)"],
    ["old-nonce", "a validly signed ID token carrying an earlier sign-in's nonce (replayed nonce)"],
  ] as const) {
    test(`${what} is refused and signs nobody in`, async () => {
      // An earlier sign-in, so the provider has a nonce to replay.
      await signInVia(browser(), "carol");
      await issuer.setIdTokenMode(mode);
      const before = server.services.db.query("SELECT COUNT(*) AS n FROM users").get();
      const { landing } = await signInVia(browser(), "dan");
      expect(landing.searchParams.get("oidc_error")).toBe("provider_error");
      expect(landing.searchParams.has("oidc_code")).toBe(false);
      expect(server.services.db.query("SELECT COUNT(*) AS n FROM users").get()).toEqual(before);
      const refusal = server.logs.filter((l) => l.includes("external sign-in refused")).at(-1)!;
      expect(refusal).toContain(EXPECTED_REFUSAL[mode]);
    });
  }

  test("a declined consent comes back as cancelled; an unknown provider is 404", async () => {
    const c = browser();
    const start = await c.post("/api/auth/oidc/google", {});
    const state = new URL(start.body.url).searchParams.get("state")!;
    const r = await c.get(`/api/auth/oidc/google/callback?error=access_denied&state=${state}`);
    expect(new URL(r.headers.get("location")!).searchParams.get("oidc_error")).toBe("cancelled");
    expect((await c.post("/api/auth/oidc/github", {})).status).toBe(404);
    expect((await c.post("/api/auth/oidc/nope", {})).status).toBe(400);
  });

  test("no secret reaches the log", async () => {
    const joined = server.logs.join("\n");
    expect(joined).not.toContain(issuer.clientSecret);
    expect(joined).not.toContain("oidc_code=");
  });
});
