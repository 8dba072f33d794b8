import type {
  AuthenticationResponseJSON,
  AuthenticatorTransport,
  PublicKeyCredentialCreationOptionsJSON,
  PublicKeyCredentialRequestOptionsJSON,
  RegistrationResponseJSON,
} from "@simplewebauthn/server";
import { createHmac, randomBytes } from "node:crypto";
import type { Db } from "../db/database.ts";
import type { WebAuthnConfig } from "../config.ts";
import type { Logger } from "../core/log.ts";
import { ConflictError, NotFoundError, UnauthorizedError, ValidationError } from "../core/errors.ts";
import { isoFromMs, nowMs } from "../core/clock.ts";
import { ulid } from "../core/ids.ts";
import { parseInput } from "../core/validate.ts";
import type { AuthService, ClientInfo, IssuedTokens } from "./auth-service.ts";
import type { SignInMethods } from "./sign-in-methods.ts";
import type { Users } from "./users.ts";
import { passkeyLoginBeginInput, passkeyLoginFinishInput, passkeyRegisterFinishInput, passkeyRenameInput } from "./schemas.ts";

/**
 * @simplewebauthn/server, loaded on first use. Its certificate code (@peculiar/x509 → tsyringe)
 * needs the Reflect metadata polyfill installed before tsyringe's module runs; the library imports
 * it itself, but a bundle that hoists ES modules above CommonJS ones (the compiled executable)
 * evaluates tsyringe first and it throws at start-up. Loading the polyfill, then the library, in
 * that order and only when a passkey ceremony needs them, holds in every build (and keeps the
 * library off the start-up path of instances without passkeys).
 */
let library: Promise<typeof import("@simplewebauthn/server")> | null = null;
const webauthn = () => (library ??= import("reflect-metadata").then(() => import("@simplewebauthn/server")));

/** A ceremony's challenge is good for 5 minutes, once. */
export const CHALLENGE_TTL_MS = 5 * 60_000;

interface CredentialRow {
  id: string;
  user_id: string;
  credential_id: string;
  public_key: Uint8Array;
  sign_count: number;
  transports: string;
  name: string;
  created_at: string;
  last_used_at: string | null;
}

interface PasskeyJson {
  id: string;
  name: string;
  created_at: string;
  last_used_at: string | null;
  sign_count: number;
}

const PASSKEY_FAILED = "Passkey sign-in failed";

const toJson = (r: CredentialRow): PasskeyJson => ({ id: r.id, name: r.name, created_at: r.created_at, last_used_at: r.last_used_at, sign_count: r.sign_count });

/**
 * Passkeys (WebAuthn) with @simplewebauthn/server, as docs/architecture.md §14 decides: begin answers the
 * options JSON itself, finish takes `{response}`; challenges are stored here, single use, 5
 * minutes; only the public key is kept, with the sign count, and a count that does not move
 * forward refuses the sign-in (a cloned authenticator). Passkey sign-ins do not meet the password
 * lockout. Discoverable credentials (resident keys) are asked for, so a sign-in works without an
 * email and through the browser's autofill.
 */
export class Passkeys {
  constructor(
    private readonly deps: { db: Db; config: WebAuthnConfig | undefined; log: Logger; users: Users; auth: AuthService; methods: SignInMethods },
  ) {}

  private get rp(): WebAuthnConfig {
    if (!this.deps.config) throw new NotFoundError("Passkeys are not enabled on this instance (WEBAUTHN_RP_ID is not set)");
    return this.deps.config;
  }

  private credentialsOf(userId: string): CredentialRow[] {
    return this.deps.db.query<CredentialRow, [string]>("SELECT * FROM webauthn_credentials WHERE user_id = ? ORDER BY created_at, id").all(userId);
  }

  private storeChallenge(challenge: string, kind: "register" | "login", userId: string | null): void {
    const t = nowMs();
    this.deps.db.query("DELETE FROM webauthn_challenges WHERE expires_at <= ?").run(t);
    this.deps.db.query("INSERT INTO webauthn_challenges (challenge, kind, user_id, expires_at) VALUES (?, ?, ?, ?)").run(challenge, kind, userId, t + CHALLENGE_TTL_MS);
  }

