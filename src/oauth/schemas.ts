import { z } from "zod";
import { lazyInput } from "../core/validate.ts";
import { lazyOutput } from "../core/schemas.ts";

/** The scopes an MCP client may ask for: those of API keys, without the platform owner's `admin:read`. */
export const OAUTH_SCOPES = ["read", "write", "delete", "admin"] as const;
export type OAuthScope = (typeof OAUTH_SCOPES)[number];

const scopeString = lazyInput(() => z.string().max(200).optional().describe("space-separated scopes: read, write, delete, admin"));

/** `GET /oauth/authorize` (RFC 6749 §4.1.1 with PKCE, RFC 7636, and a resource indicator, RFC 8707). */
export const authorizeQuery = lazyInput(() => z.object({
  response_type: z.literal("code"),
  client_id: z.string().max(2000).describe("a registered client id, or the https URL of the client's metadata document"),
  redirect_uri: z.string().max(2000),
  code_challenge: z.string().min(43).max(128),
  code_challenge_method: z.literal("S256"),
  resource: z.string().max(2000).describe("the MCP endpoint, {BASE_URL}/mcp"),
  scope: scopeString,
  state: z.string().max(1000).optional(),
}));

/** `POST /oauth/token` (form-encoded): an authorization code or a refresh token. */
export const tokenInput = lazyInput(() => z.object({
  grant_type: z.enum(["authorization_code", "refresh_token"]),
  code: z.string().max(200).optional(),
  redirect_uri: z.string().max(2000).optional(),
  code_verifier: z.string().min(43).max(128).optional(),
  client_id: z.string().max(2000).optional(),
  refresh_token: z.string().max(200).optional(),
  resource: z.string().max(2000).optional(),
  scope: scopeString,
}));

/** `POST /oauth/register` (RFC 7591): public clients only; unknown metadata is accepted and ignored. */
export const registerInput = lazyInput(() => z.looseObject({
  redirect_uris: z.array(z.string().max(2000)).min(1).max(20),
  client_name: z.string().max(100).optional(),
  token_endpoint_auth_method: z.string().max(50).optional(),
  grant_types: z.array(z.string().max(50)).max(10).optional(),
  response_types: z.array(z.string().max(50)).max(10).optional(),
}));

/** `POST /oauth/revoke` (RFC 7009, form-encoded). */
export const revokeInput = lazyInput(() => z.object({
  token: z.string().max(8192),
  token_type_hint: z.enum(["access_token", "refresh_token"]).optional(),
  client_id: z.string().max(2000).optional(),
}));

/** The person's answer on the consent screen: the scopes and workspaces may be narrowed, never widened. */
export const consentDecisionInput = lazyInput(() => z.strictObject({
  consent_token: z.string().min(1).max(200),
  approve: z.boolean(),
  scopes: z.array(z.enum(OAUTH_SCOPES)).max(OAUTH_SCOPES.length).default([]),
  workspace_ids: z.array(z.string().max(64)).max(1000).default([]),
}));

export const tokenOutput = lazyOutput(() => z.object({
  access_token: z.string(),
  token_type: z.literal("Bearer"),
  expires_in: z.number().int(),
  refresh_token: z.string(),
  scope: z.string(),
}));

export const registrationOutput = lazyOutput(() => z.object({
  client_id: z.string(),
  client_id_issued_at: z.number().int(),
  client_name: z.string(),
  redirect_uris: z.array(z.string()),
  token_endpoint_auth_method: z.literal("none"),
  grant_types: z.array(z.string()),
  response_types: z.array(z.string()),
}));

const consentWorkspace = lazyInput(() => z.object({ id: z.string(), slug: z.string(), name: z.string(), role: z.string() }));

export const consentOutput = lazyOutput(() => z.object({
  request_id: z.string(),
  client_id: z.string(),
  client_name: z.string(),
  redirect_uri: z.string(),
  /** Where the app sends the person back to: the one host a person can judge. */
  redirect_host: z.string(),
  metadata_document: z.boolean(),
  scopes: z.array(z.enum(OAUTH_SCOPES)),
  workspaces: z.array(consentWorkspace),
  site: z.string().nullable().describe("Set when the app asks to read one members-only published site (its name): read only, that site's workspace only"),
  consent_token: z.string(),
}));

export const consentDecisionOutput = lazyOutput(() => z.object({ redirect_to: z.string() }));

export const grantOutput = lazyOutput(() => z.object({
  id: z.string(),
  client_id: z.string(),
  client_name: z.string(),
  redirect_host: z.string(),
  scopes: z.array(z.enum(OAUTH_SCOPES)),
  workspaces: z.array(z.object({ id: z.string(), slug: z.string(), name: z.string() })),
  created_at: z.string(),
  last_used_at: z.string().nullable(),
  user: z.object({ id: z.string(), name: z.string(), email: z.string() }),
}));
export type GrantJson = z.infer<typeof grantOutput>;

export const grantListOutput = lazyOutput(() => z.object({ items: z.array(grantOutput) }));
