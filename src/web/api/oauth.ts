/** MCP authorization in the web app: the consent request an app is waiting on, and connected apps. */
import { del, get, post } from "./client.ts";
import type * as Api from "./openapi-types.ts";

export type OAuthConsent = Api.OAuthConsent;
export type ConnectedApp = Api.ConnectedApp;

const consentUrl = (id: string) => `/api/v1/oauth/consent/${encodeURIComponent(id)}`;

export const loadConsent = (id: string) => get<OAuthConsent>(consentUrl(id));

export const decideConsent = (id: string, decision: { consent_token: string; approve: boolean; scopes: OAuthConsent["scopes"]; workspace_ids: string[] }) =>
  post<Api.OAuthConsentDecision>(consentUrl(id), decision);

export const listConnectedApps = () => get<Api.ConnectedAppList>("/api/v1/oauth/grants");
export const listOrganizationApps = () => get<Api.ConnectedAppList>("/api/v1/oauth/grants/organization");
export const revokeConnectedApp = (id: string) => del<void>(`/api/v1/oauth/grants/${encodeURIComponent(id)}`);
