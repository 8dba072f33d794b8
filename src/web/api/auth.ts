/** Sign-in, the session and the account's sign-in methods (/api/auth/…): where each call goes, and the sign-in methods' calls. */
import { api, del, get, patch, post } from "./client.ts";
import type * as Api from "./openapi-types.ts";
export const AUTH = {
  config: "/api/auth/config",
  me: "/api/auth/me",
  login: "/api/auth/login",
  register: "/api/auth/register",
  logout: "/api/auth/logout",
  refresh: "/api/auth/refresh",
  sessions: "/api/auth/sessions",
  changePassword: "/api/auth/change-password",
  forgotPassword: "/api/auth/forgot-password",
  resetPassword: "/api/auth/reset-password",
  password: "/api/auth/password",
  methods: "/api/auth/methods",
  wsToken: "/api/auth/ws-token",
  oidcClaim: "/api/auth/oidc/claim",
  invitationAccept: "/api/auth/invitations/accept",
  passkeyLoginBegin: "/api/auth/webauthn/login/begin",
  passkeyLoginFinish: "/api/auth/webauthn/login/finish",
  passkeyRegisterBegin: "/api/auth/webauthn/register/begin",
  passkeyRegisterFinish: "/api/auth/webauthn/register/finish",
  passkeys: "/api/auth/webauthn/credentials",
  /** The session cookie of published sites behind sign-in. */
  siteSession: "/api/v1/site-session",
} as const;

const passkeyUrl = (id: string) => `${AUTH.passkeys}/${encodeURIComponent(id)}`;
/** Start (POST) or unlink (DELETE) an external sign-in provider. */
export const oidcUrl = (provider: string) => `/api/auth/oidc/${encodeURIComponent(provider)}`;

// ---- the account's sign-in methods (the profile's "Sign-in methods") ----


export const signInMethods = () => get<Api.SignInMethods>(AUTH.methods);
/** The account's passkeys (each with its name, and when it was created and last used). */
export const listPasskeys = <T>() => get<{ items: T[]; next_cursor: string | null }>(AUTH.passkeys);
export const renamePasskey = (id: string, name: string) => patch(passkeyUrl(id), { name });
export const deletePasskey = (id: string) => del(passkeyUrl(id));
export const addPassword = (newPassword: string) => post(AUTH.password, { new_password: newPassword });
export const removePassword = () => del(AUTH.password);
export const unlinkProvider = (provider: string) => del(oidcUrl(provider));
/** Starts linking a provider: the URL to send the browser to. */
export const linkProvider = (provider: string) => api<{ url: string }>(oidcUrl(provider), { method: "POST", json: { link: true } });
