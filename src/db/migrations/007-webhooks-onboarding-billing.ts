/**
 * Outbound webhook definitions (delivery is not active: docs/interfaces.md §6), each person's onboarding state,
 * and the Cloud edition's subscriptions and processed payment-provider events.
 */
export const sql = /* sql */ `
CREATE TABLE outbound_webhooks (
  id TEXT PRIMARY KEY,
  workspace_id TEXT NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  url TEXT NOT NULL,
  events TEXT NOT NULL,               -- JSON array of event types
  secret TEXT NOT NULL,               -- signing secret for deliveries; returned once, at creation
  active INTEGER NOT NULL DEFAULT 1,
  description TEXT NOT NULL DEFAULT '',
  created_by TEXT REFERENCES users(id) ON DELETE SET NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX outbound_webhooks_workspace ON outbound_webhooks(workspace_id);

CREATE TABLE user_onboarding (
  user_id TEXT PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
  steps TEXT NOT NULL DEFAULT '{}',   -- JSON: step name -> ISO time it was done
  dismissed_at TEXT,
  updated_at TEXT NOT NULL
);

CREATE TABLE org_subscriptions (
  org_id TEXT PRIMARY KEY REFERENCES organizations(id) ON DELETE CASCADE,
  plan TEXT NOT NULL CHECK (plan IN ('free', 'team', 'business')),
  status TEXT NOT NULL,               -- the payment provider's subscription status
  customer_id TEXT,
  subscription_id TEXT,
  current_period_end TEXT,
  cancel_at_period_end INTEGER NOT NULL DEFAULT 0,
  event_created INTEGER NOT NULL DEFAULT 0,  -- provider time of the event that last changed the row (older events are ignored)
  updated_at TEXT NOT NULL
);

CREATE TABLE billing_events (
  id TEXT PRIMARY KEY,                -- the provider's event id: each is applied once
  type TEXT NOT NULL,
  received_at TEXT NOT NULL
);
`;
