import { SignJWT, jwtVerify, errors as joseErrors } from "jose";
import type { SigningKeys } from "./signing-key.ts";

/** Access tokens live 15 minutes; fixed, not configurable. */
export const ACCESS_TOKEN_TTL_SEC = 900;
const AUDIENCE = "quire";
/** The WebSocket cookie token is a separate audience, so it can never pass as an access token. */
const WS_AUDIENCE = "quire-ws";
export const WS_TOKEN_TTL_SEC = 3600;

interface AccessClaims {
  userId: string;
  sessionId: string;
  orgId: string;
}

export class AccessTokens {
  constructor(
    private readonly keys: () => Promise<SigningKeys>,
    private readonly issuer: string,
  ) {}

  issue(claims: AccessClaims): Promise<{ token: string; expiresAt: number }> {
    return this.sign(claims, AUDIENCE, ACCESS_TOKEN_TTL_SEC);
  }

  issueWs(claims: AccessClaims): Promise<{ token: string; expiresAt: number }> {
    return this.sign(claims, WS_AUDIENCE, WS_TOKEN_TTL_SEC);
  }

  verify(token: string): Promise<AccessClaims | null> {
    return this.check(token, AUDIENCE);
  }

  verifyWs(token: string): Promise<AccessClaims | null> {
    return this.check(token, WS_AUDIENCE);
  }

  private async sign(claims: AccessClaims, audience: string, ttl: number): Promise<{ token: string; expiresAt: number }> {
    const keys = await this.keys();
    const iat = Math.floor(Date.now() / 1000);
    const exp = iat + ttl;
    const token = await new SignJWT({ sid: claims.sessionId, org: claims.orgId })
      .setProtectedHeader({ alg: "RS256", typ: "JWT", kid: keys.kid })
      .setSubject(claims.userId)
      .setIssuer(this.issuer)
      .setAudience(audience)
      .setIssuedAt(iat)
      .setExpirationTime(exp)
      .sign(keys.privateKey);
    return { token, expiresAt: exp };
  }

  /** Returns the claims of a valid token, or null for anything else (expired, forged, alg none, foreign key). */
  private async check(token: string, audience: string): Promise<AccessClaims | null> {
    // Outside the try: a key that cannot be loaded is the server's failure, not a bad token.
    const keys = await this.keys();
    try {
      const { payload } = await jwtVerify(token, keys.publicKey, {
        algorithms: ["RS256"],
        issuer: this.issuer,
        audience,
        requiredClaims: ["sub", "exp", "iat"],
      });
      if (typeof payload.sub !== "string" || typeof payload.sid !== "string" || typeof payload.org !== "string") {
        return null;
      }
      return { userId: payload.sub, sessionId: payload.sid, orgId: payload.org };
    } catch (error) {
      if (error instanceof joseErrors.JOSEError || error instanceof TypeError) return null;
      throw error;
    }
  }
}
