/**
 * The OpenAPI 3.1 document of every /api route, generated from the zod schemas the routes (or the
 * services they call) validate with: one schema per input, written once (DESIGN.md §3), turned
 * into JSON Schema 2020-12 with `z.toJSONSchema` (input side: what a client sends). Answers are
 * described the same way, from the output schemas in the domains' schemas files (OUTPUTS below,
 * published under components.schemas); test/http/openapi.test.ts validates real answers of those
 * routes against the served document, so it cannot drift from what the server sends.
 *
 * API_ROUTES is the route table, keyed "METHOD /path" exactly as the router registers it (`:name`
 * parameters, `*` for a page path; a trailing slash is ignored). A new /api route is one line
 * here; test/http/openapi.test.ts walks the app's registered routes and names every one missing.
 */
import { z } from "zod";
import {
  registerInput,
  loginInput,
  refreshInput,
  forgotPasswordInput,
  resetPasswordInput,
  oidcStartInput,
  oidcClaimInput,
  oidcProviderParams,
  oidcCallbackQuery,
  setPasswordInput,
  passkeyRegisterFinishInput,
  passkeyLoginBeginInput,
  passkeyLoginFinishInput,
  passkeyRenameInput,
  deleteAccountInput,
  createApiKeyInput,
  changePasswordInput,
  meOutput,
  registerOutput,
  apiKeyOutput,
  apiKeySecretOutput,
  apiKeyListOutput,
  tokenPairOutput,
  userOutput,
  sessionOutput,
  sessionListOutput,
  providerOutput,
  providerListOutput,
  authConfigOutput,
  signInMethodsOutput,
  messageOutput,
  passwordChangedOutput,
} from "../identity/schemas.ts";
import { updateOnboardingInput, onboardingOutput } from "../identity/onboarding-schemas.ts";
import { searchQuery } from "../search/schemas.ts";
import { assistInput, assistOutput, mcpClientConfigOutput } from "../ai/schemas.ts";
import { createPageInput, updatePageInput, movePageInput, moveAliasInput, reorderInput, uploadOutput } from "../content/schemas.ts";
import { createCommentInput, updateCommentInput, listCommentsQuery, commentOutput, commentListOutput } from "../collab/comment-schemas.ts";
import {
  activityQuery,
  pageActivityQuery,
  activityOutput,
  activityListOutput,
  templateSummaryOutput,
  templateOutput,
  templateListOutput,
  personOutput,
  personListOutput,
} from "../collab/schemas.ts";
import { viewingInput, viewingOutput, viewingListOutput } from "../realtime/schemas.ts";
import { createWorkspaceInput, updateSettingsInput, settingsOutput } from "../workspaces/workspace-schemas.ts";
import {
  listQuery,
  setMemberRoleInput,
  createInvitationInput,
  invitationListQuery,
  acceptInvitationInput,
  createShareLinkInput,
  memberOutput,
  memberListOutput,
  invitationOutput,
  invitationListOutput,
  shareLinkOutput,
  shareLinkWithTokenOutput,
  shareLinkListOutput,
  shareLinkUseOutput,
  invitationAcceptOutput,
} from "../access/schemas.ts";
import { resolveConflictInput } from "../git/schemas.ts";
import {
  analyticsQuery,
  consentInput,
  consentOutput,
  analyticsPagesOutput,
  analyticsSearchesOutput,
  analyticsOverviewOutput,
} from "../analytics/schemas.ts";
import { createWebhookInput, updateWebhookInput, webhookOutput, webhookWithSecretOutput, webhookListOutput, webhookDeliveryListOutput } from "../webhooks/schemas.ts";
import { healthOutput, readinessOutput } from "../ops/schemas.ts";
import { checkoutInput, portalInput, stripeEvent } from "../billing/schemas.ts";
import {
  createVersionInput,
  setCustomDomainInput,
  qualityQuery,
  exportInput,
  exportDownloadParams,
  siteStatusOutput,
  livePagesOutput,
  versionOutput,
  versionListOutput,
  customDomainOutput,
  qualityFindingOutput,
  qualityReportOutput,
} from "../publish/schemas.ts";
import { errorOutput } from "../core/schemas.ts";
import { pageOutput, treeNodeOutput, treeOutput } from "../content/schemas.ts";
import { workspaceOutput, workspaceListOutput } from "../workspaces/workspace-schemas.ts";
import { searchOutput } from "../search/schemas.ts";
import { historyQuery, versionQuery, diffQuery, restoreInput, trashRestoreInput, changesQuery, historyOutput, versionContentOutput, diffOutput, trashOutput, changesOutput } from "../history/schemas.ts";

