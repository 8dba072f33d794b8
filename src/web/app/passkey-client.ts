/**
 * Passkey ceremonies in the browser (@simplewebauthn/browser): the server hands out the options
 * JSON, the browser's authenticator answers, the server checks the answer.
 */
import { browserSupportsWebAuthn, browserSupportsWebAuthnAutofill, startAuthentication, startRegistration, WebAuthnAbortService } from "@simplewebauthn/browser";
import type { PublicKeyCredentialCreationOptionsJSON, PublicKeyCredentialRequestOptionsJSON } from "@simplewebauthn/browser";
import { api, post } from "../api/client.ts";
import { AUTH } from "../api/auth.ts";

export { browserSupportsWebAuthn };

export interface PasskeyRecord {
  id: string;
  name: string;
  created_at: string;
  last_used_at: string | null;
  sign_count: number;
}

/** Signs in with a passkey; with an email only that account's passkeys are offered. Returns the access token. */
export async function passkeySignIn(email?: string): Promise<string> {
  const optionsJSON = await api<PublicKeyCredentialRequestOptionsJSON>(AUTH.passkeyLoginBegin, {
    method: "POST",
    json: email ? { email } : {},
    noRefresh: true,
  });
  const response = await startAuthentication({ optionsJSON });
  const tokens = await api<{ access_token: string }>(AUTH.passkeyLoginFinish, { method: "POST", json: { response }, noRefresh: true });
  return tokens.access_token;
}

/**
 * Offers the account's passkeys in the email field's autofill list (conditional mediation). Resolves
 * with an access token when the person picks one; never settles when they type a password instead
 * (the ceremony is aborted by the next one, or when the screen closes).
 */
export async function passkeyAutofill(): Promise<string | null> {
  if (!(await browserSupportsWebAuthnAutofill())) return null;
  const optionsJSON = await api<PublicKeyCredentialRequestOptionsJSON>(AUTH.passkeyLoginBegin, { method: "POST", json: {}, noRefresh: true });
  const response = await startAuthentication({ optionsJSON, useBrowserAutofill: true });
  const tokens = await api<{ access_token: string }>(AUTH.passkeyLoginFinish, { method: "POST", json: { response }, noRefresh: true });
  return tokens.access_token;
}

export function cancelPasskeyCeremony(): void {
  WebAuthnAbortService.cancelCeremony();
}

export async function registerPasskey(name?: string): Promise<PasskeyRecord> {
  const optionsJSON = await post<PublicKeyCredentialCreationOptionsJSON>(AUTH.passkeyRegisterBegin);
  const response = await startRegistration({ optionsJSON });
  return post<PasskeyRecord>(AUTH.passkeyRegisterFinish, name ? { response, name } : { response });
}
