import { Elysia } from "elysia";
import type { Services } from "../../services.ts";
import { httpCore } from "../core.ts";
import { requireSession } from "../guards.ts";
import { REFRESH_COOKIE } from "./auth.ts";
import { REFRESH_TTL_MS } from "../../identity/sessions.ts";
import { passkeyLoginBeginInput, passkeyLoginFinishInput, passkeyRegisterFinishInput, passkeyRenameInput } from "../../identity/schemas.ts";
import type { RouteDocs } from "../openapi.ts";

type CookieJar = Record<string, { set(o: Record<string, unknown>): void }>;

/**
 * Passkeys (docs/architecture.md §14): register begin/finish (signed in), login begin/finish (public; the
 * token pair of a login, refresh cookie included), and the account's list, rename and delete.
 */
export function passkeyRoutes(services: Services) {
  const { passkeys, config } = services;
  const secure = config.baseUrl.startsWith("https://");
  return new Elysia({ prefix: "/api/auth/webauthn" })
    .use(httpCore(services))
    .post("/register/begin", ({ principal }) => passkeys.registerBegin(requireSession(principal).userId))
    .post("/register/finish", async ({ principal, body, set }) => {
      const record = await passkeys.registerFinish(requireSession(principal).userId, body);
      set.status = 201;
      return record;
    })
    .post("/login/begin", ({ body }) => passkeys.loginBegin(body))
    .post("/login/finish", async ({ body, request, ip, cookie }) => {
      const tokens = await passkeys.loginFinish(body, { ip, device: request.headers.get("user-agent") ?? "" });
      (cookie as CookieJar)[REFRESH_COOKIE]!.set({
        value: tokens.refresh_token,
        httpOnly: true,
        secure,
        sameSite: "strict",
        path: "/api/auth",
        maxAge: Math.floor(REFRESH_TTL_MS / 1000),
      });
      return { access_token: tokens.access_token, refresh_token: tokens.refresh_token, expires_in: tokens.expires_in };
    })
    .get("/credentials", ({ principal }) => ({ items: passkeys.list(requireSession(principal).userId), next_cursor: null }))
    .patch("/credentials/:id", ({ principal, params, body }) => passkeys.rename(requireSession(principal).userId, params.id, body))
    .delete("/credentials/:id", ({ principal, params, set }) => {
      passkeys.remove(requireSession(principal).userId, params.id);
      set.status = 204;
    });
}

/** The OpenAPI entries of these routes (src/http/routes/openapi.ts assembles the document from every file's). */
export const passkeysDocs: RouteDocs = {
  "POST /api/auth/webauthn/register/begin": { summary: "Passkey registration options", tag: "auth" },
  "POST /api/auth/webauthn/register/finish": { summary: "Store a new passkey", tag: "auth", body: passkeyRegisterFinishInput, status: 201 },
  "POST /api/auth/webauthn/login/begin": { summary: "Passkey sign-in options", tag: "auth", auth: "public", body: passkeyLoginBeginInput },
  "POST /api/auth/webauthn/login/finish": { summary: "Sign in with a passkey: the token pair", tag: "auth", auth: "public", body: passkeyLoginFinishInput },
  "GET /api/auth/webauthn/credentials": { summary: "The caller's passkeys", tag: "auth" },
  "PATCH /api/auth/webauthn/credentials/:id": { summary: "Rename a passkey", tag: "auth", body: passkeyRenameInput },
  "DELETE /api/auth/webauthn/credentials/:id": { summary: "Delete a passkey (not the last method)", tag: "auth", status: 204 },
};
