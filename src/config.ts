/**
 * Configuration comes from the environment only. It is read once into a typed object; every
 * invalid value is collected so start-up reports all problems at once, naming each variable.
 * The README's environment table documents the same list.
 */
export interface SmtpConfig {
  host: string;
  port: number;
  secure: boolean;
  user?: string;
  pass?: string;
  from: string;
}

/** An external sign-in provider (docs/architecture.md §14); present only when its client id and secret are both set. */
interface OidcProviderConfig {
  clientId: string;
  clientSecret: string;
}

interface ExternalSignInConfig {
  /** provider_a: any OpenID Connect issuer with discovery (Google by default). */
  google?: OidcProviderConfig & { issuer: string; name: string };
  /** provider_b: GitHub or GitHub Enterprise Server (OAuth 2 + the REST user/emails endpoints). */
  github?: OidcProviderConfig & { url: string; apiUrl: string };
  /** OIDC_ALLOWLIST_PRIVATE: issuer/GitHub URLs may be http and on private or loopback addresses. */
  allowPrivate: boolean;
}

export interface WebAuthnConfig {
  rpId: string;
  rpName: string;
  /** Full origins (scheme, host, port) a passkey ceremony may come from. */
  origins: string[];
}

export interface Config {
  env: "development" | "production" | "test";
  port: number;
  /** BASE_URL without a trailing slash; links in emails and the JWT issuer use it. */
  baseUrl: string;
  dataDirFromEnv?: string;
  jwtKeyPath?: string;
  /** API key pepper from API_KEY_PEPPER or QUIRE_API_KEY_PEPPER; absent outside production means a generated per-instance file. */
  apiKeyPepper?: string;
  argon2: { memoryKiB: number; iterations: number; parallelism: number };
  loginLock: { threshold: number; durationSec: number };
  disableSignup: boolean;
  /** false: ignore X-Forwarded-For; a number n: trust the n nearest proxies. */
  trustProxy: false | number;
  smtp?: SmtpConfig;
  log: { level: "debug" | "info" | "warn" | "error"; format: "json" | "pretty" | "auto" };
  edition: "community" | "cloud";
  /**
   * Native git for SSH remotes: the private key and known_hosts file (StrictHostKeyChecking on when set).
   * `githubApiUrl`/`gitlabApiUrl` (GITHUB_API_URL, GITLAB_API_URL): the public repository APIs asked
   * whether a remote is public before a restriction is turned on; remotes on their web hosts are asked.
   */
  git: { sshKeyPath?: string; sshKnownHosts?: string; allowPrivate: boolean; githubApiUrl: string; gitlabApiUrl: string };
  /** Watch workspace folders and reconcile changes made outside Quire (QUIRE_WATCH_FILES). */
  watchFiles: boolean;
  /** Outbound webhook URLs may lead to private, loopback or link-local addresses (WEBHOOK_ALLOWLIST_PRIVATE). */
  webhookAllowPrivate: boolean;
  /** MCP clients' metadata documents may be fetched over http from private or loopback addresses (OAUTH_CLIENT_METADATA_ALLOWLIST_PRIVATE). */
  oauthClientMetadataAllowPrivate: boolean;
  /** Cloud: the payment provider's webhook signing secret (STRIPE_WEBHOOK_SECRET); without it every event is refused. */
  stripeWebhookSecret?: string;
  /** Cloud: the payment provider's API for checkout and portal sessions (STRIPE_SECRET_KEY, STRIPE_PRICE_TEAM/BUSINESS, STRIPE_API_URL). */
  stripe: StripeConfig;
  /** Prometheus metrics: /metrics on the main port for platform owners (FF_METRICS), or an unauthenticated 127.0.0.1 listener (METRICS_PORT) instead. */
  metrics: { enabled: boolean; port?: number };
  /** Daily online copies of quire.db and analytics.db into {DATA_DIR}/backups (BACKUP_ENABLED, BACKUP_RETENTION_DAYS). */
  backup: { enabled: boolean; retentionDays: number };
  /** Readiness says storage is `degraded` when the data directory's filesystem has less free than this (STORAGE_MIN_FREE_MB). */
  storage: { minFreeMb: number };
  /** The writing-assist model (AI_BASE_URL, AI_API_KEY, AI_MODEL); absent: agents get instructions instead. */
  ai?: { baseUrl: string; apiKey?: string; model: string };
  /** Browser origins allowed to call `POST /mcp` on the main port (MCP_CORS_ORIGINS); BASE_URL's own origin always is. */
  mcpCorsOrigins: string[];
  /**
   * Published sites: PUBLISH_REQUIRE_AUTH forces every site to members only; SITE_CACHE_MAX_AGE is
   * how long (seconds) a shared cache may keep a public page; the DNS server custom domains are checked against.
   */
  publish: { requireAuth: boolean; cacheMaxAge: number; dnsResolver?: string };
  /** External sign-in providers (OIDC_*). */
  oidc: ExternalSignInConfig;
  /** Passkeys (WEBAUTHN_*); absent when WEBAUTHN_RP_ID is unset. */
  webauthn?: WebAuthnConfig;
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join("\n")}`);
    this.name = "ConfigError";
  }
}

type Env = Record<string, string | undefined>;

export function loadConfig(env: Env = process.env): Config {
  const problems: string[] = [];
  const read = (name: string): string | undefined => {
    const v = env[name];
    return v === undefined || v.trim() === "" ? undefined : v.trim();
  };
  const int = (name: string, fallback: number, min: number, max = Number.MAX_SAFE_INTEGER): number => {
    const raw = read(name);
    if (raw === undefined) return fallback;
    if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
      problems.push(`${name} must be an integer from ${min} to ${max} (got "${raw}")`);
      return fallback;
    }
    return Number(raw);
  };
  const bool = (name: string, fallback: boolean): boolean => {
    const raw = read(name)?.toLowerCase();
    if (raw === undefined) return fallback;
    if (["true", "1", "yes", "on"].includes(raw)) return true;
    if (["false", "0", "no", "off"].includes(raw)) return false;
    problems.push(`${name} must be true or false (got "${raw}")`);
    return fallback;
  };
  const oneOf = <T extends string>(name: string, values: readonly T[], fallback: T): T => {
    const raw = read(name);
    if (raw === undefined) return fallback;
    if (!(values as readonly string[]).includes(raw)) {
      problems.push(`${name} must be one of ${values.join(", ")} (got "${raw}")`);
      return fallback;
    }
    return raw as T;
  };

  const quireEnv = oneOf("QUIRE_ENV", ["development", "production", "test"] as const, "development");
  const port = int("PORT", 3000, 0, 65535);

  let baseUrl = read("BASE_URL") ?? `http://localhost:${port}`;
  try {
    const u = new URL(baseUrl);
    if (u.protocol !== "http:" && u.protocol !== "https:") throw new Error("scheme");
    baseUrl = baseUrl.replace(/\/+$/, "");
  } catch {
    problems.push(`BASE_URL must be an http(s) URL (got "${baseUrl}")`);
  }

  const pepperVar = read("API_KEY_PEPPER") !== undefined ? "API_KEY_PEPPER" : "QUIRE_API_KEY_PEPPER";
  const apiKeyPepper = read(pepperVar);
  if (apiKeyPepper !== undefined && apiKeyPepper.length < 16) {
    problems.push(`${pepperVar} must be at least 16 characters`);
  }
  if (quireEnv === "production" && apiKeyPepper === undefined) {
    problems.push("API_KEY_PEPPER (or QUIRE_API_KEY_PEPPER) is required when QUIRE_ENV=production");
  }

  let trustProxy: false | number = false;
  const tp = read("TRUST_PROXY")?.toLowerCase();
  if (tp !== undefined) {
    if (["false", "0", "no", "off"].includes(tp)) trustProxy = false;
    else if (["true", "yes", "on"].includes(tp)) trustProxy = 1;
    else if (/^\d+$/.test(tp) && Number(tp) <= 10) trustProxy = Number(tp);
    else problems.push(`TRUST_PROXY must be true, false or a hop count from 0 to 10 (got "${tp}")`);
  }

  let smtp: SmtpConfig | undefined;
  const smtpHost = read("SMTP_HOST");
  if (smtpHost !== undefined) {
    const from = read("SMTP_FROM");
    if (from === undefined) problems.push("SMTP_FROM is required when SMTP_HOST is set");
    const smtpPort = int("SMTP_PORT", 587, 1, 65535);
    smtp = {
      host: smtpHost,
      port: smtpPort,
      secure: bool("SMTP_SECURE", smtpPort === 465),
      from: from ?? "",
      ...(read("SMTP_USER") !== undefined ? { user: read("SMTP_USER") } : {}),
      ...(read("SMTP_PASS") !== undefined ? { pass: read("SMTP_PASS") } : {}),
    };
  }

  const gitAllowPrivate = bool("GIT_ALLOWLIST_PRIVATE", false);
  const git: Config["git"] = {
    allowPrivate: gitAllowPrivate,
    // Asked like a git remote, so plain http and private addresses follow GIT_ALLOWLIST_PRIVATE.
    githubApiUrl: serviceUrl("GITHUB_API_URL", read("GITHUB_API_URL") ?? "https://api.github.com", gitAllowPrivate, problems, "GIT_ALLOWLIST_PRIVATE"),
    gitlabApiUrl: serviceUrl("GITLAB_API_URL", read("GITLAB_API_URL") ?? "https://gitlab.com/api/v4", gitAllowPrivate, problems, "GIT_ALLOWLIST_PRIVATE"),
  };
  const sshKey = read("GIT_SSH_KEY_PATH");
  if (sshKey !== undefined) {
    if (!sshKey.startsWith("/")) problems.push(`GIT_SSH_KEY_PATH must be an absolute path (got "${sshKey}")`);
    else git.sshKeyPath = sshKey;
  }
  const knownHosts = read("GIT_SSH_KNOWN_HOSTS");
  if (knownHosts !== undefined) {
    if (!knownHosts.startsWith("/")) problems.push(`GIT_SSH_KNOWN_HOSTS must be an absolute path (got "${knownHosts}")`);
    else git.sshKnownHosts = knownHosts;
  }

  let ai: Config["ai"];
  const aiBase = read("AI_BASE_URL");
  const aiModel = read("AI_MODEL");
  const aiKey = read("AI_API_KEY");
  if (aiBase !== undefined || aiModel !== undefined || aiKey !== undefined) {
    let base = aiBase;
    if (base === undefined) problems.push("AI_BASE_URL is required when AI_MODEL or AI_API_KEY is set");
    else {
      try {
        const u = new URL(base);
        if (u.protocol !== "http:" && u.protocol !== "https:") throw new Error("scheme");
        if (u.username || u.password) throw new Error("credentials");
        base = base.replace(/\/+$/, "");
      } catch {
        problems.push(`AI_BASE_URL must be an http(s) URL without credentials, e.g. http://127.0.0.1:11434/v1 (got "${base}")`);
        base = undefined;
      }
    }
    if (aiModel === undefined) problems.push("AI_MODEL is required when AI_BASE_URL is set");
    if (base !== undefined && aiModel !== undefined) ai = { baseUrl: base, model: aiModel, ...(aiKey ? { apiKey: aiKey } : {}) };
  }
  const mcpCorsOrigins = originList(read("MCP_CORS_ORIGINS"), "MCP_CORS_ORIGINS", problems);
  const publish: Config["publish"] = { requireAuth: bool("PUBLISH_REQUIRE_AUTH", false), cacheMaxAge: int("SITE_CACHE_MAX_AGE", 300, 0, 86_400) };
  const resolver = read("CUSTOM_DOMAIN_RESOLVER");
  if (resolver !== undefined) {
    // An IPv4 address or a bracketed IPv6 address, with an optional port: what node:dns setServers takes.
    const m = /^(?:(\d{1,3}(?:\.\d{1,3}){3})|\[([0-9a-fA-F:]+)\])(?::(\d{1,5}))?$/.exec(resolver);
    if (!m || (m[3] !== undefined && (Number(m[3]) < 1 || Number(m[3]) > 65535)) || (m[1] !== undefined && m[1].split(".").some((o) => Number(o) > 255))) {
      problems.push(`CUSTOM_DOMAIN_RESOLVER must be an IP address with an optional port, e.g. 127.0.0.1:5353 or [::1]:53 (got "${resolver}")`);
    } else publish.dnsResolver = resolver;
  }

  const argon2: Config["argon2"] = {
    memoryKiB: int("ARGON2_MEMORY", 65536, 8, 4 * 1024 * 1024),
    iterations: int("ARGON2_TIME", 3, 1, 100),
    parallelism: int("ARGON2_THREADS", 2, 1, 64),
  };
  // argon2 itself refuses less than 8 KiB per lane: accepted here, every hash (so every sign-in) would fail.
  if (argon2.memoryKiB < 8 * argon2.parallelism) {
    problems.push(
      `ARGON2_MEMORY must be at least 8 KiB per thread (8 × ARGON2_THREADS = ${8 * argon2.parallelism}; got ${argon2.memoryKiB})`,
    );
  }

  const stripe = readStripe(read, problems);
  const oidc = readExternalSignIn(read, bool, problems);
  const webauthn = readWebAuthn(read, baseUrl, problems);

  const config: Config = {
    env: quireEnv,
    oidc,
    ...(webauthn ? { webauthn } : {}),
    port,
    baseUrl,
    argon2,
    loginLock: {
      threshold: int("QUIRE_LOGIN_LOCK_THRESHOLD", 5, 1),
      durationSec: int("QUIRE_LOGIN_LOCK_DURATION_SEC", 900, 1),
    },
    disableSignup: bool("QUIRE_DISABLE_SIGNUP", false),
    trustProxy,
    log: {
      level: oneOf("LOG_LEVEL", ["debug", "info", "warn", "error"] as const, "info"),
      format: oneOf("LOG_FORMAT", ["json", "pretty", "auto"] as const, "auto"),
    },
    edition: oneOf("QUIRE_EDITION", ["community", "cloud"] as const, "community"),
    git,
    watchFiles: bool("QUIRE_WATCH_FILES", true),
    webhookAllowPrivate: bool("WEBHOOK_ALLOWLIST_PRIVATE", false),
    oauthClientMetadataAllowPrivate: bool("OAUTH_CLIENT_METADATA_ALLOWLIST_PRIVATE", false),
    ...(read("STRIPE_WEBHOOK_SECRET") ? { stripeWebhookSecret: read("STRIPE_WEBHOOK_SECRET") } : {}),
    stripe,
    metrics: {
      enabled: bool("FF_METRICS", false),
      ...(read("METRICS_PORT") !== undefined ? { port: int("METRICS_PORT", 0, 0, 65535) } : {}),
    },
    backup: { enabled: bool("BACKUP_ENABLED", true), retentionDays: int("BACKUP_RETENTION_DAYS", 7, 1, 3650) },
    storage: { minFreeMb: int("STORAGE_MIN_FREE_MB", 200, 0, 10_000_000) },
    mcpCorsOrigins,
    ...(ai ? { ai } : {}),
    publish,
    ...(smtp ? { smtp } : {}),
    ...(apiKeyPepper ? { apiKeyPepper } : {}),
    ...(read("DATA_DIR") ? { dataDirFromEnv: read("DATA_DIR") } : {}),
    ...(read("JWT_KEY_PATH") ? { jwtKeyPath: read("JWT_KEY_PATH") } : {}),
  };
  if (problems.length > 0) throw new ConfigError(problems);
  return config;
}

