import type * as OpenId from "openid-client";
import type { Db } from "../db/database.ts";
import type { Config } from "../config.ts";
import type { Logger } from "../core/log.ts";
import { InternalError, NotFoundError, UnauthorizedError } from "../core/errors.ts";
import { constantTimeEqual, sha256Hex } from "../core/crypto.ts";
import { randomToken } from "../core/ids.ts";
import { nowMs } from "../core/clock.ts";
import type { AuthService, ClientInfo, IssuedTokens } from "./auth-service.ts";
import { AccountRefused, type OidcAccounts } from "./oidc-accounts.ts";
import { ProviderError } from "./oidc-network.ts";
import { PROVIDER_IDS, type ExternalProvider, type ProviderId } from "./oidc-providers.ts";
import type { Users } from "./users.ts";

/** openid-client is loaded by the first sign-in through a provider, not with the sign-in routes. */
const openid = (): typeof OpenId => require("openid-client") as typeof OpenId;

/** An authorization request is good for 10 minutes, once. */
export const FLOW_TTL_MS = 10 * 60_000;
/** The claim code the callback hands to the app: 60 seconds, once. */
export const CLAIM_TTL_MS = 60_000;

interface FlowRow {
  state_hash: string;
  provider: string;
  browser_hash: string;
  nonce: string;
  code_verifier: string;
  link_user_id: string | null;
  expires_at: number;
  used_at: number | null;
}

/** Where the callback sends the browser: the app, with a claim code or an error code. */
interface CallbackOutcome {
  location: string;
}

/**
 * External sign-in (docs/architecture.md §14): start → the provider → callback → claim.
 *
 * - start: state, nonce and a PKCE verifier are drawn, stored (state hashed) with the hash of a
 *   random browser secret that goes to the browser as an HttpOnly cookie; the flow is good for
 *   10 minutes, once.
 * - callback: the flow is taken (marked used before any network call, so a replayed state finds
 *   it used), the browser secret must match, the provider verifies everything, the identity is
 *   resolved to an account, and the browser goes back to the app with a one-time claim code.
 * - claim: the code (60 s, once, same browser) is traded for the token pair of a login.
 *
 * The redirect URI is built from BASE_URL only, never from request headers.
 */
export class OidcService {
  constructor(
    private readonly deps: {
      db: Db;
      config: Config;
      log: Logger;
      users: Users;
      auth: AuthService;
      accounts: OidcAccounts;
      providers: Map<ProviderId, ExternalProvider>;
    },
  ) {}

  /** The enabled providers, for the sign-in screen's buttons. */
  list(): Array<{ id: ProviderId; name: string }> {
    return [...this.deps.providers.values()].map((p) => ({ id: p.id, name: p.name }));
  }

  redirectUri(provider: ProviderId): string {
    return `${this.deps.config.baseUrl}/api/auth/oidc/${provider}/callback`;
  }

  private provider(id: string): ExternalProvider {
    const p = (PROVIDER_IDS as readonly string[]).includes(id) ? this.deps.providers.get(id as ProviderId) : undefined;
    if (!p) throw new NotFoundError(`No sign-in provider named "${id}" is enabled on this instance`);
    return p;
  }

