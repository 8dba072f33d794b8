import { Elysia } from "elysia";
import type { Services } from "../../services.ts";
import { httpCore } from "../core.ts";
import { requirePrincipal } from "../guards.ts";
import { CONSENT_COOKIE } from "../../analytics/input.ts";
import { hostName } from "../../publish/custom-domains.ts";
import { analyticsOverviewOutput, analyticsPagesOutput, analyticsQuery, analyticsSearchesOutput, consentInput, consentOutput } from "../../analytics/schemas.ts";
import type { RouteDocs } from "../openapi.ts";

type CookieJar = Record<string, { set(o: Record<string, unknown>): void }>;

/**
 * Analytics (docs/interfaces.md §3): the public consent answer of a published site's visitor, and the three
 * reports for a workspace's editors (`days` 1–90, default 30).
 */
export function analyticsRoutes(services: Services) {
  const { analytics, config, site } = services;
  const secure = config.baseUrl.startsWith("https://");
  return new Elysia()
    .use(httpCore(services))
    .post("/api/analytics/consent", ({ body, cookie, request }) => {
      // On a verified custom domain (its requests reach this route only for this path, see
      // routes/site.ts) the answer is for that domain's site only, and its cookie is the domain's.
      const host = hostName(request.headers.get("host"));
      const domainSite = host ? site.workspaceForHost(host) : null;
      const answer = analytics.consent(body, domainSite?.id);
      // The answer lives in the visitor's browser, readable by the site's script (it hides the
      // question); the server keeps only the day's count of answers. Each site asks for itself:
      // on the instance's address the cookie's path is the site's /p/{slug}, so a yes to one
      // site is not taken as a yes to another site of the same instance.
      (cookie as CookieJar)[CONSENT_COOKIE]!.set({
        value: answer.consent,
        path: domainSite ? "/" : `/p/${answer.workspace_slug}`,
        sameSite: "lax",
        secure,
        httpOnly: false,
        maxAge: 365 * 86400,
      });
      return { workspace_id: answer.workspace_id, consent: answer.consent };
    })
    .get("/api/v1/workspaces/:id/analytics/pages", ({ principal, params, query }) => analytics.pages(requirePrincipal(principal), params.id, query))
    .get("/api/v1/workspaces/:id/analytics/searches", ({ principal, params, query }) =>
      analytics.searches(requirePrincipal(principal), params.id, query),
    )
    .get("/api/v1/workspaces/:id/analytics/overview", ({ principal, params, query }) =>
      analytics.overview(requirePrincipal(principal), params.id, query),
    );
}

/** The OpenAPI entries of these routes (src/http/routes/openapi.ts assembles the document from every file's). */
export const analyticsDocs: RouteDocs = {
  "POST /api/analytics/consent": { summary: "A site visitor's consent answer (sets a cookie)", tag: "analytics", auth: "public", body: consentInput, response: consentOutput },
  "GET /api/v1/workspaces/:id/analytics/pages": { summary: "Top pages and referrers (editors; PLAN_LIMIT on Cloud Free)", tag: "analytics", query: analyticsQuery, response: analyticsPagesOutput },
  "GET /api/v1/workspaces/:id/analytics/searches": { summary: "Top queries and queries with no results", tag: "analytics", query: analyticsQuery, response: analyticsSearchesOutput },
  "GET /api/v1/workspaces/:id/analytics/overview": { summary: "Analytics dashboard", tag: "analytics", query: analyticsQuery, response: analyticsOverviewOutput },
};