type Read = (name: string) => string | undefined;

export interface StripeConfig {
  /** Secret or restricted key (sk_… / rk_…); absent: checkout and portal answer 503. Never logged. */
  secretKey?: string;
  /** Base URL of the API, without a trailing slash (https://api.stripe.com). */
  apiUrl: string;
  /** Price id of each paid plan (price_…); a plan without one cannot be bought here. */
  prices: { team?: string; business?: string };
}

/** The payment provider's API settings; every problem is reported at once with the others. */
function readStripe(read: Read, problems: string[]): StripeConfig {
  const secretKey = read("STRIPE_SECRET_KEY");
  if (secretKey !== undefined && !/^(sk|rk)_(test|live)_[A-Za-z0-9]{8,}$/.test(secretKey)) {
    // The value itself is never echoed: it is a secret even when malformed.
    problems.push("STRIPE_SECRET_KEY must be a Stripe secret or restricted key (sk_live_…, sk_test_…, rk_…)");
  }
  const prices: StripeConfig["prices"] = {};
  for (const plan of ["team", "business"] as const) {
    const name = `STRIPE_PRICE_${plan.toUpperCase()}`;
    const id = read(name);
    if (id === undefined) continue;
    if (!/^price_[A-Za-z0-9_]{1,200}$/.test(id)) problems.push(`${name} must be a Stripe price id (price_…) (got "${id}")`);
    else prices[plan] = id;
  }
  if (secretKey === undefined && Object.keys(prices).length > 0) {
    problems.push("STRIPE_PRICE_TEAM/STRIPE_PRICE_BUSINESS are set but STRIPE_SECRET_KEY is not: checkout cannot work without it");
  }
  const rawUrl = read("STRIPE_API_URL") ?? "https://api.stripe.com";
  let apiUrl = rawUrl.replace(/\/+$/, "");
  try {
    const u = new URL(rawUrl);
    // Plain http only to this machine (a local stand-in); the key travels in every request.
    const loopback = ["127.0.0.1", "localhost", "[::1]"].includes(u.hostname);
    if (u.protocol !== "https:" && !(u.protocol === "http:" && loopback)) {
      problems.push(`STRIPE_API_URL must be an https URL (http only to 127.0.0.1, localhost or [::1]) (got "${rawUrl}")`);
    } else if (u.search || u.hash || u.username || u.password) {
      problems.push(`STRIPE_API_URL must not carry credentials, a query or a fragment (got "${rawUrl}")`);
    }
  } catch {
    problems.push(`STRIPE_API_URL must be an https URL (got "${rawUrl}")`);
    apiUrl = "https://api.stripe.com";
  }
  return { ...(secretKey !== undefined ? { secretKey } : {}), apiUrl, prices };
}

