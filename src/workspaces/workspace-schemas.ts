import { z } from "zod";
import { closedObject, displayName, slug, lazyInput } from "../core/validate.ts";
import { gitBranch, gitRemote } from "./git-remote.ts";
import { WORKSPACE_ROLES } from "./roles.ts";
import { lazyOutput, listOutput } from "../core/schemas.ts";

/**
 * The write-only HTTPS token of a workspace's git remote (GitHub/GitLab personal or project
 * access token, Bitbucket access token). Set or cleared through the workspace settings
 * (`git_token`, null clears), used as the basic-auth password for clone, fetch and push, shown
 * nowhere: responses carry only `git_token_set`.
 */
const gitTokenInput = lazyInput(() => z
  .string()
  .min(1, "must not be empty (send null to clear the token)")
  .max(4096, "must be at most 4096 characters")
  .refine((t) => !/[\s\u0000-\u001f\u007f]/.test(t), "must not contain spaces or control characters"));

/** Input schemas of the workspace endpoints, shared by every transport (HTTP, MCP, CLI). */

const workspaceDescription = lazyInput(() => z
  .string()
  .max(2000, "must be at most 2000 characters")
  .refine((s) => !/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/.test(s), "must not contain control characters"));

export const createWorkspaceInput = lazyInput(() => closedObject({
  name: displayName(100),
  slug,
  description: workspaceDescription.optional(),
  git_remote: gitRemote.nullable().optional(),
  git_branch: gitBranch.optional(),
  /** Write-only HTTPS token for the remote (see src/workspaces/remote-token.ts). */
  git_token: gitTokenInput.optional(),
}));

/** `quire init`: the workspace's name, slug and branch (its remote is checked on its own, before cloning). */
export const initWorkspaceInput = lazyInput(() => z.object({ name: displayName(100), slug, branch: gitBranch }));

export const THEMES = ["default", "dark", "forest", "rose", "amber", "minimal", "corporate"] as const;
export type Theme = (typeof THEMES)[number];
export const VISIBILITIES = ["authenticated", "public"] as const;
export type Visibility = (typeof VISIBILITIES)[number];

