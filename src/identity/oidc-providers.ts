import type * as OpenId from "openid-client";
import type { Config } from "../config.ts";
import { guardedFetch, ProviderError } from "./oidc-network.ts";

/** openid-client is loaded by the first sign-in through a provider, not with the sign-in routes. */
const openid = (): typeof OpenId => require("openid-client") as typeof OpenId;

export const PROVIDER_IDS = ["google", "github"] as const;
export type ProviderId = (typeof PROVIDER_IDS)[number];

/** Who the provider says signed in. */
export interface ProviderIdentity {
  subject: string;
  email: string | null;
  emailVerified: boolean;
  name: string;
}

interface AuthorizationRequest {
  redirectUri: string;
  state: string;
  nonce: string;
  codeChallenge: string;
}

interface CallbackCheck {
  /** The callback URL as the provider sent the browser to it, rebuilt on BASE_URL. */
  callbackUrl: URL;
  redirectUri: string;
  state: string;
  nonce: string;
  codeVerifier: string;
}

export interface ExternalProvider {
  id: ProviderId;
  name: string;
  authorizationUrl(req: AuthorizationRequest): Promise<string>;
  /** Trades the code and verifies everything; throws ProviderError when anything does not hold. */
  identify(check: CallbackCheck): Promise<ProviderIdentity>;
}

/**
 * provider_a: any OpenID Connect issuer, found through discovery (Google by default). openid-client
 * checks state, the callback's `iss` (required when the issuer advertises it), PKCE, and the ID
 * token's iss, aud, azp, exp, iat and nonce; enableNonRepudiationChecks adds the ID token's
 * signature against the issuer's JWKS, which openid-client otherwise leaves to TLS.
 */
class OidcIssuerProvider implements ExternalProvider {
  readonly id = "google" as const;
  private config: Promise<OpenId.Configuration> | null = null;
  private readonly fetch: ReturnType<typeof guardedFetch>;

  constructor(
    private readonly settings: NonNullable<Config["oidc"]["google"]>,
    private readonly allowPrivate: boolean,
  ) {
    this.fetch = guardedFetch(allowPrivate);
  }

  get name(): string {
    return this.settings.name;
  }

  /** Discovery on first use, remembered; a failure is forgotten so the next sign-in tries again. */
  private discover(): Promise<OpenId.Configuration> {
    this.config ??= openid()
      .discovery(new URL(this.settings.issuer), this.settings.clientId, undefined, openid().ClientSecretBasic(this.settings.clientSecret), {
        [openid().customFetch]: this.fetch as OpenId.CustomFetch,
        ...(this.allowPrivate ? { execute: [openid().allowInsecureRequests] } : {}),
      })
      .then((config) => {
        openid().enableNonRepudiationChecks(config);
        return config;
      })
      .catch((error: unknown) => {
        this.config = null;
        throw error instanceof ProviderError ? error : new ProviderError(`discovery of ${this.settings.issuer} failed: ${describe(error)}`);
      });
    return this.config;
  }

  async authorizationUrl(req: AuthorizationRequest): Promise<string> {
    const config = await this.discover();
    return openid().buildAuthorizationUrl(config, {
      redirect_uri: req.redirectUri,
      scope: "openid email profile",
      state: req.state,
      nonce: req.nonce,
      code_challenge: req.codeChallenge,
      code_challenge_method: "S256",
    }).href;
  }

  async identify(check: CallbackCheck): Promise<ProviderIdentity> {
    const config = await this.discover();
    let claims: OpenId.IDToken | undefined;
    let accessToken: string;
    try {
      const tokens = await openid().authorizationCodeGrant(
        config,
        check.callbackUrl,
        { pkceCodeVerifier: check.codeVerifier, expectedState: check.state, expectedNonce: check.nonce, idTokenExpected: true },
        { redirect_uri: check.redirectUri },
      );
      claims = tokens.claims();
      accessToken = tokens.access_token;
    } catch (error) {
      throw error instanceof ProviderError ? error : new ProviderError(`the sign-in response did not verify: ${describe(error)}`);
    }
    if (!claims) throw new ProviderError("the issuer returned no ID token");
    let email = typeof claims.email === "string" ? claims.email : null;
    let verified = claims.email_verified === true;
    let name = typeof claims.name === "string" ? claims.name : "";
    // Some issuers keep the email out of the ID token: ask the userinfo endpoint, bound to the same subject.
    if (email === null) {
      try {
        const info = await openid().fetchUserInfo(config, accessToken, claims.sub);
        email = typeof info.email === "string" ? info.email : null;
        verified = info.email_verified === true;
        name ||= typeof info.name === "string" ? info.name : "";
      } catch (error) {
        throw new ProviderError(`userinfo failed: ${describe(error)}`);
      }
    }
    return { subject: claims.sub, email, emailVerified: verified, name };
  }
}