type Auth = "bearer" | "public" | "webhook-signature" | "ws-cookie";

export interface RouteDoc {
  summary: string;
  tag: string;
  /** Who may call it: bearer (access token or API key, the default), public, or a signed payload. */
  auth?: Auth;
  body?: z.ZodType;
  /** Request body media type when not JSON. */
  bodyType?: "multipart/form-data" | "application/octet-stream";
  query?: z.ZodType;
  /** Path parameters' schema, when the route validates them (otherwise each is a string). */
  params?: z.ZodType;
  /** Success status (200 unless said). */
  status?: number;
  /** The success answer's schema: one of OUTPUTS (documented by reference). */
  response?: z.ZodType;
  /** Also answers 201, with the same body, when it creates what it was asked to change (PUT on a missing page). */
  createdStatus?: boolean;
  /** Success media type when not JSON. */
  produces?: string;
  /** Cloud edition only: 404 NOT_FOUND in Community. */
  cloud?: boolean;
  /** Depends on an outside service (the payment provider): 503 SERVICE_UNAVAILABLE when it is not set up or refuses. */
  external?: boolean;
}

const any = z.looseObject({});
const pushPayload = z.looseObject({}).describe("The hosting provider's push event, as it sends it (GitHub, GitLab or Bitbucket)");
const uploadForm = z.object({ file: z.string().describe("The file (binary)") });

