import { Elysia } from "elysia";
import type { Services } from "../../services.ts";
import { httpCore } from "../core.ts";
import { requireSession } from "../guards.ts";
import { parseInput } from "../../core/validate.ts";
import { oidcCallbackQuery, oidcClaimInput, oidcProviderParams, oidcStartInput, providerListOutput, setPasswordInput, signInMethodsOutput } from "../../identity/schemas.ts";
import { FLOW_TTL_MS } from "../../identity/oidc-service.ts";
import { REFRESH_COOKIE } from "./auth.ts";
import { REFRESH_TTL_MS } from "../../identity/sessions.ts";
import type { RouteDocs } from "../openapi.ts";

/** The browser secret that binds a sign-in flow (and its claim code) to the browser that started it. */
const OIDC_COOKIE = "quire_oidc";

type CookieJar = Record<string, { value: unknown; set(o: Record<string, unknown>): void }>;

/** The callback's answer, and what its OpenAPI entry documents: See Other, so the browser GETs the app's URL. */
const CALLBACK_REDIRECT = 303;

/**
 * External sign-in (docs/architecture.md §14): GET /api/auth/providers, POST /api/auth/oidc/:provider → {url},
 * GET /api/auth/oidc/:provider/callback → 303 to the app, POST /api/auth/oidc/claim {code} → token pair.
 */
export function oidcRoutes(services: Services) {
  const { oidc, config } = services;
  const secure = config.baseUrl.startsWith("https://");
  const cookieValue = (jar: CookieJar) => {
    const v = jar[OIDC_COOKIE]?.value;
    return typeof v === "string" && v !== "" ? v : undefined;
  };
  return new Elysia({ prefix: "/api/auth" })
    .use(httpCore(services))
    .get("/providers", () => ({ items: oidc.list() }))
    .post("/oidc/claim", async ({ body, cookie, request, ip }) => {
      const input = parseInput(oidcClaimInput, body);
      const jar = cookie as CookieJar;
      const tokens = await oidc.claim(input.code, cookieValue(jar), { ip, device: request.headers.get("user-agent") ?? "" });
      jar[REFRESH_COOKIE]!.set({
        value: tokens.refresh_token,
        httpOnly: true,
        secure,
        sameSite: "strict",
        path: "/api/auth",
        maxAge: Math.floor(REFRESH_TTL_MS / 1000),
      });
      jar[OIDC_COOKIE]!.set({ value: "", httpOnly: true, secure, sameSite: "lax", path: "/api/auth/oidc", maxAge: 0 });
      return { access_token: tokens.access_token, refresh_token: tokens.refresh_token, expires_in: tokens.expires_in };
    })
    .post("/oidc/:provider", async ({ params, body, principal, cookie }) => {
      const { provider } = parseInput(oidcProviderParams, params);
      const input = parseInput(oidcStartInput, body ?? {});
      const linkUserId = input.link ? requireSession(principal).userId : null;
      const { url, browserSecret } = await oidc.start(provider, { linkUserId });
      // Lax, not Strict: the provider sends the browser back with a cross-site top-level GET.
      (cookie as CookieJar)[OIDC_COOKIE]!.set({
        value: browserSecret,
        httpOnly: true,
        secure,
        sameSite: "lax",
        path: "/api/auth/oidc",
        maxAge: Math.floor(FLOW_TTL_MS / 1000),
      });
      return { url };
    })
    .get("/oidc/:provider/callback", async ({ params, query, cookie, set }) => {
      const { provider } = parseInput(oidcProviderParams, params);
      parseInput(oidcCallbackQuery, query);
      const raw = new URLSearchParams(Object.entries(query as Record<string, string>).filter(([, v]) => typeof v === "string"));
      const outcome = await oidc.callback(provider, raw, cookieValue(cookie as CookieJar));
      set.status = CALLBACK_REDIRECT;
      set.headers["location"] = outcome.location;
      set.headers["cache-control"] = "no-store";
      set.headers["referrer-policy"] = "no-referrer";
      return "";
    });
}

/**
 * The profile's sign-in methods: GET /api/auth/methods, DELETE /api/auth/oidc/:provider (unlink),
 * POST /api/auth/password (add one), DELETE /api/auth/password (a passkey- or provider-only account).
 */
export function signInMethodRoutes(services: Services) {
  const { signInMethods } = services;
  return new Elysia({ prefix: "/api/auth" })
    .use(httpCore(services))
    .get("/methods", ({ principal }) => signInMethods.list(requireSession(principal).userId))
    .delete("/oidc/:provider", ({ principal, params, set }) => {
      const { provider } = parseInput(oidcProviderParams, params);
      signInMethods.unlink(requireSession(principal).userId, provider);
      set.status = 204;
    })
    .post("/password", async ({ principal, body, set }) => {
      await signInMethods.addPassword(requireSession(principal).userId, body);
      set.status = 204;
    })
    .delete("/password", ({ principal, set }) => {
      signInMethods.removePassword(requireSession(principal).userId);
      set.status = 204;
    });
}

/** The OpenAPI entries of these routes (src/http/routes/openapi.ts assembles the document from every file's). */
export const oidcDocs: RouteDocs = {
  "GET /api/auth/providers": { summary: "External sign-in providers that are set up", tag: "auth", auth: "public", response: providerListOutput },
  "POST /api/auth/oidc/:provider": { summary: "Start external sign-in (or linking, signed in): the provider's URL", tag: "auth", auth: "public", params: oidcProviderParams, body: oidcStartInput },
  "GET /api/auth/oidc/:provider/callback": { summary: "The provider's redirect back (verifies everything, redirects to the app)", tag: "auth", auth: "public", params: oidcProviderParams, query: oidcCallbackQuery, status: CALLBACK_REDIRECT },
  "POST /api/auth/oidc/claim": { summary: "Trade the one-time claim code for the token pair", tag: "auth", auth: "public", body: oidcClaimInput },
  "DELETE /api/auth/oidc/:provider": { summary: "Unlink an external sign-in (not the last method)", tag: "auth", params: oidcProviderParams, status: 204 },
  "GET /api/auth/methods": { summary: "The caller's sign-in methods", tag: "auth", response: signInMethodsOutput },
  "POST /api/auth/password": { summary: "Add a password to an account without one", tag: "auth", body: setPasswordInput, status: 204 },
  "DELETE /api/auth/password": { summary: "Remove the password (not the last method)", tag: "auth", status: 204 },
};