/** A host name a site can be served on: lowercase DNS labels, at least two of them. */
export const customDomain = lazyInput(() => z
  .string()
  .trim()
  .toLowerCase()
  .max(253, "must be at most 253 characters")
  .regex(
    /^(?=.{1,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z](?:[a-z0-9-]{0,61}[a-z0-9])?$/,
    "must be a host name such as docs.example.com",
  ));

const MAX_NAVIGATION_BYTES = 64 * 1024;

/**
 * Every key the settings PUT accepts. All optional: PUT merges what it is given. Unknown keys are
 * refused by the service (naming the key), so a typo never silently does nothing.
 */
export const updateSettingsInput = lazyInput(() => z.object({
  name: displayName(100).optional(),
  description: workspaceDescription.optional(),
  git_branch: gitBranch.optional(),
  git_auto_commit: z.boolean().optional(),
  /** Write-only: a string sets the remote's HTTPS token, null clears it; responses show only `git_token_set`. */
  git_token: gitTokenInput.nullable().optional(),
  sync_interval: z.number().int("must be a whole number of seconds").min(10, "must be at least 10 seconds").max(604800, "must be at most 604800 seconds (7 days)").optional(),
  editor_can_create_pages: z.boolean().optional(),
  editor_can_delete_pages: z.boolean().optional(),
  /** The workspace's site is live at /p/{slug}/ (docs/architecture.md §9). */
  published: z.boolean().optional(),
  theme: z.enum(THEMES).optional(),
  visibility: z.enum(VISIBILITIES).optional(),
  navigation: z
    .record(z.string(), z.unknown())
    .refine((n) => JSON.stringify(n).length <= MAX_NAVIGATION_BYTES, `must be at most ${MAX_NAVIGATION_BYTES} bytes as JSON`)
    .optional(),
  custom_domain: customDomain.nullable().optional(),
  /** Editors with `edit` on a folder or page may set its access list (docs/decisions/restricted-folders.md). */
  editors_manage_access: z.boolean().optional(),
}));

/** Keys the settings GET shows but PUT cannot change (each has its own endpoint or is derived). */
export const READ_ONLY_SETTINGS = ["id", "slug", "git_remote", "sync_status", "webhook_secret", "webhook_url"] as const;

// ---- outputs: what the workspace endpoints answer (the OpenAPI document is generated from these) ----

/** A problem the workspace reports while it holds (a reconcile safety stop). */
const workspaceProblemOutput = lazyOutput(() => z.object({
  kind: z.enum(["safety_stop"]),
  message: z.string(),
  since: z.iso.datetime(),
}));

/** What the caller may do here, from the server's one rule (src/workspaces/rights.ts; docs/decisions/web-rights.md). */
const workspaceRightsOutput = lazyOutput(() => z
  .object({
    read: z.boolean().describe("Read pages, the tree, history"),
    comment: z.boolean().describe("Write comments (commenter and above)"),
    edit: z.boolean().describe("Edit existing pages, upload, reorder"),
    create: z.boolean().describe("Create pages (editors when editor_can_create_pages is on)"),
    delete: z.boolean().describe("Delete pages (editors when editor_can_delete_pages is on)"),
    move: z.boolean().describe("Move or rename pages (the create right: a move puts a page at a new path)"),
    admin: z.boolean().describe("Workspace settings, members, git, site (admin and Super Admin)"),
    manage_access: z.boolean().describe("Set access lists: admins, and editors (with edit on the path) when editors_manage_access is on"),
  })
  .describe("The caller's rights in this workspace"));

/** A workspace as its members see it (the remote's URL without credentials). */
export const workspaceOutput = lazyOutput(() => z.object({
  id: z.string().describe("ULID"),
  org_id: z.string(),
  name: z.string(),
  slug: z.string(),
  description: z.string(),
  role: z.enum([...WORKSPACE_ROLES, "super_admin"]).nullable().describe("The caller's effective role"),
  rights: workspaceRightsOutput,
  git_remote: z.string().nullable(),
  git_branch: z.string(),
  git_auto_commit: z.boolean(),
  sync_interval: z.number().int(),
  sync_status: z.string(),
  editor_can_create_pages: z.boolean(),
  editor_can_delete_pages: z.boolean(),
  published: z.boolean(),
  page_count: z.number().int(),
  member_count: z.number().int(),
  created_at: z.iso.datetime(),
  deleted_at: z.iso.datetime().nullable(),
  problems: z.array(workspaceProblemOutput),
}));

/** GET /api/v1/workspaces */
export const workspaceListOutput = lazyOutput(() => listOutput(workspaceOutput));

/** A workspace's admin settings (GET/PUT …/admin/settings and the webhook-secret regenerate). */
export const settingsOutput = lazyOutput(() => z.object({
  id: z.string().describe("ULID"),
  slug: z.string(),
  name: z.string(),
  description: z.string(),
  published: z.boolean(),
  git_remote: z.string().nullable().describe("Without credentials"),
  git_branch: z.string(),
  git_auto_commit: z.boolean(),
  sync_interval: z.number().int(),
  sync_status: z.string(),
  editor_can_create_pages: z.boolean(),
  editor_can_delete_pages: z.boolean(),
  theme: z.enum(THEMES),
  visibility: z.enum(VISIBILITIES),
  navigation: z.record(z.string(), z.unknown()),
  custom_domain: z.string().nullable(),
  editors_manage_access: z.boolean().describe("Editors with edit on a restricted folder or page may set its access list"),
  webhook_secret: z.string().describe("Inbound git webhook secret (admins only)"),
  webhook_url: z.string().describe("Where the hosting provider posts pushes"),
  git_token_set: z.boolean().describe("Whether an HTTPS token is stored for the remote; the token itself is never answered"),
}));
export type SettingsOutput = z.infer<typeof settingsOutput>;
