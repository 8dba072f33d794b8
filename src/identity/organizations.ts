import type { Db } from "../db/database.ts";
import { ulid, randomBase62 } from "../core/ids.ts";

interface OrganizationRow {
  id: string;
  name: string;
  handle: string;
  owner_id: string | null;
  is_default: number;
  created_at: string;
}

export function handleFrom(text: string): string {
  const base = text
    .normalize("NFKD")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 40);
  return base || "org";
}

export class Organizations {
  constructor(private readonly db: Db) {}

  byId(id: string): OrganizationRow | null {
    return this.db.query<OrganizationRow, [string]>("SELECT * FROM organizations WHERE id = ?").get(id);
  }

  /** Creates an organization owned by `ownerId` (its Super Admin); call inside a transaction. */
  createOwned(input: { name: string; ownerId: string; now: string }): OrganizationRow {
    const id = ulid();
    const handle = this.freeHandle(handleFrom(input.name));
    this.db
      .query("INSERT INTO organizations (id, name, handle, owner_id, created_at) VALUES (?, ?, ?, ?, ?)")
      .run(id, input.name, handle, input.ownerId, input.now);
    this.db
      .query("INSERT INTO org_members (org_id, user_id, role, joined_at) VALUES (?, ?, 'super_admin', ?)")
      .run(id, input.ownerId, input.now);
    return this.byId(id)!;
  }

  /**
   * The server-level organization that `quire init` attaches workspaces to, created on first use.
   * It belongs to the instance's first user (docs/decisions/default-organization.md): when one
   * exists already it becomes the owner here; otherwise the first registration adopts it.
   * Call inside a transaction.
   */
  defaultOrganization(now: string): OrganizationRow {
    const existing = this.db
      .query<OrganizationRow, []>("SELECT * FROM organizations WHERE is_default = 1 LIMIT 1")
      .get();
    if (existing) return this.settleDefaultOwner(now) ?? existing;
    const id = ulid();
    this.db
      .query("INSERT INTO organizations (id, name, handle, owner_id, is_default, created_at) VALUES (?, ?, ?, NULL, 1, ?)")
      .run(id, "Default", this.freeHandle("default"), now);
    return this.settleDefaultOwner(now) ?? this.byId(id)!;
  }

  /**
   * Gives an unowned default organization to the instance's first user (earliest registered),
   * who becomes its Super Admin and so reaches every workspace `quire init` attached to it.
   * Returns the organization when it was given now, null when there was nothing to do (no
   * default organization, already owned, or no user yet). Call inside a transaction.
   */
  settleDefaultOwner(now: string): OrganizationRow | null {
    const org = this.db
      .query<OrganizationRow, []>("SELECT * FROM organizations WHERE is_default = 1 AND owner_id IS NULL LIMIT 1")
      .get();
    if (!org) return null;
    const first = this.db.query<{ id: string }, []>("SELECT id FROM users ORDER BY created_at, id LIMIT 1").get();
    if (!first) return null;
    this.db.query("UPDATE organizations SET owner_id = ? WHERE id = ? AND owner_id IS NULL").run(first.id, org.id);
    this.db
      .query(
        `INSERT INTO org_members (org_id, user_id, role, joined_at) VALUES (?, ?, 'super_admin', ?)
         ON CONFLICT (org_id, user_id) DO UPDATE SET role = 'super_admin'`,
      )
      .run(org.id, first.id, now);
    return this.byId(org.id);
  }

  /**
   * The organization a user owns (their own, created at registration). A first user who was given
   * the default organization later keeps their own as home (sessions, new workspaces).
   */
  ownedBy(userId: string): OrganizationRow | null {
    return this.db
      .query<OrganizationRow, [string]>(
        "SELECT o.* FROM organizations o JOIN org_members m ON m.org_id = o.id WHERE m.user_id = ? AND m.role = 'super_admin' ORDER BY o.is_default, o.created_at LIMIT 1",
      )
      .get(userId);
  }

  /** Any organization the user belongs to, preferring the one they own. */
  homeOf(userId: string): OrganizationRow | null {
    return (
      this.ownedBy(userId) ??
      this.db
        .query<OrganizationRow, [string]>(
          "SELECT o.* FROM organizations o JOIN org_members m ON m.org_id = o.id WHERE m.user_id = ? ORDER BY m.joined_at LIMIT 1",
        )
        .get(userId)
    );
  }

  private freeHandle(base: string): string {
    let handle = base;
    while (this.db.query("SELECT 1 FROM organizations WHERE handle = ?").get(handle)) {
      handle = `${base}-${randomBase62(5).toLowerCase()}`;
    }
    return handle;
  }
}
