/**
 * Starts the loopback OpenID provider (fixtures/oidc-issuer.mjs) under Node and drives its
 * development login screens headlessly, the way a person at the provider would.
 */
import { join } from "node:path";

export const NODE = process.env.NODE_BINARY ?? "node";

export interface TestAccount {
  email: string;
  email_verified: boolean;
  name: string;
}

export interface TestIssuer {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** Environment that makes a Quire server use this issuer in the Google slot. */
  env: Record<string, string>;
  setIdTokenMode(mode: "pass" | "tamper" | "audience" | "old-nonce"): Promise<void>;
  close(): Promise<void>;
}

export async function startIssuer(opts: { redirectUris: string[]; accounts: Record<string, TestAccount> }): Promise<TestIssuer> {
  const clientId = "quire-test-client";
  const clientSecret = "a-client-secret-for-tests-only-0123456789";
  const setup = {
    clients: [{ client_id: clientId, client_secret: clientSecret, redirect_uris: opts.redirectUris, grant_types: ["authorization_code"], response_types: ["code"] }],
    accounts: opts.accounts,
  };
  const proc = Bun.spawn([NODE, join(import.meta.dir, "fixtures/oidc-issuer.mjs")], {
    env: { PATH: process.env.PATH ?? "", OIDC_TEST_SETUP: JSON.stringify(setup), NODE_ENV: "test" },
    cwd: join(import.meta.dir, "../.."),
    stdout: "pipe",
    stderr: "inherit",
  });
  const reader = proc.stdout.getReader();
  let out = "";
  while (!out.includes("\n")) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`the OpenID provider exited before it was ready: ${out}`);
    out += new TextDecoder().decode(value);
  }
  const { issuer } = JSON.parse(out.split("\n")[0]!) as { issuer: string };
  return {
    issuer,
    clientId,
    clientSecret,
    env: { OIDC_GOOGLE_CLIENT_ID: clientId, OIDC_GOOGLE_CLIENT_SECRET: clientSecret, OIDC_GOOGLE_ISSUER: issuer, OIDC_GOOGLE_NAME: "Test ID", OIDC_ALLOWLIST_PRIVATE: "true" },
    async setIdTokenMode(mode) {
      await fetch(`${issuer}/__control`, { method: "POST", body: JSON.stringify({ id_token: mode }) });
    },
    async close() {
      proc.kill("SIGTERM");
      await proc.exited;
    },
  };
}

/** A cookie jar per host, enough for the provider's interaction cookies. */
class Jar {
  private cookies = new Map<string, string>();
  header(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join("; ");
  }
  take(res: Response): void {
    for (const c of res.headers.getSetCookie()) {
      const [pair] = c.split(";");
      const i = pair!.indexOf("=");
      const name = pair!.slice(0, i).trim();
      const value = pair!.slice(i + 1);
      if (value === "" || /expires=Thu, 01 Jan 1970/i.test(c)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }
}

/**
 * Follows the authorization URL through the provider's login and consent screens as `login`, and
 * returns the URL the provider finally redirects to (Quire's callback, with code, state and iss).
 */
export async function signInAtIssuer(authorizationUrl: string, login: string): Promise<URL> {
  const jar = new Jar();
  let url = authorizationUrl;
  let method = "GET";
  let body: string | undefined;
  for (let hop = 0; hop < 20; hop++) {
    const res = await fetch(url, {
      method,
      redirect: "manual",
      headers: { cookie: jar.header(), ...(body ? { "content-type": "application/x-www-form-urlencoded" } : {}) },
      body,
    });
    jar.take(res);
    const location = res.headers.get("location");
    if (location) {
      const next = new URL(location, url);
      if (!next.href.startsWith(new URL(authorizationUrl).origin)) return next;
      url = next.href;
      method = "GET";
      body = undefined;
      continue;
    }
    const html = await res.text();
    const action = /<form[^>]*action="([^"]+)"/.exec(html)?.[1];
    if (!action) throw new Error(`the provider showed no form at ${url}: ${res.status} ${html.slice(0, 300)}`);
    url = new URL(action.replace(/&amp;/g, "&"), url).href;
    method = "POST";
    body = html.includes('name="login"') ? new URLSearchParams({ prompt: "login", login, password: "any password" }).toString() : new URLSearchParams({ prompt: "consent" }).toString();
  }
  throw new Error("too many hops at the provider");
}