  /** Takes (deletes) the challenge the response answers; null when unknown, used, expired or of another kind. */
  private takeChallenge(response: { response: { clientDataJSON?: unknown } }, kind: "register" | "login"): { challenge: string; user_id: string | null } | null {
    let challenge: unknown;
    try {
      challenge = JSON.parse(Buffer.from(String(response.response.clientDataJSON ?? ""), "base64url").toString("utf8")).challenge;
    } catch {
      return null;
    }
    if (typeof challenge !== "string" || challenge.length > 512) return null;
    return this.deps.db.transaction(() => {
      const row = this.deps.db
        .query<{ challenge: string; user_id: string | null; kind: string; expires_at: number }, [string]>("SELECT * FROM webauthn_challenges WHERE challenge = ?")
        .get(challenge);
      if (!row) return null;
      this.deps.db.query("DELETE FROM webauthn_challenges WHERE challenge = ?").run(challenge);
      if (row.kind !== kind || row.expires_at <= nowMs()) return null;
      return { challenge: row.challenge, user_id: row.user_id };
    })();
  }

  async registerBegin(userId: string): Promise<PublicKeyCredentialCreationOptionsJSON> {
    const rp = this.rp;
    const user = this.deps.users.byId(userId);
    if (!user) throw new NotFoundError("Account not found");
    const { generateRegistrationOptions } = await webauthn();
    const options = await generateRegistrationOptions({
      rpName: rp.rpName,
      rpID: rp.rpId,
      userName: user.email,
      userDisplayName: user.name,
      userID: new TextEncoder().encode(user.id),
      attestationType: "none",
      excludeCredentials: this.credentialsOf(userId).map((c) => ({ id: c.credential_id, transports: JSON.parse(c.transports) as AuthenticatorTransport[] })),
      authenticatorSelection: { residentKey: "required", userVerification: "preferred" },
      timeout: CHALLENGE_TTL_MS,
    });
    this.storeChallenge(options.challenge, "register", userId);
    return options;
  }

