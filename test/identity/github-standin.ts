/**
 * A GitHub stand-in on loopback (GitHub cannot run here), answering with GitHub's documented
 * shapes: /login/oauth/authorize redirects back with ?code&state; POST /login/oauth/access_token
 * answers JSON when asked (Accept: application/json) and reports errors such as
 * `bad_verification_code` with HTTP 200; the REST API under /api/v3 (GitHub Enterprise Server's
 * layout): GET /user (`email` null when the person keeps it private), GET /user/emails →
 * [{email, primary, verified, visibility}], 401 {"message": "Bad credentials"} without a token.
 */
import { createHash, randomBytes } from "node:crypto";

export interface GitHubPerson {
  id: number;
  login: string;
  name: string | null;
  /** The profile's public email; null when private. */
  publicEmail: string | null;
  emails: Array<{ email: string; primary: boolean; verified: boolean; visibility: "public" | "private" | null }>;
}

export interface GitHubStandIn {
  url: string;
  apiUrl: string;
  clientId: string;
  clientSecret: string;
  /** Who "signs in" at the next authorize. */
  signInAs(person: GitHubPerson): void;
  env: Record<string, string>;
  close(): Promise<void>;
}

export function startGitHub(): GitHubStandIn {
  const clientId = "Iv1.standin0123456789";
  const clientSecret = "standin-secret-0123456789abcdef0123456789";
  let current: GitHubPerson | null = null;
  const codes = new Map<string, { person: GitHubPerson; redirectUri: string; challenge: string; used: boolean }>();
  const tokens = new Map<string, GitHubPerson>();
  const json = (body: unknown, status = 200) => Response.json(body, { status });
  const oauthError = (error: string, description: string) =>
    json({ error, error_description: description, error_uri: `https://docs.github.com/apps/troubleshooting#${error}` });

  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(req) {
      const url = new URL(req.url);
      if (url.pathname === "/login/oauth/authorize") {
        const q = url.searchParams;
        if (q.get("client_id") !== clientId || !current) return new Response("unknown client", { status: 404 });
        const code = randomBytes(10).toString("hex");
        codes.set(code, { person: current, redirectUri: q.get("redirect_uri") ?? "", challenge: q.get("code_challenge") ?? "", used: false });
        const back = new URL(q.get("redirect_uri")!);
        back.searchParams.set("code", code);
        back.searchParams.set("state", q.get("state") ?? "");
        return Response.redirect(back.href, 302);
      }
      if (url.pathname === "/login/oauth/access_token" && req.method === "POST") {
        const form = new URLSearchParams(await req.text());
        if (!(req.headers.get("accept") ?? "").includes("application/json")) return new Response("access_token=unused", { status: 200 });
        if (form.get("client_id") !== clientId || form.get("client_secret") !== clientSecret) {
          return oauthError("incorrect_client_credentials", "The client_id and/or client_secret passed are incorrect.");
        }
        const entry = codes.get(form.get("code") ?? "");
        if (!entry || entry.used) return oauthError("bad_verification_code", "The code passed is incorrect or expired.");
        if (entry.redirectUri !== form.get("redirect_uri")) return oauthError("redirect_uri_mismatch", "The redirect_uri MUST match the registered callback URL for this application.");
        const verifier = form.get("code_verifier") ?? "";
        if (createHash("sha256").update(verifier).digest("base64url") !== entry.challenge) {
          return oauthError("bad_verification_code", "The code_verifier does not match the code_challenge.");
        }
        entry.used = true;
        const token = `gho_${randomBytes(18).toString("hex")}`;
        tokens.set(token, entry.person);
        return json({ access_token: token, token_type: "bearer", scope: "read:user,user:email" });
      }
      const person = tokens.get((req.headers.get("authorization") ?? "").replace(/^Bearer /, ""));
      if (url.pathname.startsWith("/api/v3/") && !person) {
        return json({ message: "Bad credentials", documentation_url: "https://docs.github.com/rest" }, 401);
      }
      if (url.pathname === "/api/v3/user") {
        return json({ login: person!.login, id: person!.id, node_id: "U_x", type: "User", name: person!.name, email: person!.publicEmail });
      }
      if (url.pathname === "/api/v3/user/emails") return json(person!.emails);
      return json({ message: "Not Found", documentation_url: "https://docs.github.com/rest" }, 404);
    },
  });
  const url = `http://127.0.0.1:${server.port}`;
  return {
    url,
    apiUrl: `${url}/api/v3`,
    clientId,
    clientSecret,
    signInAs(person) {
      current = person;
    },
    env: { OIDC_GITHUB_CLIENT_ID: clientId, OIDC_GITHUB_CLIENT_SECRET: clientSecret, OIDC_GITHUB_URL: url, OIDC_GITHUB_API_URL: `${url}/api/v3`, OIDC_ALLOWLIST_PRIVATE: "true" },
    async close() {
      await server.stop(true);
    },
  };
}