/** Every /api route. Keys: the method and the path as registered with the router. */
export const API_ROUTES: Record<string, RouteDoc> = {
  // Infrastructure
  "GET /api/health": { summary: "Liveness, version and instance id", tag: "infrastructure", auth: "public", response: healthOutput },
  "GET /api/ready": { summary: "Readiness checks (503 when not ready)", tag: "infrastructure", auth: "public", response: readinessOutput },
  "GET /api/openapi.json": { summary: "This document", tag: "infrastructure", auth: "public" },
  "POST /api/git/webhook/:workspace_id": { summary: "Inbound git push webhook (signature or token per provider)", tag: "git", auth: "webhook-signature", body: pushPayload, status: 202 },
  // Auth
  "POST /api/auth/register": { summary: "Register (creates the user's organization and a starter workspace)", tag: "auth", auth: "public", body: registerInput, status: 201, response: registerOutput },
  "POST /api/auth/login": { summary: "Sign in with email and password", tag: "auth", auth: "public", body: loginInput, response: tokenPairOutput },
  "POST /api/auth/refresh": { summary: "Rotate the refresh token (body or cookie)", tag: "auth", auth: "public", body: refreshInput, response: tokenPairOutput },
  "POST /api/auth/logout": { summary: "Revoke all of the user's sessions", tag: "auth", status: 204 },
  "GET /api/auth/me": { summary: "The current user", tag: "auth", response: meOutput },
  "GET /api/auth/sessions": { summary: "The user's active sessions", tag: "auth", response: sessionListOutput },
  "POST /api/auth/ws-token": { summary: "Set the WebSocket cookie", tag: "auth", status: 204 },
  "POST /api/auth/forgot-password": { summary: "Send a reset link (same answer for every address)", tag: "auth", auth: "public", body: forgotPasswordInput, response: messageOutput },
  "POST /api/auth/reset-password": { summary: "Set a new password with a reset token", tag: "auth", auth: "public", body: resetPasswordInput },
  "POST /api/auth/change-password": { summary: "Change the password (signed-in session)", tag: "auth", body: changePasswordInput, response: passwordChangedOutput },
  "GET /api/auth/config": { summary: "What the sign-in screen needs (sign-up, email, providers)", tag: "auth", auth: "public", response: authConfigOutput },
  "GET /api/auth/providers": { summary: "External sign-in providers that are set up", tag: "auth", auth: "public", response: providerListOutput },
  "POST /api/auth/oidc/:provider": { summary: "Start external sign-in (or linking, signed in): the provider's URL", tag: "auth", auth: "public", params: oidcProviderParams, body: oidcStartInput },
  "GET /api/auth/oidc/:provider/callback": { summary: "The provider's redirect back (verifies everything, redirects to the app)", tag: "auth", auth: "public", params: oidcProviderParams, query: oidcCallbackQuery, status: 302 },
  "POST /api/auth/oidc/claim": { summary: "Trade the one-time claim code for the token pair", tag: "auth", auth: "public", body: oidcClaimInput },
  "DELETE /api/auth/oidc/:provider": { summary: "Unlink an external sign-in (not the last method)", tag: "auth", params: oidcProviderParams, status: 204 },
  "GET /api/auth/methods": { summary: "The caller's sign-in methods", tag: "auth", response: signInMethodsOutput },
  "POST /api/auth/password": { summary: "Add a password to an account without one", tag: "auth", body: setPasswordInput, status: 204 },
  "DELETE /api/auth/password": { summary: "Remove the password (not the last method)", tag: "auth", status: 204 },
  "POST /api/auth/webauthn/register/begin": { summary: "Passkey registration options", tag: "auth" },
  "POST /api/auth/webauthn/register/finish": { summary: "Store a new passkey", tag: "auth", body: passkeyRegisterFinishInput, status: 201 },
  "POST /api/auth/webauthn/login/begin": { summary: "Passkey sign-in options", tag: "auth", auth: "public", body: passkeyLoginBeginInput },
  "POST /api/auth/webauthn/login/finish": { summary: "Sign in with a passkey: the token pair", tag: "auth", auth: "public", body: passkeyLoginFinishInput },
  "GET /api/auth/webauthn/credentials": { summary: "The caller's passkeys", tag: "auth" },
  "PATCH /api/auth/webauthn/credentials/:id": { summary: "Rename a passkey", tag: "auth", body: passkeyRenameInput },
  "DELETE /api/auth/webauthn/credentials/:id": { summary: "Delete a passkey (not the last method)", tag: "auth", status: 204 },
  "POST /api/auth/invitations/accept": { summary: "Accept a workspace invitation (201 when it creates the account)", tag: "auth", auth: "public", body: acceptInvitationInput, response: invitationAcceptOutput, createdStatus: true },
  // API keys
  "POST /api/v1/api-keys": { summary: "Create an API key (the secret is shown once)", tag: "api-keys", body: createApiKeyInput, status: 201, response: apiKeySecretOutput },
  "GET /api/v1/api-keys": { summary: "List API keys (prefix only)", tag: "api-keys", response: apiKeyListOutput },
  "DELETE /api/v1/api-keys/:id": { summary: "Delete an API key", tag: "api-keys", status: 204 },
  "POST /api/v1/api-keys/:id/rotate": { summary: "Rotate an API key", tag: "api-keys", response: apiKeySecretOutput },
  // Content
  "GET /api/v1/content/:workspace/tree": { summary: "The workspace's page tree", tag: "content", response: treeOutput },
  "POST /api/v1/content/:workspace/reorder": { summary: "Reorder pages in a folder", tag: "content", body: reorderInput, status: 204 },
  "POST /api/v1/content/:workspace/move": { summary: "Move a page (alias of PATCH)", tag: "content", body: moveAliasInput, response: pageOutput },
  "POST /api/v1/content/:workspace/uploads": { summary: "Upload a file", tag: "content", body: uploadForm, bodyType: "multipart/form-data", status: 201, response: uploadOutput },
  "GET /api/v1/content/:workspace/uploads/:filename": { summary: "An uploaded file", tag: "content", produces: "application/octet-stream" },
  "GET /api/v1/content/:workspace/*": { summary: "Read a page", tag: "content", response: pageOutput },
  "POST /api/v1/content/:workspace/*": { summary: "Create a page", tag: "content", body: createPageInput, status: 201, response: pageOutput },
  "PUT /api/v1/content/:workspace/*": { summary: "Update a page (lastKnownHash for concurrency; 201 when it creates the page)", tag: "content", body: updatePageInput, response: pageOutput, createdStatus: true },
  "PATCH /api/v1/content/:workspace/*": { summary: "Move or rename a page", tag: "content", body: movePageInput, response: pageOutput },
  "DELETE /api/v1/content/:workspace/*": { summary: "Delete a page", tag: "content", status: 204 },
  // Workspaces, search, members, settings
  "GET /api/v1/workspaces": { summary: "Workspaces the caller belongs to", tag: "workspaces", query: listQuery, response: workspaceListOutput },
  "POST /api/v1/workspaces": { summary: "Create a workspace (Super Admin)", tag: "workspaces", body: createWorkspaceInput, status: 201, response: workspaceOutput },
  "GET /api/v1/workspaces/:id": { summary: "A workspace", tag: "workspaces", response: workspaceOutput },
  "DELETE /api/v1/workspaces/:id": { summary: "Soft-delete a workspace", tag: "workspaces", status: 204 },
  "GET /api/v1/workspaces/:id/search": { summary: "Full-text search in a workspace", tag: "search", query: searchQuery, response: searchOutput },
  "GET /api/v1/workspaces/:id/admin/members": { summary: "Members", tag: "members", query: listQuery, response: memberListOutput },
  "PUT /api/v1/workspaces/:id/admin/members/:user_id/role": { summary: "Change a member's role", tag: "members", body: setMemberRoleInput, response: memberOutput },
  "DELETE /api/v1/workspaces/:id/admin/members/:user_id": { summary: "Remove a member", tag: "members", status: 204 },
  "GET /api/v1/workspaces/:id/admin/settings": { summary: "Workspace settings", tag: "workspaces", response: settingsOutput },
  "PUT /api/v1/workspaces/:id/admin/settings": { summary: "Change workspace settings (merges the keys given)", tag: "workspaces", body: updateSettingsInput, response: settingsOutput },
  "POST /api/v1/workspaces/:id/admin/settings/webhook-secret/regenerate": { summary: "New inbound git webhook secret", tag: "git", response: settingsOutput },
  "GET /api/v1/workspaces/:id/people": { summary: "Who can read the workspace (for mentions)", tag: "collab", response: personListOutput },
  "GET /api/v1/workspaces/:id/viewing": { summary: "Who has which page open", tag: "collab", response: viewingListOutput },
  "POST /api/v1/workspaces/:id/viewing": { summary: "Report the caller's open page", tag: "collab", body: viewingInput, status: 204 },
  // Invitations and share links
  "GET /api/v1/workspaces/:id/invitations": { summary: "Invitations", tag: "members", query: listQuery.extend(invitationListQuery.shape), response: invitationListOutput },
  "POST /api/v1/workspaces/:id/invitations": { summary: "Invite by email (editors and admins take a seat in Cloud)", tag: "members", body: createInvitationInput, status: 201, response: invitationOutput },
  "DELETE /api/v1/workspaces/:id/invitations/:invitationId": { summary: "Revoke an invitation", tag: "members", status: 204 },
  "GET /api/v1/workspaces/:id/share-links": { summary: "Share links", tag: "members", query: listQuery, response: shareLinkListOutput },
  "POST /api/v1/workspaces/:id/share-links": { summary: "Create a share link (token shown once)", tag: "members", body: createShareLinkInput, status: 201, response: shareLinkWithTokenOutput },
  "DELETE /api/v1/workspaces/:id/share-links/:linkId": { summary: "Revoke a share link", tag: "members", status: 204 },
  "POST /api/v1/share-links/:token/use": { summary: "Join a workspace through a share link", tag: "members", response: shareLinkUseOutput },
  // Comments and activity
  "GET /api/v1/workspaces/:id/comments": { summary: "Comments (filter by page)", tag: "collab", query: listCommentsQuery, response: commentListOutput },
  "POST /api/v1/workspaces/:id/comments": { summary: "Add a comment", tag: "collab", body: createCommentInput, status: 201, response: commentOutput },
  "GET /api/v1/comments/:id": { summary: "A comment", tag: "collab", response: commentOutput },
  "PUT /api/v1/comments/:id": { summary: "Edit a comment", tag: "collab", body: updateCommentInput, response: commentOutput },
  "DELETE /api/v1/comments/:id": { summary: "Delete a comment", tag: "collab", status: 204 },
  "POST /api/v1/comments/:id/resolve": { summary: "Resolve a thread", tag: "collab", response: commentOutput },
  "POST /api/v1/comments/:id/unresolve": { summary: "Reopen a thread", tag: "collab", response: commentOutput },
  "GET /api/v1/workspaces/:id/activity": { summary: "Workspace activity", tag: "collab", query: activityQuery, response: activityListOutput },
  "GET /api/v1/workspaces/:id/page-activity": { summary: "One page's history", tag: "collab", query: pageActivityQuery, response: activityListOutput },
  "GET /api/v1/templates": { summary: "Page templates", tag: "collab", response: templateListOutput },
  "GET /api/v1/templates/:id": { summary: "A template with its content", tag: "collab", response: templateOutput },
  // Git sync
  "POST /api/v1/workspaces/:id/sync": { summary: "Pull and reconcile now (admin)", tag: "git" },
  "GET /api/v1/workspaces/:id/sync/conflicts/:conflict_id": { summary: "Inspect a sync conflict", tag: "git" },
  "POST /api/v1/workspaces/:id/sync/conflicts/:conflict_id/resolve": { summary: "Resolve a sync conflict", tag: "git", body: resolveConflictInput },
  "GET /api/v1/workspaces/:id/conflicts": { summary: "Open conflicts", tag: "git" },
  // Page history (DESIGN.md §15)
  "GET /api/v1/workspaces/:id/history": { summary: "A page's versions, newest first", tag: "history", query: historyQuery, response: historyOutput },
  "GET /api/v1/workspaces/:id/history/version": { summary: "A page as it was at a commit", tag: "history", query: versionQuery, response: versionContentOutput },
  "GET /api/v1/workspaces/:id/history/diff": { summary: "Diff of two versions of a page (or a version and the current file)", tag: "history", query: diffQuery, response: diffOutput },
  "POST /api/v1/workspaces/:id/history/restore": { summary: "Restore a version (hash-checked save)", tag: "history", body: restoreInput, response: pageOutput },
  "GET /api/v1/workspaces/:id/trash": { summary: "Deleted pages", tag: "history", response: trashOutput },
  "POST /api/v1/workspaces/:id/trash/restore": { summary: "Restore a deleted page", tag: "history", body: trashRestoreInput, response: pageOutput },
  "GET /api/v1/workspaces/:id/changes": { summary: "Pages changed since a date or commit", tag: "history", query: changesQuery, response: changesOutput },
  "GET /api/v1/conflicts/:page_id/:timestamp/:version": { summary: "A conflict's ours or theirs file (raw)", tag: "git", produces: "text/markdown" },
  "POST /api/v1/conflicts/:page_id/:timestamp/resolve": { summary: "Remove a conflict's artifacts", tag: "git" },
  // Quality and export
  "GET /api/v1/workspaces/:id/quality": { summary: "Quality scan: readability, dead links, completeness", tag: "quality", query: qualityQuery, response: qualityReportOutput },
  "GET /api/v1/workspaces/:id/export": { summary: "The published site as a ZIP of static HTML, rendered in this request (admin)", tag: "export", query: exportInput, produces: "application/zip" },
  "POST /api/v1/workspaces/:id/export": { summary: "As GET (compatibility alias); options in the body", tag: "export", body: exportInput, produces: "application/zip" },
  "GET /api/v1/exports/:token": { summary: "A prepared export's download (15 minutes)", tag: "export", auth: "public", params: exportDownloadParams, produces: "application/zip" },
  // Agents
  "POST /api/ai/assist": { summary: "Writing assist: the configured model's rewrite, or instructions for the calling agent", tag: "ai", body: assistInput, response: assistOutput },
  "GET /api/v1/mcp/client-config": { summary: "Ready-to-paste MCP client configuration (stdio command and HTTP endpoint) for this server", tag: "ai", response: mcpClientConfigOutput },
  // Published sites
  "POST /api/v1/site-session": { summary: "Give the browser the members' site cookie (signed-in session)", tag: "sites", status: 204 },
  "DELETE /api/v1/site-session": { summary: "Remove the members' site cookie", tag: "sites", auth: "public", status: 204 },
  "GET /api/v1/workspaces/:id/site": { summary: "The site's status (published, visibility, theme, address)", tag: "sites", response: siteStatusOutput },
  "GET /api/v1/workspaces/:id/site/pages": { summary: "Which pages are live on the site", tag: "sites", response: livePagesOutput },
  "GET /api/v1/workspaces/:id/versions": { summary: "Named documentation versions", tag: "sites", response: versionListOutput },
  "POST /api/v1/workspaces/:id/versions": { summary: "Create a version (admin)", tag: "sites", body: createVersionInput, status: 201, response: versionOutput },
  "GET /api/v1/workspaces/:id/versions/:slug": { summary: "A version", tag: "sites", response: versionOutput },
  "PUT /api/v1/workspaces/:id/versions/:slug/default": { summary: "Make a version the default (admin)", tag: "sites", response: versionOutput },
  "DELETE /api/v1/workspaces/:id/versions/:slug": { summary: "Delete a version (admin)", tag: "sites", status: 204 },
  "GET /api/v1/workspaces/:id/custom-domain": { summary: "The custom domain and its verification status (admin)", tag: "sites", response: customDomainOutput },
  "PUT /api/v1/workspaces/:id/custom-domain": { summary: "Set the custom domain (admin)", tag: "sites", body: setCustomDomainInput, response: customDomainOutput },
  "POST /api/v1/workspaces/:id/custom-domain/verify": { summary: "Check the domain's TXT record now (admin)", tag: "sites", response: customDomainOutput },
  "DELETE /api/v1/workspaces/:id/custom-domain": { summary: "Remove the custom domain (admin)", tag: "sites", status: 204 },
  // Analytics
  "POST /api/analytics/consent": { summary: "A site visitor's consent answer (sets a cookie)", tag: "analytics", auth: "public", body: consentInput, response: consentOutput },
  "GET /api/v1/workspaces/:id/analytics/pages": { summary: "Top pages and referrers (editors; PLAN_LIMIT on Cloud Free)", tag: "analytics", query: analyticsQuery, response: analyticsPagesOutput },
  "GET /api/v1/workspaces/:id/analytics/searches": { summary: "Top queries and queries with no results", tag: "analytics", query: analyticsQuery, response: analyticsSearchesOutput },
  "GET /api/v1/workspaces/:id/analytics/overview": { summary: "Analytics dashboard", tag: "analytics", query: analyticsQuery, response: analyticsOverviewOutput },
  // Outbound webhooks
  "GET /api/v1/workspaces/:id/webhooks": { summary: "Outbound webhooks (admin)", tag: "webhooks", response: webhookListOutput },
  "POST /api/v1/workspaces/:id/webhooks": { summary: "Create an outbound webhook (secret shown once)", tag: "webhooks", body: createWebhookInput, status: 201, response: webhookWithSecretOutput },
  "GET /api/v1/workspaces/:id/webhooks/:wid": { summary: "An outbound webhook", tag: "webhooks", response: webhookOutput },
  "PUT /api/v1/workspaces/:id/webhooks/:wid": { summary: "Change an outbound webhook", tag: "webhooks", body: updateWebhookInput, response: webhookOutput },
  "DELETE /api/v1/workspaces/:id/webhooks/:wid": { summary: "Delete an outbound webhook", tag: "webhooks", status: 204 },
  "GET /api/v1/workspaces/:id/webhooks/:wid/deliveries": { summary: "Delivery log (always empty: delivery is not active)", tag: "webhooks", response: webhookDeliveryListOutput },
  // Onboarding
  "GET /api/v1/users/me/onboarding": { summary: "The caller's onboarding checklist", tag: "onboarding", response: onboardingOutput },
  "PATCH /api/v1/users/me/onboarding": { summary: "Mark onboarding steps, dismiss the checklist", tag: "onboarding", body: updateOnboardingInput, response: onboardingOutput },
  // Billing and other Cloud-only routes
  "POST /api/v1/billing/checkout": { summary: "Checkout session with the payment provider", tag: "billing", body: checkoutInput, cloud: true, external: true },
  "POST /api/v1/billing/portal": { summary: "Customer-portal session", tag: "billing", body: portalInput, cloud: true, external: true },
  "GET /api/v1/billing/subscription": { summary: "The organization's subscription", tag: "billing", cloud: true },
  "GET /api/v1/billing/plans": { summary: "Plans and prices", tag: "billing", auth: "public", cloud: true },
  "GET /api/v1/billing/limits": { summary: "Plan limits and current usage", tag: "billing", cloud: true },
  "POST /api/webhooks/stripe": { summary: "Payment provider events (Stripe-Signature verified, idempotent)", tag: "billing", auth: "webhook-signature", body: stripeEvent, cloud: true },
  "GET /api/v1/users/me/export": { summary: "Export one's personal data", tag: "gdpr", cloud: true },
  "DELETE /api/v1/users/me": { summary: "Delete one's account (password, or email and a recent sign-in without one)", tag: "gdpr", body: deleteAccountInput, cloud: true },
  "GET /api/v1/orgs/:handle/export": { summary: "Export an organization's data (super admin)", tag: "gdpr", cloud: true },
};

