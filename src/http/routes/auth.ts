import { Elysia } from "elysia";
import type { Services } from "../../services.ts";
import { httpCore } from "../core.ts";
import type { IssuedTokens } from "../../identity/auth-service.ts";
import { REFRESH_TTL_MS } from "../../identity/sessions.ts";
import { WS_TOKEN_TTL_SEC } from "../../identity/access-tokens.ts";
import { requirePrincipal, requireSession } from "../guards.ts";
import { parseInput } from "../../core/validate.ts";
import { refreshInput, loginInput, meOutput, registerInput, registerOutput, sessionListOutput, tokenPairOutput } from "../../identity/schemas.ts";
import type { RouteDocs } from "../openapi.ts";

export const REFRESH_COOKIE = "quire_refresh";
export const WS_COOKIE = "quire_ws_token";

type CookieJar = Record<string, { value: unknown; set(o: Record<string, unknown>): void; remove(): void }>;

export function authRoutes(services: Services) {
  const { auth, config } = services;
  const secure = config.baseUrl.startsWith("https://");
  const setRefreshCookie = (cookie: CookieJar, token: string) =>
    cookie[REFRESH_COOKIE]!.set({
      value: token,
      httpOnly: true,
      secure,
      sameSite: "strict",
      path: "/api/auth",
      maxAge: Math.floor(REFRESH_TTL_MS / 1000),
    });
  const clearRefreshCookie = (cookie: CookieJar) =>
    cookie[REFRESH_COOKIE]!.set({ value: "", httpOnly: true, secure, sameSite: "strict", path: "/api/auth", maxAge: 0 });
  const client = (request: Request, ip: string) => ({ ip, device: request.headers.get("user-agent") ?? "" });
  const tokenPair = (t: IssuedTokens) => ({ access_token: t.access_token, refresh_token: t.refresh_token, expires_in: t.expires_in });

  return new Elysia({ prefix: "/api/auth" })
    .use(httpCore(services))
    .post("/register", async ({ body, request, ip, cookie, set }) => {
      const { user, tokens } = await auth.register(body, client(request, ip));
      set.status = 201;
      if (!tokens) return { user };
      setRefreshCookie(cookie as CookieJar, tokens.refresh_token);
      return { user, access_token: tokens.access_token, expires_at: tokens.expires_at, expires_in: tokens.expires_in };
    })
    .post("/login", async ({ body, request, ip, cookie }) => {
      const tokens = await auth.login(body, client(request, ip));
      setRefreshCookie(cookie as CookieJar, tokens.refresh_token);
      return tokenPair(tokens);
    })
    .post("/refresh", async ({ body, request, ip, cookie }) => {
      const jar = cookie as CookieJar;
      const input = parseInput(refreshInput, body ?? {});
      const fromCookie = jar[REFRESH_COOKIE]?.value;
      const token = input.refresh_token ?? (typeof fromCookie === "string" && fromCookie !== "" ? fromCookie : undefined);
      try {
        const tokens = await auth.refresh(token, client(request, ip));
        setRefreshCookie(jar, tokens.refresh_token);
        return tokenPair(tokens);
      } catch (error) {
        clearRefreshCookie(jar);
        throw error;
      }
    })
    .post("/logout", ({ principal, cookie, set }) => {
      // An API key signs nobody out: sessions belong to people signed in on a device.
      const p = requireSession(principal);
      auth.logout(p.userId);
      clearRefreshCookie(cookie as CookieJar);
      (cookie as CookieJar)[WS_COOKIE]!.set({ value: "", httpOnly: true, secure, sameSite: "strict", path: "/ws", maxAge: 0 });
      set.status = 204;
    })
    .get("/me", ({ principal }) => {
      const p = requirePrincipal(principal);
      return { user: auth.me(p.userId) };
    })
    .get("/sessions", ({ principal }) => {
      const p = requireSession(principal);
      return { items: auth.sessions(p.userId, p.sessionId), next_cursor: null };
    })
    .post("/ws-token", async ({ principal, cookie, set }) => {
      const p = requireSession(principal);
      const { token } = await auth.wsToken(p.userId, p.sessionId, p.orgId);
      (cookie as CookieJar)[WS_COOKIE]!.set({
        value: token,
        httpOnly: true,
        secure,
        sameSite: "strict",
        path: "/ws",
        maxAge: WS_TOKEN_TTL_SEC,
      });
      set.status = 204;
    });
}

/** The OpenAPI entries of these routes (src/http/routes/openapi.ts assembles the document from every file's). */
export const authDocs: RouteDocs = {
  "POST /api/auth/register": { summary: "Register (creates the user's organization and a starter workspace)", tag: "auth", auth: "public", body: registerInput, status: 201, response: registerOutput },
  "POST /api/auth/login": { summary: "Sign in with email and password", tag: "auth", auth: "public", body: loginInput, response: tokenPairOutput },
  "POST /api/auth/refresh": { summary: "Rotate the refresh token (body or cookie)", tag: "auth", auth: "public", body: refreshInput, response: tokenPairOutput },
  "POST /api/auth/logout": { summary: "Revoke all of the user's sessions", tag: "auth", status: 204 },
  "GET /api/auth/me": { summary: "The current user", tag: "auth", response: meOutput },
  "GET /api/auth/sessions": { summary: "The user's active sessions", tag: "auth", response: sessionListOutput },
  "POST /api/auth/ws-token": { summary: "Set the WebSocket cookie", tag: "auth", status: 204 },
};
