import { z } from "zod";
import { closedObject, displayName, emailAddress, lazyInput } from "../core/validate.ts";
import { WORKSPACE_ROLES } from "../workspaces/roles.ts";
import { lazyOutput, listOutput } from "../core/schemas.ts";
import { workspaceOutput } from "../workspaces/workspace-schemas.ts";
import { userOutput } from "../identity/schemas.ts";

/** Input schemas of the member, invitation and share-link endpoints, shared by every transport. */

export const setMemberRoleInput = lazyInput(() => closedObject({ role: z.enum(WORKSPACE_ROLES) }));

export const createInvitationInput = lazyInput(() => closedObject({
  email: emailAddress,
  role: z.enum(WORKSPACE_ROLES).default("viewer"),
}));

export const invitationListQuery = lazyInput(() => z.object({
  status: z.enum(["pending", "accepted", "revoked", "expired", "all"]).default("pending"),
}));

export const acceptInvitationInput = lazyInput(() => closedObject({
  token: z.string().min(1, "must not be empty").max(512),
  /** Required when the invitation creates a new account; ignored for an existing account. */
  name: displayName(100).optional(),
  password: z.string().max(4096),
}));

/** Share links never grant admin: an admin is always chosen by name (invitation or role change). */
export const SHARE_LINK_ROLES = ["viewer", "commenter", "editor"] as const;

export const createShareLinkInput = lazyInput(() => closedObject({
  role: z.enum(SHARE_LINK_ROLES).default("viewer"),
  max_uses: z.number().int().min(1).max(1_000_000).nullable().optional(),
  expires_at: z.iso
    .datetime({ offset: true, message: "must be an ISO 8601 timestamp" })
    .nullable()
    .optional(),
  path: z.string().min(1).max(520).optional().describe("A page: the link opens it (joins no one); absent: the link joins the workspace"),
}));

/** `limit` and `cursor` query parameters of every list endpoint in this area. */
export const listQuery = lazyInput(() => z.object({
  limit: z.coerce.number().int().min(1).max(200).default(50),
  cursor: z.string().max(512).optional(),
}));

// ---- outputs (the OpenAPI document is generated from these) ----

/** A member of a workspace, with their role there. */
export const memberOutput = lazyOutput(() => z.object({
  user_id: z.string(),
  name: z.string(),
  email: z.string(),
  role: z.enum(WORKSPACE_ROLES),
  joined_at: z.iso.datetime(),
}));

/** GET /api/v1/workspaces/:id/admin/members */
export const memberListOutput = lazyOutput(() => listOutput(memberOutput));

export const INVITATION_STATUSES = ["pending", "accepted", "revoked", "expired"] as const;

/** An invitation as its workspace's admins see it (never the token). */
export const invitationOutput = lazyOutput(() => z.object({
  id: z.string().describe("ULID"),
  email: z.string(),
  role: z.enum(WORKSPACE_ROLES),
  status: z.enum(INVITATION_STATUSES).describe("A pending invitation past its expiry reads as expired"),
  invited_by: z.object({ id: z.string(), name: z.string() }).nullable(),
  created_at: z.iso.datetime(),
  expires_at: z.iso.datetime(),
  accepted_at: z.iso.datetime().nullable(),
  url: z.string().optional().describe("Only in the create's answer, and only when no email is set up: the link to pass on"),
}));

/** GET /api/v1/workspaces/:id/invitations */
export const invitationListOutput = lazyOutput(() => listOutput(invitationOutput));

/** A share link as its workspace's admins see it; the token only in the create's answer. */
export const shareLinkOutput = lazyOutput(() => z.object({
  id: z.string().describe("ULID"),
  role: z.enum(SHARE_LINK_ROLES),
  uses: z.number().int(),
  max_uses: z.number().int().nullable(),
  expires_at: z.iso.datetime().nullable(),
  created_at: z.iso.datetime(),
  active: z.boolean().describe("false once revoked, expired or used up"),
  path: z.string().nullable().describe("The page a page link opens (where it is now); null for a link that joins the workspace, or once the page is deleted"),
  anyone: z
    .boolean()
    .nullable()
    .describe("A page link: true when anyone holding it may open the page now; false when it works only for members with access there (a restricted page without link:anyone)"),
}));

/** POST …/share-links: the link and its token, shown this once. */
export const shareLinkWithTokenOutput = lazyOutput(() => shareLinkOutput.unwrap().extend({ token: z.string().describe("Shown only in this answer") }));

/** GET /api/v1/workspaces/:id/share-links */
export const shareLinkListOutput = lazyOutput(() => listOutput(shareLinkOutput));

/** POST /api/v1/share-links/:token/use: the workspace joined, the caller's role there, and whether anything changed. */
export const shareLinkUseOutput = lazyOutput(() => z.object({
  workspace: workspaceOutput,
  role: z.enum([...WORKSPACE_ROLES, "super_admin"]),
  joined: z.boolean().describe("false when the caller already had this role or a higher one (no use is spent)"),
}));

/** The workspace an accepted invitation gives access to, with the role held there now. */
export const acceptedWorkspaceOutput = lazyOutput(() => z.object({ id: z.string(), slug: z.string(), name: z.string(), role: z.enum(WORKSPACE_ROLES) }));

/**
 * POST /api/auth/invitations/accept (201 when it created the account, 200 for an existing one):
 * the account, the workspace, and the access token unless signing in failed (then the client
 * signs in separately; the membership stands).
 */
export const invitationAcceptOutput = lazyOutput(() => z.object({
  user: userOutput,
  access_token: z.string().optional(),
  expires_at: z.iso.datetime().optional().describe("The access token's expiry"),
  expires_in: z.number().int().optional(),
  workspace: acceptedWorkspaceOutput,
}));
