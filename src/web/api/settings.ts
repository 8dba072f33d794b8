/**
 * The settings screens' calls: a workspace's settings, git sync and its conflicts, the published
 * site (custom domain, versions), members, invitations and share links, and the caller's API keys.
 * Answers are the API's own types (openapi-types.ts); the routes without a documented answer (sync,
 * conflicts) are typed here, once.
 */
import { del, get, post, put } from "./client.ts";
import type * as Api from "./openapi-types.ts";
import { API_KEYS, apiKeyUrl, MCP_CLIENT_CONFIG } from "./account.ts";
import { workspaceUrls } from "./workspaces.ts";

export type SiteStatus = Api.SiteStatus;
export type SiteVersion = Api.Version;

export type Invitation = Api.Invitation;

export type McpClientConfig = Api.McpClientConfig;

export interface ConflictSummary {
  id: string;
  path: string;
  timestamp: string;
}

export interface ConflictDetail extends ConflictSummary {
  ours: string;
  theirs: string | null;
  theirs_deleted?: boolean;
}

export interface SyncResult {
  status: "completed" | "conflict" | "ignored" | "failed";
  changes: { added: number; updated: number; deleted: number };
  conflicts?: number;
  error?: string;
}

// ---- the workspace's settings ----

export const readSettings = (workspaceId: string) => get<Api.Settings>(workspaceUrls(workspaceId).settings);
export const saveSettings = (workspaceId: string, patch: Record<string, unknown>) => put<Api.Settings>(workspaceUrls(workspaceId).settings, patch);
export const regenerateWebhookSecret = (workspaceId: string) => post(workspaceUrls(workspaceId).webhookSecret);

// ---- git sync ----

export const listConflicts = (workspaceId: string) => get<{ sync_status: string; conflicts: ConflictSummary[] }>(workspaceUrls(workspaceId).conflicts);
export const readConflict = (workspaceId: string, id: string) => get<ConflictDetail>(workspaceUrls(workspaceId).conflict(id));
export const resolveConflict = (workspaceId: string, id: string, body: { resolution: "kept_local" | "kept_remote" | "custom"; content?: string }) =>
  post(`${workspaceUrls(workspaceId).conflict(id)}/resolve`, body);
export const syncNow = (workspaceId: string) => post<SyncResult>(workspaceUrls(workspaceId).sync);

// ---- the published site ----

const siteBase = (workspaceId: string) => workspaceUrls(workspaceId).base;
export const readSite = (workspaceId: string) => get<Api.SiteStatus>(`${siteBase(workspaceId)}/site`);
export const setCustomDomain = (workspaceId: string, domain: string) => put<Api.CustomDomain>(`${siteBase(workspaceId)}/custom-domain`, { domain });
export const verifyCustomDomain = (workspaceId: string) => post<Api.CustomDomain>(`${siteBase(workspaceId)}/custom-domain/verify`);
export const removeCustomDomain = (workspaceId: string) => del(`${siteBase(workspaceId)}/custom-domain`);
export const createSiteVersion = (workspaceId: string, body: Record<string, unknown>) => post<Api.Version>(`${siteBase(workspaceId)}/versions`, body);
export const makeDefaultVersion = (workspaceId: string, slug: string) => put(`${siteBase(workspaceId)}/versions/${encodeURIComponent(slug)}/default`);
export const deleteSiteVersion = (workspaceId: string, slug: string) => del(`${siteBase(workspaceId)}/versions/${encodeURIComponent(slug)}`);

// ---- people ----

export const listMembers = (workspaceId: string) => get<Api.MemberList>(`${workspaceUrls(workspaceId).members}?limit=100`);
export const setMemberRole = (workspaceId: string, userId: string, role: string) => put(`${workspaceUrls(workspaceId).members}/${encodeURIComponent(userId)}/role`, { role });
export const removeMember = (workspaceId: string, userId: string) => del(`${workspaceUrls(workspaceId).members}/${encodeURIComponent(userId)}`);

export const listInvitations = (workspaceId: string) => get<Api.InvitationList>(workspaceUrls(workspaceId).invitations);
export const invite = (workspaceId: string, body: { email: string; role: string }) => post<Api.Invitation>(workspaceUrls(workspaceId).invitations, body);
export const revokeInvitation = (workspaceId: string, id: string) => del(`${workspaceUrls(workspaceId).invitations}/${encodeURIComponent(id)}`);

export const listShareLinks = (workspaceId: string) => get<Api.ShareLinkList>(workspaceUrls(workspaceId).shareLinks);
export const createShareLink = (workspaceId: string, body: Record<string, unknown>) => post<Api.ShareLinkWithToken>(workspaceUrls(workspaceId).shareLinks, body);
export const revokeShareLink = (workspaceId: string, id: string) => del(`${workspaceUrls(workspaceId).shareLinks}/${encodeURIComponent(id)}`);

// ---- the caller's API keys ----

export const listApiKeys = () => get<Api.ApiKeyList>(API_KEYS);
export const createApiKey = (body: Record<string, unknown>) => post<Api.ApiKeyWithSecret>(API_KEYS, body);
export const rotateApiKey = (id: string) => post<Api.ApiKeyWithSecret>(`${apiKeyUrl(id)}/rotate`);
export const revokeApiKey = (id: string) => del(apiKeyUrl(id));
export const mcpClientConfig = () => get<Api.McpClientConfig>(MCP_CLIENT_CONFIG);
