import { SignJWT, jwtVerify, errors as joseErrors } from "jose";
import type { SigningKeys } from "../identity/signing-key.ts";
import { OAUTH_SCOPES, type OAuthScope } from "./schemas.ts";

/**
 * MCP access tokens live 10 minutes: a client refreshes without the person, and a revoked grant
 * is refused at once anyway (its row is looked up on every request).
 */
const MCP_ACCESS_TOKEN_TTL_SEC = 600;
/** RFC 9068's type: a web session's token (typ JWT, aud quire) can never pass for one of these. */
const TOKEN_TYPE = "at+jwt";

interface McpTokenClaims {
  /** The resource the token is for (its `aud`). */
  audience: string;
  userId: string;
  orgId: string;
  grantId: string;
  clientId: string;
  scopes: OAuthScope[];
  expMs: number;
}

/**
 * JWT access tokens for an MCP resource, signed with the instance key (RS256), `aud` the MCP
 * endpoint's URL (the resource indicator, RFC 8707): `{BASE_URL}/mcp`, or a members-only site's
 * `{BASE_URL}/p/{slug}/mcp`. Each endpoint verifies with its own URL, so a token minted for anything
 * else — another endpoint, another server's resource, the web app's audience — fails the check.
 */
export class McpAccessTokens {
  constructor(
    private readonly keys: () => Promise<SigningKeys>,
    private readonly issuer: string,
    readonly audience: string,
  ) {}

  async issue(c: Omit<McpTokenClaims, "expMs">, nowMs: number): Promise<{ token: string; expiresIn: number }> {
    const keys = await this.keys();
    const iat = Math.floor(nowMs / 1000);
    const token = await new SignJWT({ org: c.orgId, gid: c.grantId, client_id: c.clientId, scope: c.scopes.join(" ") })
      .setProtectedHeader({ alg: "RS256", typ: TOKEN_TYPE, kid: keys.kid })
      .setSubject(c.userId)
      .setIssuer(this.issuer)
      .setAudience(c.audience)
      .setIssuedAt(iat)
      .setJti(crypto.randomUUID())
      .setExpirationTime(iat + MCP_ACCESS_TOKEN_TTL_SEC)
      .sign(keys.privateKey);
    return { token, expiresIn: MCP_ACCESS_TOKEN_TTL_SEC };
  }

  /**
   * The claims of a valid token for `audience` (the workspace endpoint's by default), or null for
   * anything else. `audience: null` accepts any of this server's resources (revocation only).
   */
  async verify(token: string, audience: string | null = this.audience): Promise<McpTokenClaims | null> {
    // Outside the try: a key that cannot be loaded is the server's failure, not a bad token.
    const keys = await this.keys();
    try {
      const { payload } = await jwtVerify(token, keys.publicKey, {
        algorithms: ["RS256"],
        issuer: this.issuer,
        ...(audience === null ? {} : { audience }),
        typ: TOKEN_TYPE,
        requiredClaims: ["sub", "exp", "iat", "aud"],
      });
      const { sub, org, gid, client_id, scope, exp, aud } = payload as Record<string, unknown>;
      if (typeof sub !== "string" || typeof org !== "string" || typeof gid !== "string" || typeof client_id !== "string" || typeof scope !== "string" || typeof exp !== "number" || typeof aud !== "string") {
        return null;
      }
      const scopes = scope.split(" ").filter((s): s is OAuthScope => (OAUTH_SCOPES as readonly string[]).includes(s));
      return { audience: aud, userId: sub, orgId: org, grantId: gid, clientId: client_id, scopes, expMs: exp * 1000 };
    } catch (error) {
      if (error instanceof joseErrors.JOSEError || error instanceof TypeError) return null;
      throw error;
    }
  }
}