  async start(providerId: string, opts: { linkUserId: string | null }): Promise<{ url: string; browserSecret: string }> {
    const provider = this.provider(providerId);
    const state = openid().randomState();
    const nonce = openid().randomNonce();
    const codeVerifier = openid().randomPKCECodeVerifier();
    const codeChallenge = await openid().calculatePKCECodeChallenge(codeVerifier);
    const browserSecret = randomToken(32);
    let url: string;
    try {
      url = await provider.authorizationUrl({ redirectUri: this.redirectUri(provider.id), state, nonce, codeChallenge });
    } catch (error) {
      this.deps.log.warn("external sign-in could not start", { provider: provider.id, error: String(error instanceof Error ? error.message : error) });
      throw new ProviderUnavailable(provider.name);
    }
    const t = nowMs();
    this.deps.db
      .query(
        `INSERT INTO oidc_flows (state_hash, provider, browser_hash, nonce, code_verifier, link_user_id, created_at, expires_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(sha256Hex(state), provider.id, sha256Hex(browserSecret), nonce, codeVerifier, opts.linkUserId, t, t + FLOW_TTL_MS);
    return { url, browserSecret };
  }

  async callback(providerId: string, query: URLSearchParams, browserSecret: string | undefined): Promise<CallbackOutcome> {
    const provider = this.provider(providerId);
    const state = query.get("state") ?? "";
    const flow = this.takeFlow(provider.id, state, browserSecret);
    const back = (path: string, params: Record<string, string>) => ({
      location: `${this.deps.config.baseUrl}${path}?${new URLSearchParams(params).toString()}`,
    });
    if (!flow) return back("/login", { oidc_error: "invalid_state" });
    const linking = flow.link_user_id !== null;
    const fail = (reason: string) => (linking ? back("/account", { oidc_error: reason }) : back("/login", { oidc_error: reason }));
    // The person declined (or the provider refused) at the provider.
    if (query.has("error")) return fail(query.get("error") === "access_denied" ? "cancelled" : "provider_error");

    const redirectUri = this.redirectUri(provider.id);
    const callbackUrl = new URL(`${redirectUri}?${query.toString()}`);
    let user;
    try {
      const who = await provider.identify({ callbackUrl, redirectUri, state, nonce: flow.nonce, codeVerifier: flow.code_verifier });
      user = await this.deps.accounts.resolve(provider.id, who, flow.link_user_id);
    } catch (error) {
      if (error instanceof AccountRefused) return fail(error.reason);
      const reason = error instanceof ProviderError ? error.reason : "provider_error";
      // What went wrong is logged for the administrator (no tokens: the messages never carry them).
      this.deps.log.warn("external sign-in refused", { provider: provider.id, reason, error: error instanceof Error ? error.message : String(error) });
      return fail(reason);
    }
    if (linking) return back("/account", { linked: provider.id });
    const code = randomToken(32);
    const t = nowMs();
    this.deps.db
      .query("INSERT INTO oidc_claims (code_hash, user_id, browser_hash, expires_at) VALUES (?, ?, ?, ?)")
      .run(sha256Hex(code), user.id, flow.browser_hash, t + CLAIM_TTL_MS);
    return back("/login", { oidc_code: code });
  }

  /** Marks the flow used (once, in one statement) and checks it belongs to this browser and is current. */
  private takeFlow(provider: ProviderId, state: string, browserSecret: string | undefined): FlowRow | null {
    if (state === "" || state.length > 512) return null;
    const hash = sha256Hex(state);
    const t = nowMs();
    return this.deps.db.transaction((): FlowRow | null => {
      const row = this.deps.db.query<FlowRow, [string]>("SELECT * FROM oidc_flows WHERE state_hash = ?").get(hash);
      if (!row || row.used_at !== null || row.expires_at <= t || row.provider !== provider) return null;
      // Another browser holding the state (a link sent to someone, a login CSRF) does not match.
      if (!browserSecret || !constantTimeEqual(sha256Hex(browserSecret), row.browser_hash)) return null;
      this.deps.db.query("UPDATE oidc_flows SET used_at = ? WHERE state_hash = ?").run(t, hash);
      return row;
    })();
  }

  /** Trades a claim code for the token pair; the same browser that started the sign-in, within 60 s, once. */
  async claim(code: string, browserSecret: string | undefined, info: ClientInfo): Promise<IssuedTokens> {
    const t = nowMs();
    const hash = sha256Hex(code);
    const userId = this.deps.db.transaction((): string | null => {
      const row = this.deps.db
        .query<{ user_id: string; browser_hash: string; expires_at: number; used_at: number | null }, [string]>(
          "SELECT user_id, browser_hash, expires_at, used_at FROM oidc_claims WHERE code_hash = ?",
        )
        .get(hash);
      if (!row || row.used_at !== null || row.expires_at <= t) return null;
      if (!browserSecret || !constantTimeEqual(sha256Hex(browserSecret), row.browser_hash)) return null;
      this.deps.db.query("UPDATE oidc_claims SET used_at = ? WHERE code_hash = ?").run(t, hash);
      return row.user_id;
    })();
    const user = userId ? this.deps.users.byId(userId) : null;
    if (!user) throw new UnauthorizedError("This sign-in code is invalid, used or expired; sign in again");
    return this.deps.auth.signIn(user, info);
  }
}

/** The provider could not be reached to start a sign-in (discovery failed, network refused). */
class ProviderUnavailable extends InternalError {
  constructor(readonly providerName: string) {
    super(`${providerName} cannot be reached right now; try again in a moment or sign in another way`);
  }
}
