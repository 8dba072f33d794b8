/** The caller's API keys and MCP client configuration, and joining by share link. */
export const API_KEYS = "/api/v1/api-keys";
export const apiKeyUrl = (id: string) => `${API_KEYS}/${encodeURIComponent(id)}`;
export const MCP_CLIENT_CONFIG = "/api/v1/mcp/client-config";
export const ASSIST = "/api/ai/assist";
export const shareLinkUseUrl = (token: string) => `/api/v1/share-links/${encodeURIComponent(token)}/use`;
