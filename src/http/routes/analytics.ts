import { Elysia } from "elysia";
import type { Services } from "../../app.ts";
import { httpCore } from "../core.ts";
import { requirePrincipal } from "../guards.ts";
import { CONSENT_COOKIE } from "../../ops/analytics.ts";

type CookieJar = Record<string, { set(o: Record<string, unknown>): void }>;

/**
 * Analytics (SPEC.md): the public consent answer of a published site's visitor, and the three
 * reports for a workspace's editors (`days` 1–90, default 30).
 */
export function analyticsRoutes(services: Services) {
  const { analytics, config } = services;
  const secure = config.baseUrl.startsWith("https://");
  return new Elysia()
    .use(httpCore(services))
    .post("/api/analytics/consent", ({ body, cookie }) => {
      const answer = analytics.consent(body);
      // The answer lives in the visitor's browser, readable by the site's script (it hides the
      // question); the server keeps only the day's count of answers.
      (cookie as CookieJar)[CONSENT_COOKIE]!.set({
        value: answer.consent,
        path: "/",
        sameSite: "lax",
        secure,
        httpOnly: false,
        maxAge: 365 * 86400,
      });
      return answer;
    })
    .get("/api/v1/workspaces/:id/analytics/pages", ({ principal, params, query }) => analytics.pages(requirePrincipal(principal), params.id, query))
    .get("/api/v1/workspaces/:id/analytics/searches", ({ principal, params, query }) =>
      analytics.searches(requirePrincipal(principal), params.id, query),
    )
    .get("/api/v1/workspaces/:id/analytics/overview", ({ principal, params, query }) =>
      analytics.overview(requirePrincipal(principal), params.id, query),
    );
}
