import type { Db } from "../../db/database.ts";
import type { EffectiveRole } from "../../workspaces/roles.ts";
import type { AccessEntry, RuleSet } from "./rules.ts";

/** The rules' rows (access_rules) and the member lookups their checks need. */
export class RuleStore {
  constructor(private readonly db: Db) {}

  load(workspaceId: string): RuleSet {
    const rows = this.db
      .query<{ path: string; entries: string }, [string]>("SELECT path, entries FROM access_rules WHERE workspace_id = ? ORDER BY path")
      .all(workspaceId);
    return new Map(rows.map((r) => [r.path, JSON.parse(r.entries) as AccessEntry[]]));
  }

  /** Replaces one rule (null lifts it). Call inside the change's transaction. */
  put(workspaceId: string, path: string, entries: AccessEntry[] | null, userId: string | null, now: string): void {
    if (entries === null) {
      this.db.query("DELETE FROM access_rules WHERE workspace_id = ? AND path = ?").run(workspaceId, path);
      return;
    }
    this.db
      .query(
        `INSERT INTO access_rules (workspace_id, path, entries, updated_at, updated_by) VALUES (?, ?, ?, ?, ?)
         ON CONFLICT (workspace_id, path) DO UPDATE SET entries = excluded.entries, updated_at = excluded.updated_at, updated_by = excluded.updated_by`,
      )
      .run(workspaceId, path, JSON.stringify(entries), now, userId);
  }

  /** Replaces every rule (a file from git). Call inside the change's transaction. */
  replaceAll(workspaceId: string, rules: RuleSet, now: string): void {
    this.db.query("DELETE FROM access_rules WHERE workspace_id = ?").run(workspaceId);
    for (const [path, entries] of rules) this.put(workspaceId, path, entries, null, now);
  }

  /** The workspace's people by normalized email: its members and the organization's Super Admins. */
  members(workspaceId: string, orgId: string): Map<string, EffectiveRole> {
    const out = new Map<string, EffectiveRole>();
    const rows = this.db
      .query<{ email: string; role: EffectiveRole }, [string, string]>(
        `SELECT u.email_normalized AS email, wm.role AS role FROM workspace_members wm JOIN users u ON u.id = wm.user_id WHERE wm.workspace_id = ?
         UNION ALL
         SELECT u.email_normalized, 'super_admin' FROM org_members om JOIN users u ON u.id = om.user_id WHERE om.org_id = ? AND om.role = 'super_admin'`,
      )
      .all(workspaceId, orgId);
    for (const r of rows) if (out.get(r.email) !== "super_admin") out.set(r.email, r.role);
    return out;
  }

  /** The same people with their ids and names, for the admin's "who has access" list (by name). */
  people(workspaceId: string, orgId: string): Array<{ id: string; name: string; email: string; email_normalized: string; role: EffectiveRole }> {
    const rows = this.db
      .query<{ id: string; name: string; email: string; email_normalized: string; role: EffectiveRole }, [string, string]>(
        `SELECT u.id, u.name, u.email, u.email_normalized, 'super_admin' AS role FROM org_members om JOIN users u ON u.id = om.user_id WHERE om.org_id = ? AND om.role = 'super_admin'
         UNION ALL
         SELECT u.id, u.name, u.email, u.email_normalized, wm.role FROM workspace_members wm JOIN users u ON u.id = wm.user_id WHERE wm.workspace_id = ?`,
      )
      .all(orgId, workspaceId);
    const seen = new Set<string>();
    return rows.filter((r) => !seen.has(r.id) && seen.add(r.id)).sort((a, b) => a.name.localeCompare(b.name) || a.email.localeCompare(b.email));
  }

  refusal(workspaceId: string): string | null {
    return this.db.query<{ problem: string }, [string]>("SELECT problem FROM access_file_refusals WHERE workspace_id = ?").get(workspaceId)?.problem ?? null;
  }

  setRefusal(workspaceId: string, problem: string | null, now: string): void {
    if (problem === null) {
      this.db.query("DELETE FROM access_file_refusals WHERE workspace_id = ?").run(workspaceId);
      return;
    }
    this.db
      .query("INSERT INTO access_file_refusals (workspace_id, problem, since) VALUES (?, ?, ?) ON CONFLICT (workspace_id) DO UPDATE SET problem = excluded.problem")
      .run(workspaceId, problem, now);
  }
}