/** An http(s) URL without query or fragment, trailing slashes removed; http only where private networks are allowed. */
function serviceUrl(name: string, raw: string, allowHttp: boolean, problems: string[], allowedBy = "OIDC_ALLOWLIST_PRIVATE"): string {
  try {
    const u = new URL(raw);
    if (u.protocol !== "https:" && !(allowHttp && u.protocol === "http:")) {
      problems.push(`${name} must be an https URL${allowHttp ? " (or http)" : ` (http only with ${allowedBy}=true)`} (got "${raw}")`);
    } else if (u.search || u.hash || u.username || u.password) {
      problems.push(`${name} must not carry credentials, a query or a fragment (got "${raw}")`);
    }
  } catch {
    problems.push(`${name} must be an https URL (got "${raw}")`);
  }
  return raw.replace(/\/+$/, "");
}

/** A provider is on when both its client id and secret are set; one without the other is a mistake worth stopping for. */
function clientPair(read: Read, prefix: string, problems: string[]): OidcProviderConfig | undefined {
  const clientId = read(`${prefix}_CLIENT_ID`);
  const clientSecret = read(`${prefix}_CLIENT_SECRET`);
  if (clientId === undefined && clientSecret === undefined) return undefined;
  if (clientId === undefined || clientSecret === undefined) {
    problems.push(`${prefix}_CLIENT_ID and ${prefix}_CLIENT_SECRET must be set together (only ${clientId === undefined ? `${prefix}_CLIENT_SECRET` : `${prefix}_CLIENT_ID`} is set)`);
    return undefined;
  }
  return { clientId, clientSecret };
}