/** The table's key for a registered route: the method and the path without a trailing slash. */
export function routeKey(method: string, path: string): string {
  return `${method.toUpperCase()} ${path.length > 1 ? path.replace(/\/+$/, "") : path}`;
}

/**
 * The registered /api routes the table lacks, and the table's entries with no route behind them,
 * each as "METHOD /path" (sorted): what the coverage test reports.
 */
export function routeCoverage(routes: ReadonlyArray<{ method: string; path: string }>): { missing: string[]; stale: string[] } {
  const registered = new Set(routes.filter((r) => r.path.startsWith("/api/") && r.method !== "WS").map((r) => routeKey(r.method, r.path)));
  return {
    missing: [...registered].filter((key) => !(key in API_ROUTES)).sort(),
    stale: Object.keys(API_ROUTES).filter((key) => !registered.has(key)).sort(),
  };
}

const toSchema = (schema: z.ZodType) => z.toJSONSchema(schema, { io: "input", unrepresentable: "any" }) as Record<string, unknown>;

/** `/a/:id/*` → `/a/{id}/{path}` */
function openApiPath(path: string): { path: string; params: string[] } {
  const params: string[] = [];
  const out = path.replace(/:([A-Za-z_][A-Za-z0-9_]*)|\*$/g, (_m, name?: string) => {
    const p = name ?? "path";
    params.push(p);
    return `{${p}}`;
  });
  return { path: out, params };
}

