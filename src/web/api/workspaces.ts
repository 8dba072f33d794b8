/** Workspaces the caller belongs to, and creating one (Super Admin). Each carries the caller's `rights`. */
import { get, post } from "./client.ts";
import type { List, Workspace } from "./types.ts";

export const listWorkspaces = () => get<List<Workspace>>("/api/v1/workspaces");

export const createWorkspace = (body: { name: string; slug?: string; description?: string; git_remote?: string; git_branch?: string; git_token?: string }) =>
  post<Workspace>("/api/v1/workspaces", body);

/** The base of a workspace's own routes (`/api/v1/workspaces/:id`). */
export const workspaceBase = (workspaceId: string) => `/api/v1/workspaces/${encodeURIComponent(workspaceId)}`;
