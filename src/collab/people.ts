import type { Db } from "../db/database.ts";
import type { Principal } from "../core/principal.ts";
import type { Permissions } from "../access/permissions.ts";
import { workspaceRef } from "../workspaces/workspace-records.ts";
import { workspacePeople } from "./mentions.ts";
import type { z } from "zod";
import type { personListOutput } from "./schemas.ts";

/**
 * The people of a workspace as any reader sees them: ids and display names only (no email), for
 * @mention autocomplete and for naming who is present. The same set a mention can resolve to.
 */
// One collator for every comparison (`localeCompare` with options builds one per call).
const nameOrder = new Intl.Collator("en", { sensitivity: "base" });

export class People {
  constructor(private readonly deps: { db: Db; permissions: Permissions }) {}

  list(principal: Principal, ref: string): z.infer<typeof personListOutput> {
    const { workspace } = this.deps.permissions.require(principal, workspaceRef(ref), "viewer");
    const items = workspacePeople(this.deps.db, workspace)
      .map((p) => ({ id: p.id, name: p.name }))
      .sort((a, b) => nameOrder.compare(a.name, b.name) || a.id.localeCompare(b.id));
    return { items, next_cursor: null };
  }
}