  async registerFinish(userId: string, body: unknown): Promise<PasskeyJson> {
    const rp = this.rp;
    const input = parseInput(passkeyRegisterFinishInput, body);
    const response = input.response as unknown as RegistrationResponseJSON;
    const taken = this.takeChallenge(response, "register");
    if (!taken || taken.user_id !== userId) throw new ValidationError("This passkey registration expired or was already used; start again", "response");
    const { verifyRegistrationResponse } = await webauthn();
    let verification;
    try {
      verification = await verifyRegistrationResponse({ response, expectedChallenge: taken.challenge, expectedOrigin: rp.origins, expectedRPID: rp.rpId, requireUserVerification: false });
    } catch (error) {
      throw new ValidationError(`The passkey could not be verified: ${error instanceof Error ? error.message : String(error)}`, "response");
    }
    if (!verification.verified || !verification.registrationInfo) throw new ValidationError("The passkey could not be verified", "response");
    const info = verification.registrationInfo;
    const now = isoFromMs(nowMs());
    const row: CredentialRow = {
      id: ulid(),
      user_id: userId,
      credential_id: info.credential.id,
      public_key: info.credential.publicKey,
      sign_count: info.credential.counter,
      transports: JSON.stringify(info.credential.transports ?? []),
      name: input.name ?? defaultName(info.credentialDeviceType, this.credentialsOf(userId).length),
      created_at: now,
      last_used_at: null,
    };
    try {
      this.deps.db
        .query(
          `INSERT INTO webauthn_credentials (id, user_id, credential_id, public_key, sign_count, transports, device_type, backed_up, name, created_at)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        )
        .run(row.id, userId, row.credential_id, row.public_key, row.sign_count, row.transports, info.credentialDeviceType, info.credentialBackedUp ? 1 : 0, row.name, now);
    } catch (error) {
      if (String(error).includes("UNIQUE")) throw new ConflictError("This passkey is registered already", undefined, { field: "response" });
      throw error;
    }
    return toJson(row);
  }

  /**
   * A stable stand-in credential id for an email that has no passkey (or no account): the answer
   * for such an email looks like one for an account with a passkey, so begin does not tell who
   * has an account (docs/architecture.md §7: sign-in failures are indistinguishable).
   */
  private decoyCredentialId(email: string): string {
    const row = this.deps.db.query<{ value: string }, []>("SELECT value FROM instance WHERE key = 'webauthn_decoy_key'").get();
    let key = row?.value;
    if (!key) {
      this.deps.db.query("INSERT OR IGNORE INTO instance (key, value) VALUES ('webauthn_decoy_key', ?)").run(randomBytes(32).toString("base64url"));
      key = this.deps.db.query<{ value: string }, []>("SELECT value FROM instance WHERE key = 'webauthn_decoy_key'").get()!.value;
    }
    return createHmac("sha256", key).update(email.trim().toLowerCase()).digest().subarray(0, 16).toString("base64url");
  }

  /** With an email: that account's passkeys are offered. Without: any discoverable passkey for this site (and the autofill UI). */
  async loginBegin(body: unknown): Promise<PublicKeyCredentialRequestOptionsJSON> {
    const rp = this.rp;
    const input = parseInput(passkeyLoginBeginInput, body ?? {});
    const user = input.email ? this.deps.users.byEmail(input.email) : null;
    const own = user ? this.credentialsOf(user.id).map((c) => ({ id: c.credential_id, transports: JSON.parse(c.transports) as AuthenticatorTransport[] })) : [];
    const allowCredentials = input.email && own.length === 0 ? [{ id: this.decoyCredentialId(input.email), transports: ["internal", "hybrid"] as AuthenticatorTransport[] }] : own;
    const { generateAuthenticationOptions } = await webauthn();
    const options = await generateAuthenticationOptions({ rpID: rp.rpId, userVerification: "preferred", timeout: CHALLENGE_TTL_MS, allowCredentials });
    this.storeChallenge(options.challenge, "login", user?.id ?? null);
    return options;
  }

  async loginFinish(body: unknown, client: ClientInfo): Promise<IssuedTokens> {
    const rp = this.rp;
    const input = parseInput(passkeyLoginFinishInput, body);
    const response = input.response as unknown as AuthenticationResponseJSON;
    const taken = this.takeChallenge(response, "login");
    if (!taken) throw new UnauthorizedError(PASSKEY_FAILED);
    const cred = this.deps.db.query<CredentialRow, [string]>("SELECT * FROM webauthn_credentials WHERE credential_id = ?").get(response.id);
    if (!cred) throw new UnauthorizedError(PASSKEY_FAILED);
    // Begun for one account (with an email), finished with another's passkey: refused.
    if (taken.user_id !== null && taken.user_id !== cred.user_id) throw new UnauthorizedError(PASSKEY_FAILED);
    const handle = response.response.userHandle;
    if (handle && Buffer.from(handle, "base64url").toString("utf8") !== cred.user_id) throw new UnauthorizedError(PASSKEY_FAILED);
    const { verifyAuthenticationResponse } = await webauthn();
    let verification;
    try {
      verification = await verifyAuthenticationResponse({
        response,
        expectedChallenge: taken.challenge,
        expectedOrigin: rp.origins,
        expectedRPID: rp.rpId,
        credential: { id: cred.credential_id, publicKey: new Uint8Array(cred.public_key), counter: cred.sign_count, transports: JSON.parse(cred.transports) },
        requireUserVerification: false,
      });
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      // A counter that did not move forward: two authenticators hold this key (a clone).
      const cloned = /counter/i.test(message);
      this.deps.log.warn(cloned ? "passkey refused: sign count went backwards (possible cloned authenticator)" : "passkey refused", {
        user_id: cred.user_id,
        credential: cred.id,
        error: message,
      });
      throw new UnauthorizedError(PASSKEY_FAILED);
    }
    if (!verification.verified) throw new UnauthorizedError(PASSKEY_FAILED);
    const user = this.deps.users.byId(cred.user_id);
    if (!user) throw new UnauthorizedError(PASSKEY_FAILED);
    // Only a count that moved forward is stored (authenticators that keep no count report 0 each time).
    this.deps.db
      .query("UPDATE webauthn_credentials SET sign_count = MAX(sign_count, ?), last_used_at = ? WHERE id = ?")
      .run(verification.authenticationInfo.newCounter, isoFromMs(nowMs()), cred.id);
    return this.deps.auth.signIn(user, client);
  }

  list(userId: string): PasskeyJson[] {
    return this.credentialsOf(userId).map(toJson);
  }

  rename(userId: string, id: string, body: unknown): PasskeyJson {
    const input = parseInput(passkeyRenameInput, body);
    const changed = this.deps.db.query("UPDATE webauthn_credentials SET name = ? WHERE id = ? AND user_id = ?").run(input.name, id, userId).changes;
    if (changed !== 1) throw new NotFoundError("No such passkey");
    return toJson(this.deps.db.query<CredentialRow, [string]>("SELECT * FROM webauthn_credentials WHERE id = ?").get(id)!);
  }

  remove(userId: string, id: string): void {
    this.deps.db.transaction(() => {
      const row = this.deps.db.query<{ id: string }, [string, string]>("SELECT id FROM webauthn_credentials WHERE id = ? AND user_id = ?").get(id, userId);
      if (!row) throw new NotFoundError("No such passkey");
      this.deps.methods.assertNotLast(userId);
      this.deps.db.query("DELETE FROM webauthn_credentials WHERE id = ?").run(id);
    })();
  }
}

function defaultName(deviceType: string, existing: number): string {
  const base = deviceType === "multiDevice" ? "Synced passkey" : "Passkey";
  return existing === 0 ? base : `${base} ${existing + 1}`;
}
