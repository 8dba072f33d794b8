import { afterAll, describe, expect, test } from "bun:test";
import { ConfigError, loadConfig } from "../../src/config.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { Client } from "../helpers/client.ts";

function problemsOf(env: Record<string, string>): string[] {
  try {
    loadConfig(env);
    return [];
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    return error.problems;
  }
}

describe("OIDC_* and WEBAUTHN_* at start-up", () => {
  test("every problem is reported at once", () => {
    const problems = problemsOf({
      OIDC_GOOGLE_CLIENT_ID: "only-the-id",
      OIDC_GITHUB_CLIENT_ID: "id",
      OIDC_GITHUB_CLIENT_SECRET: "secret",
      OIDC_GITHUB_URL: "http://ghe.example.com",
      OIDC_GITHUB_API_URL: "ftp://ghe.example.com/api/v3",
      WEBAUTHN_RP_ID: "example.com",
      WEBAUTHN_RP_ORIGINS: "https://docs.example.com,https://evil.example.org,http://example.com",
    });
    expect(problems).toEqual([
      "OIDC_GOOGLE_CLIENT_ID and OIDC_GOOGLE_CLIENT_SECRET must be set together (only OIDC_GOOGLE_CLIENT_ID is set)",
      'OIDC_GITHUB_URL must be an https URL (http only with OIDC_ALLOWLIST_PRIVATE=true) (got "http://ghe.example.com")',
      'OIDC_GITHUB_API_URL must be an https URL (http only with OIDC_ALLOWLIST_PRIVATE=true) (got "ftp://ghe.example.com/api/v3")',
      'WEBAUTHN_RP_ORIGINS: "https://evil.example.org" does not match WEBAUTHN_RP_ID "example.com" (its host must be example.com or a subdomain of it)',
      'WEBAUTHN_RP_ORIGINS: "http://example.com" must be https (passkeys need a secure origin; http only for localhost)',
    ]);
  });

  test("an RP ID that is an address, carries a port or a wildcard is refused; origins default to BASE_URL's", () => {
    expect(problemsOf({ WEBAUTHN_RP_ID: "127.0.0.1" })[0]).toContain("WEBAUTHN_RP_ID must be a domain name");
    expect(problemsOf({ WEBAUTHN_RP_ID: "*.example.com" })[0]).toContain("WEBAUTHN_RP_ID must be a domain name");
    expect(problemsOf({ WEBAUTHN_RP_ID: "example.com:443" })[0]).toContain("WEBAUTHN_RP_ID must be a domain name");
    expect(problemsOf({ WEBAUTHN_RP_ID: "example.com", BASE_URL: "https://other.example.net" })[0]).toContain("does not match");
    expect(problemsOf({ WEBAUTHN_RP_ORIGINS: "https://a.example.com" })).toEqual(["WEBAUTHN_RP_ORIGINS is set but WEBAUTHN_RP_ID is not (passkeys need both)"]);
    const ok = loadConfig({ WEBAUTHN_RP_ID: "localhost", BASE_URL: "http://localhost:3000" });
    expect(ok.webauthn).toEqual({ rpId: "localhost", rpName: "Quire", origins: ["http://localhost:3000"] });
    expect(loadConfig({}).oidc).toEqual({ allowPrivate: false });
    expect(loadConfig({ OIDC_GITHUB_CLIENT_ID: "i", OIDC_GITHUB_CLIENT_SECRET: "s" }).oidc.github).toEqual({
      clientId: "i",
      clientSecret: "s",
      url: "https://github.com",
      apiUrl: "https://api.github.com",
    });
  });
});

describe("outbound checks on the issuer", () => {
  const servers: TestServer[] = [];
  afterAll(async () => {
    for (const s of servers) await s.close();
  });

  test("an issuer on a loopback or private address is refused unless OIDC_ALLOWLIST_PRIVATE is set", async () => {
    const server = await startTestServer({ OIDC_GOOGLE_CLIENT_ID: "id", OIDC_GOOGLE_CLIENT_SECRET: "secret", OIDC_GOOGLE_ISSUER: "https://127.0.0.1:9/realms/x" });
    servers.push(server);
    const r = await new Client(server.url).post("/api/auth/oidc/google", {});
    expect(r.status).toBe(500);
    expect(r.body.error).toBe("INTERNAL_ERROR");
    expect(r.body.message).toContain("cannot be reached right now");
    expect(server.logs.some((l) => l.includes("private, loopback or link-local"))).toBe(true);
    expect(server.services.db.query("SELECT COUNT(*) AS n FROM oidc_flows").get()).toEqual({ n: 0 });
  });
});
