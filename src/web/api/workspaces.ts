/** Workspaces the caller belongs to, and creating one (Super Admin). Each carries the caller's `rights`. */
import { get, post } from "./client.ts";
import type { List, Workspace } from "./types.ts";
import { earlyReads } from "./early-reads.ts";

export const listWorkspaces = () => get<List<Workspace>>("/api/v1/workspaces");

/** The list asked for while the app was still signing in. */
const early = earlyReads<List<Workspace>>();

/** Starts reading the workspace list as soon as a session exists, beside the reads sign-in still makes. */
export function listWorkspacesEarly(): void {
  early.start("list", listWorkspaces);
}

/** The workspace list: the read started early when it is still fresh, else a new one. */
export function takeWorkspaces(): Promise<List<Workspace>> {
  return early.take("list", listWorkspaces);
}

export const createWorkspace = (body: { name: string; slug?: string; description?: string; git_remote?: string; git_branch?: string; git_token?: string }) =>
  post<Workspace>("/api/v1/workspaces", body);

/** The base of a workspace's own routes (`/api/v1/workspaces/:id`). */
export const workspaceBase = (workspaceId: string) => `/api/v1/workspaces/${encodeURIComponent(workspaceId)}`;

/** Where a workspace's own calls go, by what they are about. */
export function workspaceUrls(workspaceId: string) {
  const base = workspaceBase(workspaceId);
  return {
    base,
    people: `${base}/people`,
    viewing: `${base}/viewing`,
    sitePages: `${base}/site/pages`,
    settings: `${base}/admin/settings`,
    webhookSecret: `${base}/admin/settings/webhook-secret/regenerate`,
    members: `${base}/admin/members`,
    invitations: `${base}/invitations`,
    shareLinks: `${base}/share-links`,
    conflicts: `${base}/conflicts`,
    conflict: (id: string) => `${base}/sync/conflicts/${encodeURIComponent(id)}`,
    sync: `${base}/sync`,
    quality: `${base}/quality`,
    analytics: `${base}/analytics`,
    activity: (action?: string) => `${base}/activity?limit=30${action ? `&action=${action}` : ""}`,
    pageActivity: (page: string) => `${base}/page-activity?page=${encodeURIComponent(page)}&limit=30`,
    search: (q: string) => `${base}/search?q=${encodeURIComponent(q)}&limit=20`,
  };
}
