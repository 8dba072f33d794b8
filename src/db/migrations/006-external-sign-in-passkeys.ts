/**
 * External sign-in (OpenID Connect / GitHub) and passkeys (docs/architecture.md §14). Flows, claim codes and
 * challenges are short-lived single-use rows: kept in the database rather than in memory so a
 * sign-in started before a restart still completes, and so "used" is decided by one UPDATE.
 */
export const sql = /* sql */ `
-- Who a provider says a person is: (provider, subject) names one account; one identity per provider per account.
CREATE TABLE user_identities (
  provider TEXT NOT NULL,
  subject TEXT NOT NULL,
  user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  email TEXT NOT NULL DEFAULT '',
  created_at TEXT NOT NULL,
  last_used_at TEXT,
  PRIMARY KEY (provider, subject)
);
CREATE UNIQUE INDEX user_identities_user_provider ON user_identities(user_id, provider);

-- An authorization request in flight: state (hashed), nonce and PKCE verifier, bound to the browser
-- that started it by the hash of an HttpOnly cookie; 10 minutes, single use.
CREATE TABLE oidc_flows (
  state_hash TEXT PRIMARY KEY,
  provider TEXT NOT NULL,
  browser_hash TEXT NOT NULL,
  nonce TEXT NOT NULL,
  code_verifier TEXT NOT NULL,
  link_user_id TEXT REFERENCES users(id) ON DELETE CASCADE,
  created_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL,
  used_at INTEGER
);

-- The one-time code the callback hands to the app, traded for the token pair (60 s, single use).
CREATE TABLE oidc_claims (
  code_hash TEXT PRIMARY KEY,
  user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  browser_hash TEXT NOT NULL,
  expires_at INTEGER NOT NULL,
  used_at INTEGER
);

-- A passkey: only the public key is stored; sign_count detects a cloned authenticator.
CREATE TABLE webauthn_credentials (
  id TEXT PRIMARY KEY,
  user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  credential_id TEXT NOT NULL UNIQUE,
  public_key BLOB NOT NULL,
  sign_count INTEGER NOT NULL DEFAULT 0,
  transports TEXT NOT NULL DEFAULT '[]',
  device_type TEXT NOT NULL DEFAULT 'singleDevice',
  backed_up INTEGER NOT NULL DEFAULT 0,
  name TEXT NOT NULL,
  created_at TEXT NOT NULL,
  last_used_at TEXT
);
CREATE INDEX webauthn_credentials_user ON webauthn_credentials(user_id);

-- Ceremony challenges, issued by the server, single use, 5 minutes.
CREATE TABLE webauthn_challenges (
  challenge TEXT PRIMARY KEY,
  kind TEXT NOT NULL CHECK (kind IN ('register', 'login')),
  user_id TEXT REFERENCES users(id) ON DELETE CASCADE,
  expires_at INTEGER NOT NULL
);
`;