/**
 * The named answer schemas, published under components.schemas and referenced by the routes (and
 * by every error answer). Each comes from its domain's schemas file; nothing here is hand-written.
 */
export const OUTPUTS: ReadonlyArray<readonly [string, z.ZodType]> = [
  ["Error", errorOutput],
  ["User", userOutput],
  ["Me", meOutput],
  ["TokenPair", tokenPairOutput],
  ["Registration", registerOutput],
  ["ApiKey", apiKeyOutput],
  ["ApiKeyWithSecret", apiKeySecretOutput],
  ["ApiKeyList", apiKeyListOutput],
  ["Page", pageOutput],
  ["TreeNode", treeNodeOutput],
  ["Tree", treeOutput],
  ["Workspace", workspaceOutput],
  ["WorkspaceList", workspaceListOutput],
  ["SearchResults", searchOutput],
  ["Comment", commentOutput],
  ["CommentList", commentListOutput],
  ["Activity", activityOutput],
  ["ActivityList", activityListOutput],
  ["History", historyOutput],
  ["PageVersion", versionContentOutput],
  ["PageDiff", diffOutput],
  ["Trash", trashOutput],
  ["Changes", changesOutput],
  ["Member", memberOutput],
  ["MemberList", memberListOutput],
  ["Health", healthOutput],
  ["Readiness", readinessOutput],
  ["Settings", settingsOutput],
  ["Invitation", invitationOutput],
  ["InvitationList", invitationListOutput],
  ["ShareLink", shareLinkOutput],
  ["ShareLinkWithToken", shareLinkWithTokenOutput],
  ["ShareLinkList", shareLinkListOutput],
  ["ShareLinkUse", shareLinkUseOutput],
  ["InvitationAcceptance", invitationAcceptOutput],
  ["Webhook", webhookOutput],
  ["WebhookWithSecret", webhookWithSecretOutput],
  ["WebhookList", webhookListOutput],
  ["WebhookDeliveryList", webhookDeliveryListOutput],
  ["SiteStatus", siteStatusOutput],
  ["LivePages", livePagesOutput],
  ["Version", versionOutput],
  ["VersionList", versionListOutput],
  ["CustomDomain", customDomainOutput],
  ["Consent", consentOutput],
  ["AnalyticsPages", analyticsPagesOutput],
  ["AnalyticsSearches", analyticsSearchesOutput],
  ["AnalyticsOverview", analyticsOverviewOutput],
  ["QualityFinding", qualityFindingOutput],
  ["QualityReport", qualityReportOutput],
  ["Onboarding", onboardingOutput],
  ["TemplateSummary", templateSummaryOutput],
  ["Template", templateOutput],
  ["TemplateList", templateListOutput],
  ["Person", personOutput],
  ["PersonList", personListOutput],
  ["Viewing", viewingOutput],
  ["ViewingList", viewingListOutput],
  ["Session", sessionOutput],
  ["SessionList", sessionListOutput],
  ["Provider", providerOutput],
  ["ProviderList", providerListOutput],
  ["AuthConfig", authConfigOutput],
  ["SignInMethods", signInMethodsOutput],
  ["Message", messageOutput],
  ["PasswordChanged", passwordChangedOutput],
  ["Upload", uploadOutput],
  ["Assist", assistOutput],
  ["McpClientConfig", mcpClientConfigOutput],
];