function readExternalSignIn(read: Read, bool: (name: string, fallback: boolean) => boolean, problems: string[]): ExternalSignInConfig {
  const allowPrivate = bool("OIDC_ALLOWLIST_PRIVATE", false);
  const out: ExternalSignInConfig = { allowPrivate };
  const google = clientPair(read, "OIDC_GOOGLE", problems);
  const issuer = serviceUrl("OIDC_GOOGLE_ISSUER", read("OIDC_GOOGLE_ISSUER") ?? "https://accounts.google.com", allowPrivate, problems);
  const name = read("OIDC_GOOGLE_NAME") ?? "Google";
  if (name.length > 40) problems.push(`OIDC_GOOGLE_NAME must be at most 40 characters (got ${name.length})`);
  if (google) out.google = { ...google, issuer, name };
  const github = clientPair(read, "OIDC_GITHUB", problems);
  const url = serviceUrl("OIDC_GITHUB_URL", read("OIDC_GITHUB_URL") ?? "https://github.com", allowPrivate, problems);
  const apiUrl = serviceUrl("OIDC_GITHUB_API_URL", read("OIDC_GITHUB_API_URL") ?? "https://api.github.com", allowPrivate, problems);
  if (github) out.github = { ...github, url, apiUrl };
  return out;
}

