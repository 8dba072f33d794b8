import { z } from "zod";
import { closedObject, displayName, emailAddress, ulidString, lazyInput } from "../core/validate.ts";
import { API_KEY_SCOPES } from "../core/principal.ts";
import { lazyOutput, listOutput } from "../core/schemas.ts";

/** Input schemas of the identity endpoints, shared by every transport. */
export const registerInput = lazyInput(() => closedObject({
  name: displayName(100),
  email: emailAddress,
  password: z.string(),
  terms_accepted: z.literal(true, { error: "must be true" }),
}));

export const loginInput = lazyInput(() => closedObject({
  email: z.string().max(1024),
  password: z.string().max(4096),
}));

export const refreshInput = lazyInput(() => closedObject({ refresh_token: z.string().min(1).max(512).optional() }));

export const forgotPasswordInput = lazyInput(() => closedObject({ email: z.string().max(1024) }));

export const resetPasswordInput = lazyInput(() => closedObject({
  token: z.string().min(1).max(512),
  new_password: z.string(),
}));

/** POST /api/auth/oidc/:provider — `link: true` (signed in) adds the provider to the account instead of signing in. */
export const oidcStartInput = lazyInput(() => closedObject({ link: z.boolean().optional() }));

/** POST /api/auth/oidc/claim — the one-time code the callback put in the app's URL. */
export const oidcClaimInput = lazyInput(() => closedObject({ code: z.string().min(1).max(256) }));

/** The provider in the sign-in routes' paths. */
export const oidcProviderParams = lazyInput(() => z.object({ provider: z.enum(["google", "github"]) }));

/** GET /api/auth/oidc/:provider/callback — what the provider sends back (anything else is ignored). */
export const oidcCallbackQuery = lazyInput(() => z.object({
  code: z.string().max(4096).optional(),
  state: z.string().max(512).optional(),
  iss: z.string().max(2048).optional(),
  error: z.string().max(256).optional(),
  error_description: z.string().max(2048).optional(),
}));

/** POST /api/auth/password — an account without a password (external sign-in, passkeys) adds one. */
export const setPasswordInput = lazyInput(() => closedObject({ new_password: z.string().max(4096) }));

/** POST /api/auth/webauthn/register/finish — the browser's RegistrationResponseJSON and an optional name. */
export const passkeyRegisterFinishInput = lazyInput(() => closedObject({
  response: z.looseObject({ id: z.string().min(1).max(1024), rawId: z.string().max(1024), type: z.literal("public-key"), response: z.looseObject({}) }),
  name: z.string().trim().min(1).max(100).optional(),
}));

/** POST /api/auth/webauthn/login/begin — with an email, the account's passkeys are offered; without, any discoverable one. */
export const passkeyLoginBeginInput = lazyInput(() => closedObject({ email: z.string().max(1024).optional() }));

/** POST /api/auth/webauthn/login/finish — the browser's AuthenticationResponseJSON. */
export const passkeyLoginFinishInput = lazyInput(() => closedObject({
  response: z.looseObject({ id: z.string().min(1).max(1024), rawId: z.string().max(1024), type: z.literal("public-key"), response: z.looseObject({}) }),
}));

/** PATCH /api/auth/webauthn/credentials/:id — rename a passkey. */
export const passkeyRenameInput = lazyInput(() => closedObject({ name: z.string().trim().min(1).max(100) }));

/**
 * DELETE /api/v1/users/me (Cloud): the current password; an account without one (passkeys or
 * external sign-in only) types its email instead, from a session begun in the last 10 minutes.
 */
export const deleteAccountInput = lazyInput(() => closedObject({
  password: z.string().max(4096).optional(),
  confirm_email: z.string().max(1024).optional(),
}));

/** 9999-12-31T23:59:59Z; later "expiries" are typos, not intentions. */
const MAX_EXPIRES_AT = 253402300799;

/** Unknown fields are refused: a mistyped `scope` must not silently become the default scopes. */
export const createApiKeyInput = lazyInput(() => z.strictObject({
  name: displayName(100).optional(),
  scopes: z.array(z.enum(API_KEY_SCOPES)).min(1).max(API_KEY_SCOPES.length).optional(),
  expires_at: z.number().int().positive().max(MAX_EXPIRES_AT).nullable().optional(),
  workspace_id: ulidString.nullable().optional(),
}));

/** POST /api/auth/change-password. */
export const changePasswordInput = lazyInput(() => z.strictObject({
  current_password: z.string().max(4096),
  new_password: z.string().max(4096),
}));