const outputRegistry = z.registry<{ id: string }>();
for (const [id, schema] of OUTPUTS) outputRegistry.add(schema, { id });
const componentRef = (id: string) => `#/components/schemas/${id}`;

/** components.schemas: every output schema as JSON Schema 2020-12, cross-referenced by name. */
function outputComponents(): Record<string, Record<string, unknown>> {
  const { schemas } = z.toJSONSchema(outputRegistry, { io: "output", uri: componentRef, unrepresentable: "any" }) as {
    schemas: Record<string, Record<string, unknown>>;
  };
  for (const schema of Object.values(schemas)) {
    // Standalone-document keys that do not belong inside an OpenAPI component.
    delete schema.$schema;
    delete schema.$id;
  }
  return schemas;
}

/** The reference to a route's answer schema; a schema outside OUTPUTS is a mistake in the table. */
function responseRef(key: string, schema: z.ZodType): { $ref: string } {
  const id = outputRegistry.get(schema)?.id;
  if (!id) throw new Error(`${key}: its response schema is not one of OUTPUTS in src/http/openapi.ts`);
  return { $ref: componentRef(id) };
}

const ERROR_ANSWERS: Record<string, string> = {
  "400": "VALIDATION_ERROR: invalid body or parameters",
  "401": "UNAUTHORIZED: missing or invalid credentials (on sign-in: wrong email or password, the same answer for every cause; on a webhook: a missing or invalid signature)",
  "403": "FORBIDDEN, PLAN_LIMIT_REACHED, PLAN_LIMIT or SIGNUP_DISABLED",
  "404": "NOT_FOUND (also every Cloud-only route in the Community edition)",
  "409": "CONFLICT (a page update's conflict adds current_hash, your_hash, modified_by, modified_at)",
  "413": "PAYLOAD_TOO_LARGE",
  "429": "RATE_LIMITED (X-RateLimit-* and Retry-After headers)",
  "500": "INTERNAL_ERROR: a failure on the server (nothing internal is named)",
  "503": "SERVICE_UNAVAILABLE: an outside service this route needs is not set up or refused",
};

