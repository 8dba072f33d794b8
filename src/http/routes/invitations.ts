import { Elysia } from "elysia";
import type { Services } from "../../services.ts";
import { httpCore } from "../core.ts";
import { requirePrincipal } from "../guards.ts";
import { REFRESH_COOKIE } from "./auth.ts";
import { REFRESH_TTL_MS } from "../../identity/sessions.ts";
import { acceptInvitationInput, createInvitationInput, invitationAcceptOutput, invitationListOutput, invitationListQuery, invitationOutput, listQuery } from "../../access/schemas.ts";
import { lazyInput } from "../../core/validate.ts";
import type { RouteDocs } from "../openapi.ts";

type CookieJar = Record<string, { set(o: Record<string, unknown>): void }>;

/** Invitations: the admin's list, create and revoke; and the public accept that signs the invitee in. */
export function invitationRoutes(services: Services) {
  const { invitations, invitationAcceptance, config } = services;
  const secure = config.baseUrl.startsWith("https://");
  return new Elysia()
    .use(httpCore(services))
    .get("/api/v1/workspaces/:id/invitations", ({ principal, params, query }) =>
      invitations.list(requirePrincipal(principal), params.id, query),
    )
    .post("/api/v1/workspaces/:id/invitations", ({ principal, params, body, set }) => {
      const invitation = invitations.create(requirePrincipal(principal), params.id, body);
      set.status = 201;
      return invitation;
    })
    .delete("/api/v1/workspaces/:id/invitations/:invitationId", ({ principal, params, set }) => {
      invitations.revoke(requirePrincipal(principal), params.id, params.invitationId);
      set.status = 204;
    })
    .post("/api/auth/invitations/accept", async ({ body, request, ip, cookie, set }) => {
      const result = await invitationAcceptance.accept(body, { ip, device: request.headers.get("user-agent") ?? "" });
      set.status = result.created ? 201 : 200;
      if (!result.tokens) return { user: result.user, workspace: result.workspace };
      // The same refresh cookie as registration and login.
      (cookie as CookieJar)[REFRESH_COOKIE]!.set({
        value: result.tokens.refresh_token,
        httpOnly: true,
        secure,
        sameSite: "strict",
        path: "/api/auth",
        maxAge: Math.floor(REFRESH_TTL_MS / 1000),
      });
      return {
        user: result.user,
        access_token: result.tokens.access_token,
        expires_at: result.tokens.expires_at,
        expires_in: result.tokens.expires_in,
        workspace: result.workspace,
      };
    });
}

/** The OpenAPI entries of these routes (src/http/routes/openapi.ts assembles the document from every file's). */
export const invitationsDocs: RouteDocs = {
  "POST /api/auth/invitations/accept": { summary: "Accept a workspace invitation (201 when it creates the account)", tag: "auth", auth: "public", body: acceptInvitationInput, response: invitationAcceptOutput, createdStatus: true },
  "GET /api/v1/workspaces/:id/invitations": { summary: "Invitations", tag: "members", query: lazyInput(() => listQuery.unwrap().extend(invitationListQuery.unwrap().shape)), response: invitationListOutput },
  "POST /api/v1/workspaces/:id/invitations": { summary: "Invite by email (editors and admins take a seat in Cloud)", tag: "members", body: createInvitationInput, status: 201, response: invitationOutput },
  "DELETE /api/v1/workspaces/:id/invitations/:invitationId": { summary: "Revoke an invitation", tag: "members", status: 204 },
};
