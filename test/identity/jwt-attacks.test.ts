import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHmac, createPublicKey } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { SignJWT, generateKeyPair, importPKCS8, type CryptoKey } from "jose";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { Client } from "../helpers/client.ts";
import { cookieAttributes, errorOf, setCookie, signUp, type Registered } from "./support.ts";

let server: TestServer;
let user: Registered;
let realKey: CryptoKey;
/** The claims of the user's real token: sub, sid, org. */
let claims: { sub: string; sid: string; org: string };

beforeAll(async () => {
  server = await startTestServer();
  user = await signUp(server.url);
  realKey = await importPKCS8(readFileSync(join(server.dataDir, "jwt-private.pem"), "utf8"), "RS256");
  const payload = decode(user.accessToken).payload;
  claims = { sub: payload.sub, sid: payload.sid, org: payload.org };
});
afterAll(() => server.close());

const b64url = (v: unknown) => Buffer.from(typeof v === "string" ? v : JSON.stringify(v)).toString("base64url");
function decode(token: string): { header: any; payload: any } {
  const [h, p] = token.split(".");
  return { header: JSON.parse(Buffer.from(h!, "base64url").toString()), payload: JSON.parse(Buffer.from(p!, "base64url").toString()) };
}

/** A token with the real claims, signed with `key` and the given overrides. */
async function sign(key: CryptoKey, over: { aud?: string; iss?: string; exp?: number; iat?: number; sid?: string; sub?: string } = {}) {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ sid: over.sid ?? claims.sid, org: claims.org })
    .setProtectedHeader({ alg: "RS256", typ: "JWT" })
    .setSubject(over.sub ?? claims.sub)
    .setIssuer(over.iss ?? server.config.baseUrl)
    .setAudience(over.aud ?? "quire")
    .setIssuedAt(over.iat ?? now)
    .setExpirationTime(over.exp ?? now + 900)
    .sign(key);
}

/** Every forged credential must leave the caller anonymous: 401 on an endpoint that needs a caller. */
async function expectRefused(token: string) {
  const r = await new Client(server.url).get("/api/auth/me", { token });
  errorOf(r, 401, "UNAUTHORIZED");
  expect(r.text).not.toContain(user.email);
}

describe("access-token attacks", () => {
  test("control: a token signed with the server's key and the right claims is accepted", async () => {
    const r = await new Client(server.url).get("/api/auth/me", { token: await sign(realKey) });
    expect(r.status).toBe(200);
    expect(r.body.user.id).toBe(user.id);
  });

  test("an expired token is refused", async () => {
    const now = Math.floor(Date.now() / 1000);
    await expectRefused(await sign(realKey, { iat: now - 1000, exp: now - 60 }));
  });

  test("a token signed by another RSA key is refused", async () => {
    const { privateKey } = await generateKeyPair("RS256");
    await expectRefused(await sign(privateKey));
  });

  test("alg none is refused, with or without a signature part", async () => {
    const { payload } = decode(user.accessToken);
    const unsigned = `${b64url({ alg: "none", typ: "JWT" })}.${b64url(payload)}`;
    await expectRefused(`${unsigned}.`);
    await expectRefused(unsigned);
    await expectRefused(`${b64url({ alg: "NONE", typ: "JWT" })}.${b64url(payload)}.`);
  });

  test("HS256 signed with the server's public key is refused (key confusion)", async () => {
    const { payload } = decode(user.accessToken);
    // The public key as an attacker would know it: PEM text (and its DER bytes) as the HMAC secret.
    const publicPem = createPublicKey(readFileSync(join(server.dataDir, "jwt-private.pem"), "utf8"))
      .export({ type: "spki", format: "pem" })
      .toString();
    for (const secret of [publicPem, publicPem.trim(), Buffer.from(publicPem.replace(/-----[^-]+-----|\s/g, ""), "base64")]) {
      const input = `${b64url({ alg: "HS256", typ: "JWT" })}.${b64url(payload)}`;
      const sig = createHmac("sha256", secret).update(input).digest("base64url");
      await expectRefused(`${input}.${sig}`);
    }
  });

  test("a tampered payload (another user, a later expiry) breaks the signature", async () => {
    const other = await signUp(server.url);
    const [h, p, s] = user.accessToken.split(".");
    const payload = JSON.parse(Buffer.from(p!, "base64url").toString());
    await expectRefused(`${h}.${b64url({ ...payload, sub: other.id })}.${s}`);
    await expectRefused(`${h}.${b64url({ ...payload, exp: payload.exp + 86400 })}.${s}`);
    // Flipping one character of the signature.
    await expectRefused(`${h}.${p}.${s!.slice(0, -2)}${s!.endsWith("AA") ? "BB" : "AA"}`);
  });

  test("a wrong audience or issuer is refused, even with a valid signature", async () => {
    await expectRefused(await sign(realKey, { aud: "someone-else" }));
    await expectRefused(await sign(realKey, { aud: "quire-ws" }));
    await expectRefused(await sign(realKey, { iss: "https://evil.example" }));
  });

  test("the WebSocket cookie token cannot be used as a Bearer token", async () => {
    const r = await user.client.post("/api/auth/ws-token");
    expect(r.status).toBe(204);
    const wsToken = decodeURIComponent(cookieAttributes(setCookie(r.headers, "quire_ws_token")!).value);
    expect(decode(wsToken).payload.sub).toBe(user.id);
    await expectRefused(wsToken);
  });

  test("a token whose session was revoked, or never existed, is refused", async () => {
    // A validly signed token naming a session that does not exist.
    await expectRefused(await sign(realKey, { sid: "01ARZ3NDEKTSV4RRFFQ69G5FAV" }));
    // A real session, logged out.
    const victim = await signUp(server.url);
    expect((await victim.client.get("/api/auth/me")).status).toBe(200);
    expect((await victim.client.post("/api/auth/logout")).status).toBe(204);
    await expectRefused(victim.accessToken);
  });

  test("garbage is refused", async () => {
    for (const token of ["garbage", "a.b.c", "..", "eyJ.eyJ.sig", "x".repeat(9000), `${user.accessToken}x`, user.accessToken.split(".").slice(0, 2).join(".")]) {
      await expectRefused(token);
    }
    // A malformed Authorization header is anonymous too.
    for (const header of ["Bearer", "Basic dXNlcjpwYXNz", `Token ${user.accessToken}`, `Bearer ${user.accessToken} extra`]) {
      const r = await new Client(server.url).get("/api/auth/me", { headers: { authorization: header } });
      errorOf(r, 401, "UNAUTHORIZED");
    }
  });
});

