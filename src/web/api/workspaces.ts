/** Workspaces the caller belongs to, and creating one (Super Admin). Each carries the caller's `rights`. */
import { get, post } from "./client.ts";
import type { List, Workspace } from "./types.ts";

export const listWorkspaces = () => get<List<Workspace>>("/api/v1/workspaces");

/** The list asked for while the app was still signing in; taken once, and only while fresh. */
let early: { at: number; list: Promise<List<Workspace>> } | null = null;
const EARLY_FRESH_MS = 5000;

/** Starts reading the workspace list as soon as a session exists, beside the reads sign-in still makes. */
export function listWorkspacesEarly(): void {
  const list = listWorkspaces();
  list.catch(() => {}); // whoever takes it reports the failure
  early = { at: Date.now(), list };
}

/** The workspace list: the read started early when it is still fresh, else a new one. */
export function takeWorkspaces(): Promise<List<Workspace>> {
  const started = early;
  early = null;
  return started && Date.now() - started.at < EARLY_FRESH_MS ? started.list : listWorkspaces();
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
