import { Elysia } from "elysia";
import { httpCore, SERVER_BODY_LIMIT } from "./http/core.ts";
import { siteFastPath } from "./http/site-fast-path.ts";
import { healthRoutes } from "./http/routes/health.ts";
import { authRoutes } from "./http/routes/auth.ts";
import { passwordResetRoutes } from "./http/routes/password-reset.ts";
import { apiKeyRoutes } from "./http/routes/api-keys.ts";
import { authConfigRoutes } from "./http/routes/auth-config.ts";
import { webAppRoutes } from "./http/routes/web-app.ts";
import { searchRoutes } from "./http/routes/search.ts";
import { wsRoutes } from "./http/routes/ws.ts";
import { commentRoutes } from "./http/routes/comments.ts";
import { activityRoutes } from "./http/routes/activity.ts";
import { templateRoutes } from "./http/routes/templates.ts";
import { peopleRoutes } from "./http/routes/people.ts";
import { passwordChangeRoutes } from "./http/routes/password-change.ts";
import { pageViewingRoutes } from "./http/routes/page-viewing.ts";
import { workspaceRoutes } from "./http/routes/workspaces.ts";
import { memberRoutes } from "./http/routes/members.ts";
import { settingsRoutes } from "./http/routes/settings.ts";
import { invitationRoutes } from "./http/routes/invitations.ts";
import { shareLinkRoutes } from "./http/routes/share-links.ts";
import { accessRoutes } from "./http/routes/access.ts";
import { contentRoutes } from "./http/routes/content.ts";
import { uploadRoutes } from "./http/routes/uploads.ts";
import { gitWebhookRoutes } from "./http/routes/git-webhook.ts";
import { gitSyncRoutes } from "./http/routes/git-sync.ts";
import { conflictRoutes } from "./http/routes/conflicts.ts";
import { historyRoutes } from "./http/routes/history.ts";
import { opsApiRoutes } from "./http/routes/ops-api.ts";
import { metricsRoutes } from "./http/routes/metrics.ts";
import { mcpRoutes } from "./http/routes/mcp.ts";
import { oauthRoutes } from "./http/routes/oauth.ts";
import { aiRoutes } from "./http/routes/ai.ts";
import { qualityRoutes } from "./http/routes/quality.ts";
import { exportRoutes } from "./http/routes/export.ts";
import { siteMcpRoutes } from "./http/routes/site-mcp.ts";
import { siteRoutes } from "./http/routes/site.ts";
import { siteAdminRoutes } from "./http/routes/site-admin.ts";
import { oidcRoutes, signInMethodRoutes } from "./http/routes/oidc.ts";
import { passkeyRoutes } from "./http/routes/passkeys.ts";
import type { Services } from "./services.ts";

/** The Elysia application with every route; the caller decides where it listens. */
export function createApp(services: Services) {
  // development: Elysia would pass `development: true` to Bun.serve unless NODE_ENV=production,
  // turning on Bun's development error page (source excerpts) for anything that escapes the
  // error mapper; Quire answers errors itself, in every environment (docs/decisions/git-commits.md).
  // maxRequestBodySize: the 10 MB limit is the app's own (src/core/net/body-limit.ts), so every refusal
  // carries the error shape; Bun's would be a bare 413.
  // routes: the published site's direct lane (http/site-fast-path.ts) is the server's own route
  // for /p/*; what it does not take it hands to the framework's handler.
  const app: ReturnType<typeof routesOf> = routesOf(
    new Elysia({
      serve: {
        maxRequestBodySize: SERVER_BODY_LIMIT,
        development: false,
        routes: { "/p/*": siteFastPath(services, (request) => app.fetch(request)) },
      },
    }),
    services,
  );
  return app;
}

function routesOf(root: Elysia<"">, services: Services) {
  return root
    .use(httpCore(services))
    // Before every other route: a verified custom domain's requests are all the site's.
    .use(siteMcpRoutes(services))
    .use(siteRoutes(services))
    .use(healthRoutes(services))
    .use(authRoutes(services))
    .use(passwordResetRoutes(services))
    .use(apiKeyRoutes(services))
    .use(authConfigRoutes(services))
    .use(oidcRoutes(services))
    .use(signInMethodRoutes(services))
    .use(passkeyRoutes(services))
    .use(workspaceApiRoutes(services))
    .use(opsApiRoutes(services))
    .use(agentRoutes(services))
    .use(metricsRoutes(services))
    .use(qualityRoutes(services))
    .use(exportRoutes(services))
    .use(siteAdminRoutes(services))
    .use(webAppRoutes(services));
}

/**
 * The routes of a workspace's content and people, as one plugin: one chain of every route plugin
 * in createApp exceeds TypeScript's instantiation depth. Order is kept (these come after sign-in
 * and before the operations routes and the app's catch-all).
 */
function workspaceApiRoutes(services: Services) {
  return new Elysia({ name: "quire-workspace-api" })
    .use(searchRoutes(services))
    .use(uploadRoutes(services))
    .use(contentRoutes(services))
    .use(wsRoutes(services))
    .use(commentRoutes(services))
    .use(activityRoutes(services))
    .use(templateRoutes(services))
    .use(peopleRoutes(services))
    .use(passwordChangeRoutes(services))
    .use(pageViewingRoutes(services))
    .use(workspaceRoutes(services))
    .use(memberRoutes(services))
    .use(settingsRoutes(services))
    .use(invitationRoutes(services))
    .use(shareLinkRoutes(services))
    .use(accessRoutes(services))
    .use(gitWebhookRoutes(services))
    .use(gitSyncRoutes(services))
    .use(conflictRoutes(services))
    .use(historyRoutes(services));
}

/** Writing assist and the MCP endpoint (POST /mcp), as one plugin for the same reason. */
function agentRoutes(services: Services) {
  return new Elysia({ name: "quire-agent-api" })
    .use(aiRoutes(services))
    .use(oauthRoutes(services))
    .use(mcpRoutes(services, { origins: services.config.mcpCorsOrigins, selfOrigin: new URL(services.config.baseUrl).origin, oauth: true }));
}