export function openApiDocument(opts: { version: string; baseUrl: string }): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  const errorRef = { $ref: componentRef("Error") };
  for (const [key, doc] of Object.entries(API_ROUTES).sort(([a], [b]) => a.localeCompare(b))) {
    const [method, rawPath] = key.split(" ") as [string, string];
    const { path, params } = openApiPath(rawPath);
    const paramSchemas = doc.params ? ((toSchema(doc.params) as { properties?: Record<string, unknown> }).properties ?? {}) : {};
    const parameters: Record<string, unknown>[] = params.map((name) => ({
      name,
      in: "path",
      required: true,
      schema: paramSchemas[name] ?? { type: "string" },
      ...(name === "path" ? { description: "The page's file path inside the workspace (e.g. guide/intro.md)" } : {}),
    }));
    if (doc.query) {
      const js = toSchema(doc.query) as { properties?: Record<string, unknown>; required?: string[] };
      for (const [name, schema] of Object.entries(js.properties ?? {})) {
        parameters.push({ name, in: "query", required: js.required?.includes(name) ?? false, schema });
      }
    }
    const status = String(doc.status ?? 200);
    const success = (description: string) =>
      status === "204"
        ? { description: "Done; no content" }
        : {
            description,
            content: {
              [doc.produces ?? "application/json"]: {
                schema: doc.produces ? { type: "string" } : doc.response ? responseRef(key, doc.response) : { type: "object" },
              },
            },
          };
    const responses: Record<string, unknown> = { [status]: success("Success") };
    if (doc.createdStatus) responses["201"] = success("Success: the resource did not exist and was created");
    const codes = ["400", "404", "429", "500", ...(doc.auth === "public" && !rawPath.startsWith("/api/auth/") ? [] : ["401", "403"]), ...(doc.body ? ["409", "413"] : []), ...(doc.external ? ["503"] : [])];
    for (const code of codes.sort()) responses[code] = { description: ERROR_ANSWERS[code], content: { "application/json": { schema: errorRef } } };
    const op: Record<string, unknown> = {
      operationId: operationId(method, rawPath),
      summary: doc.summary + (doc.cloud ? " (Cloud edition only; 404 in Community)" : ""),
      tags: [doc.tag],
      parameters,
      responses,
      security: doc.auth === "public" || doc.auth === "webhook-signature" ? [] : [{ bearer: [] }],
    };
    if (doc.body) {
      op.requestBody = { required: true, content: { [doc.bodyType ?? "application/json"]: { schema: toSchema(doc.body) } } };
    }
    (paths[path] ??= {})[method.toLowerCase()] = op;
  }
  return {
    openapi: "3.1.0",
    info: {
      title: "Quire API",
      version: opts.version,
      description: "The REST API of a Quire instance. Errors share one shape (components.schemas.Error).",
    },
    servers: [{ url: opts.baseUrl }],
    paths,
    components: {
      schemas: outputComponents(),
      securitySchemes: {
        bearer: { type: "http", scheme: "bearer", description: "An access token (JWT) or an API key (quire_live_…)" },
      },
    },
  };
}

function operationId(method: string, path: string): string {
  const words = path
    .replace(/^\/api\/(v1\/)?/, "")
    .replace(/\*/g, "page")
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean);
  return [method.toLowerCase(), ...words.map((w) => w[0]!.toUpperCase() + w.slice(1))].join("");
}