/**
 * Passkeys are on when WEBAUTHN_RP_ID is set. The RP ID is a bare domain (no scheme, port,
 * wildcard or IP address: browsers refuse those); every origin must be that domain or one of its
 * subdomains, over https (http only for localhost, which browsers treat as secure). Without
 * WEBAUTHN_RP_ORIGINS the origin of BASE_URL is the one origin.
 */
function readWebAuthn(read: Read, baseUrl: string, problems: string[]): WebAuthnConfig | undefined {
  const rpId = read("WEBAUTHN_RP_ID")?.toLowerCase();
  const rawOrigins = read("WEBAUTHN_RP_ORIGINS");
  if (rpId === undefined) {
    if (rawOrigins !== undefined) problems.push("WEBAUTHN_RP_ORIGINS is set but WEBAUTHN_RP_ID is not (passkeys need both)");
    return undefined;
  }
  const before = problems.length;
  if (!/^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/.test(rpId) || /^\d+(\.\d+){3}$/.test(rpId)) {
    problems.push(`WEBAUTHN_RP_ID must be a domain name without scheme, port, wildcard or IP address (got "${rpId}")`);
  }
  let origins: string[] = [];
  try {
    origins = (rawOrigins ?? new URL(baseUrl).origin).split(",").map((o) => o.trim()).filter((o) => o !== "");
  } catch {
    origins = [];
  }
  if (origins.length === 0) problems.push("WEBAUTHN_RP_ORIGINS must list at least one origin");
  for (const origin of origins) {
    let u: URL;
    try {
      u = new URL(origin);
    } catch {
      problems.push(`WEBAUTHN_RP_ORIGINS: "${origin}" is not an origin (scheme://host[:port])`);
      continue;
    }
    if (u.origin !== origin.replace(/\/+$/, "")) {
      problems.push(`WEBAUTHN_RP_ORIGINS: "${origin}" must be a bare origin (scheme://host[:port], no path)`);
      continue;
    }
    const host = u.hostname.toLowerCase();
    if (host !== rpId && !host.endsWith(`.${rpId}`)) {
      problems.push(`WEBAUTHN_RP_ORIGINS: "${origin}" does not match WEBAUTHN_RP_ID "${rpId}" (its host must be ${rpId} or a subdomain of it)`);
    }
    const local = host === "localhost" || host.endsWith(".localhost");
    if (u.protocol !== "https:" && !(u.protocol === "http:" && local)) {
      problems.push(`WEBAUTHN_RP_ORIGINS: "${origin}" must be https (passkeys need a secure origin; http only for localhost)`);
    }
  }
  const rpName = read("WEBAUTHN_RP_DISPLAY_NAME") ?? "Quire";
  if (rpName.length > 64) problems.push(`WEBAUTHN_RP_DISPLAY_NAME must be at most 64 characters (got ${rpName.length})`);
  if (problems.length > before) return undefined;
  return { rpId, rpName, origins: origins.map((o) => o.replace(/\/+$/, "")) };
}

/**
 * A comma-separated list of browser origins (`https://app.example.com`), each checked and reduced to
 * its origin form; problems are collected under `name`.
 */
export function originList(raw: string | undefined, name: string, problems: string[]): string[] {
  if (raw === undefined || raw.trim() === "") return [];
  const out: string[] = [];
  for (const part of raw.split(",").map((p) => p.trim()).filter((p) => p !== "")) {
    try {
      const u = new URL(part);
      if ((u.protocol !== "http:" && u.protocol !== "https:") || u.pathname !== "/" || u.search || u.hash || u.username) throw new Error();
      out.push(u.origin);
    } catch {
      problems.push(`${name} must list origins such as https://claude.ai, separated by commas (got "${part}")`);
    }
  }
  return out;
}