// ---- outputs (the OpenAPI document is generated from these) ----

/** The signed-in person's account, without any secret. */
export const userOutput = lazyOutput(() => z.object({
  id: z.string(),
  name: z.string(),
  email: z.string(),
  email_verified: z.boolean(),
  has_password: z.boolean(),
  created_at: z.iso.datetime(),
}));

/** GET /api/auth/me */
export const meOutput = lazyOutput(() => z.object({ user: userOutput }));

/** The token pair of docs/interfaces.md §9: login, refresh, passkey and external sign-in. */
export const tokenPairOutput = lazyOutput(() => z.object({
  access_token: z.string().describe("RS256 JWT, 15 minutes"),
  refresh_token: z.string().describe("7 days, rotated on use (also set as an HttpOnly cookie)"),
  expires_in: z.number().int().describe("Seconds: 900"),
}));

/** POST /api/auth/register: the account, and the access token unless the account must be confirmed first. */
export const registerOutput = lazyOutput(() => z.object({
  user: userOutput,
  access_token: z.string().optional(),
  expires_at: z.iso.datetime().optional().describe("The access token's expiry"),
  expires_in: z.number().int().optional(),
}));

/** An API key as listed: its prefix, never the secret. */
export const apiKeyOutput = lazyOutput(() => z.object({
  id: z.string(),
  name: z.string(),
  prefix: z.string().describe("The secret's first characters, to recognise it"),
  scopes: z.array(z.enum(API_KEY_SCOPES)),
  workspace_id: z.string().nullable().describe("The one workspace the key is limited to, if any"),
  org_id: z.string(),
  expires_at: z.number().int().nullable().describe("Unix seconds"),
  created_at: z.iso.datetime(),
  last_used_at: z.iso.datetime().nullable(),
}));

/** A key just created or rotated: the secret, shown this once. */
export const apiKeySecretOutput = lazyOutput(() => apiKeyOutput.unwrap().extend({ key: z.string().describe("The secret (quire_live_…), shown only in this answer") }));

/** GET /api/v1/api-keys */
export const apiKeyListOutput = lazyOutput(() => listOutput(apiKeyOutput));

/** A signed-in device of the caller. */
export const sessionOutput = lazyOutput(() => z.object({
  id: z.string(),
  device: z.string().describe("The client's user agent, as recorded at sign-in"),
  ip: z.string(),
  created_at: z.iso.datetime(),
  last_active_at: z.iso.datetime(),
  current: z.boolean().describe("The session this request is made with"),
}));
/** GET /api/auth/sessions: the caller's active sessions (one page). */
export const sessionListOutput = lazyOutput(() => z.object({ items: z.array(sessionOutput), next_cursor: z.null() }));

/** An external sign-in provider that is set up. */
export const providerOutput = lazyOutput(() => z.object({ id: z.string(), name: z.string() }));
/** GET /api/auth/providers */
export const providerListOutput = lazyOutput(() => z.object({ items: z.array(providerOutput) }));

/** GET /api/auth/config: what a sign-in screen needs before anyone is signed in. */
export const authConfigOutput = lazyOutput(() => z.object({
  signup_enabled: z.boolean(),
  email_enabled: z.boolean().describe("Without email, reset links and invitations are handed over by an administrator"),
  providers: z.array(providerOutput),
  passkeys: z.boolean().describe("Sign-in with a passkey is offered"),
  ai_assist: z.boolean().describe("A writing model is configured: the editor offers Assist"),
}));
export type AuthConfigOutput = z.infer<typeof authConfigOutput>;

/** GET /api/auth/methods: the caller's ways to sign in. */
export const signInMethodsOutput = lazyOutput(() => z.object({
  password: z.boolean(),
  providers: z
    .array(
      z.object({
        id: z.string(),
        name: z.string(),
        linked: z.boolean(),
        email: z.string().nullable(),
        linked_at: z.iso.datetime().nullable(),
        last_used_at: z.iso.datetime().nullable(),
      }),
    )
    .describe("Every provider the instance enables, linked or not"),
  passkeys: z.number().int().min(0),
}));

/** POST /api/auth/forgot-password and /reset-password: what happened, in words. */
export const messageOutput = lazyOutput(() => z.object({ message: z.string() }));

/** POST /api/auth/change-password: every session of the account is signed out, the caller's too. */
export const passwordChangedOutput = lazyOutput(() => z.object({ revoked_sessions: z.number().int().min(0).describe("Sessions signed out (all of the account's)") }));
