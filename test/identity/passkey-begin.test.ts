import { afterAll, beforeAll, expect, test } from "bun:test";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { Client } from "../helpers/client.ts";
import { errorOf, signUp } from "./support.ts";

/** The passkey endpoints without a browser: what they answer before any authenticator is involved. */
let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ WEBAUTHN_RP_ID: "localhost", BASE_URL: "http://localhost:3000" });
});
afterAll(() => server.close());

test("login/begin: discoverable without an email; with one, an unknown address looks like a known one", async () => {
  const open = await new Client(server.url).post("/api/auth/webauthn/login/begin", {});
  expect(open.status).toBe(200);
  expect(open.body).toMatchObject({ rpId: "localhost", allowCredentials: [], userVerification: "preferred", timeout: 300_000 });
  expect(open.body.challenge).toMatch(/^[A-Za-z0-9_-]{43}$/);
  const known = await signUp(server.url);
  const a = await new Client(server.url).post("/api/auth/webauthn/login/begin", { email: known.email });
  const b = await new Client(server.url).post("/api/auth/webauthn/login/begin", { email: "nobody.here@example.test" });
  const again = await new Client(server.url).post("/api/auth/webauthn/login/begin", { email: "Nobody.Here@example.test" });
  expect(a.body.allowCredentials).toHaveLength(1);
  expect(b.body.allowCredentials).toHaveLength(1);
  expect(Object.keys(a.body).sort()).toEqual(Object.keys(b.body).sort());
  // Stable per address, so asking twice tells nothing either.
  expect(again.body.allowCredentials[0].id).toBe(b.body.allowCredentials[0].id);
  expect(server.services.db.query("SELECT COUNT(*) AS n FROM webauthn_challenges WHERE kind = 'login'").get()).toEqual({ n: 4 });
});

test("register/begin needs a session and answers the creation options for a resident key; finish refuses an unknown challenge", async () => {
  errorOf(await new Client(server.url).post("/api/auth/webauthn/register/begin", {}), 401, "UNAUTHORIZED");
  const u = await signUp(server.url);
  const r = await u.client.post("/api/auth/webauthn/register/begin", {});
  expect(r.body).toMatchObject({ rp: { id: "localhost", name: "Quire" }, user: { name: u.email }, attestation: "none", authenticatorSelection: { residentKey: "required" } });
  const forged = {
    response: {
      id: "AAAA",
      rawId: "AAAA",
      type: "public-key",
      response: { clientDataJSON: Buffer.from(JSON.stringify({ type: "webauthn.create", challenge: "made-up", origin: "http://localhost:3000" })).toString("base64url"), attestationObject: "AA" },
      clientExtensionResults: {},
    },
  };
  errorOf(await u.client.post("/api/auth/webauthn/register/finish", forged), 400, "VALIDATION_ERROR");
  errorOf(await new Client(server.url).post("/api/auth/webauthn/login/finish", { response: forged.response }), 401, "UNAUTHORIZED");
  expect(server.services.db.query("SELECT COUNT(*) AS n FROM webauthn_credentials").get()).toEqual({ n: 0 });
});

test("without WEBAUTHN_RP_ID the passkey routes are 404", async () => {
  const off = await startTestServer();
  try {
    errorOf(await new Client(off.url).post("/api/auth/webauthn/login/begin", {}), 404, "NOT_FOUND");
    expect((await new Client(off.url).get("/api/auth/config")).body.passkeys).toBe(false);
  } finally {
    await off.close();
  }
});
