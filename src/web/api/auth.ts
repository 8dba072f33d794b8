/** Sign-in, the session and the account's sign-in methods (/api/auth/…): where each call goes. */
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

export const passkeyUrl = (id: string) => `${AUTH.passkeys}/${encodeURIComponent(id)}`;
/** Start (POST) or unlink (DELETE) an external sign-in provider. */
export const oidcUrl = (provider: string) => `/api/auth/oidc/${encodeURIComponent(provider)}`;
