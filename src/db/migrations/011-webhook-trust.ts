/**
 * Outbound webhooks an admin marks as trusted (docs/decisions/restricted-folders.md, "Outbound
 * webhooks"): only they are sent events about pages a restriction hides from any member.
 */
export const sql = /* sql */ `
ALTER TABLE outbound_webhooks ADD COLUMN trusted INTEGER NOT NULL DEFAULT 0;
`;
