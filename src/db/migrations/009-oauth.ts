/**
 * MCP authorization (docs/decisions/mcp-authorization.md): clients registered dynamically, pending
 * authorization requests, one-use authorization codes, grants (what a person let a client do) and
 * the grants' rotating refresh tokens. Access tokens are JWTs and are not stored; each names its
 * grant, which is looked up on every request, so deleting a grant ends its tokens at once.
 */
export const sql = /* sql */ `
CREATE TABLE oauth_clients (
  client_id TEXT PRIMARY KEY,          -- dynamically registered clients (RFC 7591); metadata-document clients are URLs and not stored
  client_name TEXT NOT NULL,
  redirect_uris TEXT NOT NULL,         -- JSON array, matched exactly
  created_at TEXT NOT NULL
);

CREATE TABLE oauth_requests (
  id TEXT PRIMARY KEY,                 -- random, names the consent screen's request
  client_id TEXT NOT NULL,
  client_name TEXT NOT NULL,
  redirect_uri TEXT NOT NULL,
  scopes TEXT NOT NULL,                -- space-separated, as asked
  code_challenge TEXT NOT NULL,        -- S256 only
  state TEXT,
  resource TEXT NOT NULL,
  user_id TEXT REFERENCES users(id) ON DELETE CASCADE, -- the person the consent token was given to
  consent_token_hash TEXT,
  expires_at INTEGER NOT NULL          -- ms since the epoch
);

CREATE TABLE oauth_grants (
  id TEXT PRIMARY KEY,
  user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  org_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  client_id TEXT NOT NULL,
  client_name TEXT NOT NULL,
  redirect_uri TEXT NOT NULL,
  scopes TEXT NOT NULL,                -- space-separated, as consented
  workspace_ids TEXT NOT NULL,         -- JSON array of the workspaces consented to
  resource TEXT NOT NULL,              -- the protected resource its tokens are for: {BASE_URL}/mcp or a members-only site's {BASE_URL}/p/{slug}/mcp
  created_at TEXT NOT NULL,
  last_used_at TEXT
);
CREATE INDEX oauth_grants_user ON oauth_grants(user_id);
CREATE INDEX oauth_grants_org ON oauth_grants(org_id);

CREATE TABLE oauth_codes (
  code_hash TEXT PRIMARY KEY,
  client_id TEXT NOT NULL,
  user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  org_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  client_name TEXT NOT NULL,
  redirect_uri TEXT NOT NULL,
  code_challenge TEXT NOT NULL,
  resource TEXT NOT NULL,
  scopes TEXT NOT NULL,
  workspace_ids TEXT NOT NULL,
  expires_at INTEGER NOT NULL,
  used_at INTEGER,
  grant_id TEXT                        -- the grant its exchange made: a second use ends it
);

CREATE TABLE oauth_refresh_tokens (
  token_hash TEXT PRIMARY KEY,
  grant_id TEXT NOT NULL REFERENCES oauth_grants(id) ON DELETE CASCADE,
  used_at INTEGER,
  expires_at INTEGER NOT NULL
);
CREATE INDEX oauth_refresh_tokens_grant ON oauth_refresh_tokens(grant_id);
`;
