import { decodeJwt, decodeProtectedHeader } from "jose";
import type { Principal } from "../core/principal.ts";
import { API_KEY_PREFIX } from "../identity/api-keys.ts";
import type { Services } from "../services.ts";

/** Longest Authorization credential looked at; anything longer is garbage by construction. */
const MAX_CREDENTIAL_LENGTH = 8192;
/** Verified access tokens remembered; each is at most 15 minutes old, so this stays small. */
const MAX_CACHED_TOKENS = 2000;

/**
 * Turns an Authorization header into a principal. Anything unusable (garbage, expired, forged,
 * revoked) is null: the caller is treated as anonymous and routes that need one answer 401.
 *
 * An RS256 signature check costs about 0.1 ms, which would dominate an authenticated GET, so a
 * verified token is remembered until its own expiry. Only the signature work is skipped: the
 * session is still checked on every request, so logout and revocation take effect at once.
 * Garbage never enters the cache, so unknown credentials cannot grow it.
 */
class CredentialResolver {
  private readonly verified = new Map<string, { userId: string; orgId: string; sessionId: string; expMs: number }>();

  constructor(private readonly services: Services) {}

  get cachedTokens(): number {
    return this.verified.size;
  }

  /**
   * `path` is the request's: at `/mcp` (and only there, its audience) a token that is not a web
   * session's may be an MCP access token from Quire's authorization server (src/oauth/).
   */
  resolve(header: string | null, nowMs: number, path?: string): Principal | null | Promise<Principal | null> {
    const credential = bearer(header);
    if (!credential) return null;
    if (credential.startsWith(API_KEY_PREFIX)) return this.services.apiKeys.authenticate(credential, Math.floor(nowMs / 1000));
    const hit = this.verified.get(credential);
    if (hit) {
      if (hit.expMs > nowMs) return this.sessionPrincipal(hit, nowMs);
      this.verified.delete(credential);
    }
    return this.verify(credential, nowMs, path === "/mcp");
  }

  private async verify(token: string, nowMs: number, mcp: boolean): Promise<Principal | null> {
    // An MCP access token says so in its header (typ at+jwt): one signature check, not two.
    if (mcp && typOf(token) === "at+jwt") return this.services.oauth.authenticate(token, nowMs);
    const claims = await this.services.tokens.verify(token);
    if (!claims) return mcp ? this.services.oauth.authenticate(token, nowMs) : null;
    const exp = decodeJwt(token).exp;
    if (typeof exp === "number") {
      if (this.verified.size >= MAX_CACHED_TOKENS) this.evict(nowMs);
      this.verified.set(token, { ...claims, expMs: exp * 1000 });
    }
    return this.sessionPrincipal(claims, nowMs);
  }

  private sessionPrincipal(c: { userId: string; orgId: string; sessionId: string }, nowMs: number): Principal | null {
    if (!this.services.sessions.isActive(c.sessionId, nowMs)) return null;
    return { kind: "session", userId: c.userId, orgId: c.orgId, sessionId: c.sessionId };
  }

  private evict(nowMs: number): void {
    for (const [token, entry] of this.verified) if (entry.expMs <= nowMs) this.verified.delete(token);
    // All still valid: forget the oldest half; they are only re-verified, never refused.
    if (this.verified.size >= MAX_CACHED_TOKENS) {
      let drop = this.verified.size / 2;
      for (const token of this.verified.keys()) {
        if (drop-- <= 0) break;
        this.verified.delete(token);
      }
    }
  }
}

function typOf(token: string): string | undefined {
  try {
    return decodeProtectedHeader(token).typ;
  } catch {
    return undefined;
  }
}

/** The credential of an `Authorization: Bearer …` header (at most MAX_CREDENTIAL_LENGTH characters), or null. */
export function bearer(header: string | null): string | null {
  if (!header || header.length > MAX_CREDENTIAL_LENGTH + 16) return null;
  const match = /^\s*Bearer\s+(\S+)\s*$/i.exec(header);
  return match ? match[1]! : null;
}

const resolvers = new WeakMap<Services, CredentialResolver>();

/** One resolver (and so one token cache) per running instance: signing keys differ between instances. */
export function credentialResolver(services: Services): CredentialResolver {
  let r = resolvers.get(services);
  if (!r) resolvers.set(services, (r = new CredentialResolver(services)));
  return r;
}
