import { Elysia } from "elysia";
import type { Services } from "../../services.ts";
import { httpCore } from "../core.ts";
import type { AuthConfigOutput } from "../../identity/schemas.ts";
import { authConfigOutput } from "../../identity/schemas.ts";
import type { RouteDocs } from "../openapi.ts";

/** What a sign-in screen needs to know before anyone is signed in. */
export function authConfigOf(services: Services): AuthConfigOutput {
  return {
    signup_enabled: !services.config.disableSignup,
    /** Without email, reset links and invitations are handed over by an administrator. */
    email_enabled: services.email.enabled,
    /** The external sign-in buttons: [{id, name}] of the enabled providers. */
    providers: services.oidc.list(),
    /** Whether "Sign in with a passkey" is offered (WEBAUTHN_RP_ID set). */
    passkeys: services.config.webauthn !== undefined,
    /** A writing model is configured (AI_BASE_URL/AI_MODEL): the editor shows its Assist menu. */
    ai_assist: services.assist.configured,
  };
}

/** Public: GET /api/auth/config → {signup_enabled, email_enabled, providers, ai_assist}. */
export function authConfigRoutes(services: Services) {
  return new Elysia({ prefix: "/api/auth" }).use(httpCore(services)).get("/config", () => authConfigOf(services));
}

/** The OpenAPI entries of these routes (src/http/routes/openapi.ts assembles the document from every file's). */
export const authConfigDocs: RouteDocs = {
  "GET /api/auth/config": { summary: "What the sign-in screen needs (sign-up, email, providers)", tag: "auth", auth: "public", response: authConfigOutput },
};