/**
 * provider_b: GitHub (or GitHub Enterprise Server at OIDC_GITHUB_URL / OIDC_GITHUB_API_URL), OAuth 2
 * with PKCE. GitHub has no ID token: the account is `GET /user` (its numeric id is the subject) and
 * the email is the primary one from `GET /user/emails` (scope user:email), which is listed even
 * when the profile hides it (`email: null`), with its own `verified` flag. GitHub's OAuth errors
 * come with HTTP 200 and an `error` field.
 */
class GitHubProvider implements ExternalProvider {
  readonly id = "github" as const;
  readonly name = "GitHub";
  private readonly fetch: ReturnType<typeof guardedFetch>;

  constructor(
    private readonly settings: NonNullable<Config["oidc"]["github"]>,
    allowPrivate: boolean,
  ) {
    this.fetch = guardedFetch(allowPrivate);
  }

  async authorizationUrl(req: AuthorizationRequest): Promise<string> {
    const url = new URL(`${this.settings.url}/login/oauth/authorize`);
    url.search = new URLSearchParams({
      client_id: this.settings.clientId,
      redirect_uri: req.redirectUri,
      scope: "read:user user:email",
      state: req.state,
      code_challenge: req.codeChallenge,
      code_challenge_method: "S256",
      allow_signup: "false",
    }).toString();
    return url.href;
  }

  async identify(check: CallbackCheck): Promise<ProviderIdentity> {
    const params = check.callbackUrl.searchParams;
    if (params.get("state") !== check.state) throw new ProviderError("state mismatch");
    const code = params.get("code");
    if (!code) throw new ProviderError("the callback carries no code");
    const tokenRes = await this.fetch(`${this.settings.url}/login/oauth/access_token`, {
      method: "POST",
      headers: { accept: "application/json", "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        client_id: this.settings.clientId,
        client_secret: this.settings.clientSecret,
        code,
        redirect_uri: check.redirectUri,
        code_verifier: check.codeVerifier,
      }).toString(),
    });
    const token = (await jsonOf(tokenRes, "access_token")) as { access_token?: unknown; error?: unknown; error_description?: unknown };
    // GitHub answers 200 with {error, error_description} for a bad or used code.
    if (typeof token.error === "string") throw new ProviderError(`GitHub refused the code: ${token.error}`);
    if (typeof token.access_token !== "string") throw new ProviderError("GitHub returned no access token");
    const api = (path: string) =>
      this.fetch(`${this.settings.apiUrl}${path}`, {
        headers: {
          accept: "application/vnd.github+json",
          authorization: `Bearer ${token.access_token}`,
          "x-github-api-version": "2022-11-28",
          "user-agent": "Quire",
        },
      });
    const user = (await jsonOf(await api("/user"), "user")) as { id?: unknown; login?: unknown; name?: unknown };
    if (typeof user.id !== "number" && typeof user.id !== "string") throw new ProviderError("GitHub's /user has no id");
    const emails = await jsonOf(await api("/user/emails"), "user/emails");
    if (!Array.isArray(emails)) throw new ProviderError("GitHub's /user/emails is not a list");
    const primary = (emails as Array<{ email?: unknown; primary?: unknown; verified?: unknown }>).find((e) => e.primary === true && typeof e.email === "string");
    return {
      subject: String(user.id),
      email: primary ? String(primary.email) : null,
      emailVerified: primary?.verified === true,
      name: typeof user.name === "string" && user.name !== "" ? user.name : typeof user.login === "string" ? user.login : "",
    };
  }
}

async function jsonOf(res: Response, what: string): Promise<unknown> {
  if (!res.ok) throw new ProviderError(`GitHub ${what}: HTTP ${res.status}`);
  try {
    return await res.json();
  } catch {
    throw new ProviderError(`GitHub ${what}: not JSON`);
  }
}

/** The error chain in one line for the administrator's log: codes, messages and the claim that failed (never a token). */
function describe(error: unknown, depth = 0): string {
  if (!(error instanceof Error)) return String(error);
  const code = (error as { code?: unknown }).code;
  let text = typeof code === "string" ? `${code}: ${error.message}` : error.message;
  const cause = (error as { cause?: unknown }).cause;
  if (cause && typeof cause === "object" && depth < 3) {
    const claim = (cause as { claim?: unknown }).claim;
    if (typeof claim === "string") text += ` (claim ${claim})`;
    if (cause instanceof Error) text += ` ← ${describe(cause, depth + 1)}`;
  }
  return text;
}

/** The providers this instance enables (client id and secret both set), in a fixed order. */
export function enabledProviders(config: Config): Map<ProviderId, ExternalProvider> {
  const out = new Map<ProviderId, ExternalProvider>();
  if (config.oidc.google) out.set("google", new OidcIssuerProvider(config.oidc.google, config.oidc.allowPrivate));
  if (config.oidc.github) out.set("github", new GitHubProvider(config.oidc.github, config.oidc.allowPrivate));
  return out;
}
