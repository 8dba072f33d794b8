/** The caller's account: password, sessions, the WebSocket token, writing assist, API keys and the MCP client configuration, and joining by share link. */
import { get, post } from "./client.ts";
import type * as Api from "./openapi-types.ts";
import { AUTH } from "./auth.ts";
export const API_KEYS = "/api/v1/api-keys";
export const apiKeyUrl = (id: string) => `${API_KEYS}/${encodeURIComponent(id)}`;
export const MCP_CLIENT_CONFIG = "/api/v1/mcp/client-config";
const ASSIST = "/api/ai/assist";
const shareLinkUseUrl = (token: string) => `/api/v1/share-links/${encodeURIComponent(token)}/use`;

// ---- the calls (the API key addresses are used by settings.ts) ----

export const changePassword = (currentPassword: string, newPassword: string) =>
  post<Api.PasswordChanged>(AUTH.changePassword, { current_password: currentPassword, new_password: newPassword });
export const listSessions = () => get<Api.SessionList>(AUTH.sessions);
/** A single-use token for the WebSocket, set as a cookie by the answer. */
export const webSocketToken = () => post(AUTH.wsToken);
/** What the instance offers at sign-in and in the editor (sign-up, providers, passkeys, writing assist). */
export const authConfig = () => get<Api.AuthConfig>(AUTH.config);
export const writingAssist = (body: { text: string; mode: string; language?: string }) => post<Api.Assist>(ASSIST, body);
/** Joins the workspace a share link names (its role; nothing spent when the caller already has it). */
export const useShareLink = (token: string) => post<Api.ShareLinkUse>(shareLinkUseUrl(token));
