import type { Principal } from "../core/principal.ts";
import type { Restrictions } from "../access/restrictions/restrictions-service.ts";
import type { Permissions } from "../access/permissions.ts";
import type { EventBus } from "../core/event-bus.ts";
import { workspaceRef } from "../workspaces/workspace-records.ts";
import { parseInput } from "../core/validate.ts";
import { viewingInput, type viewingOutput } from "./schemas.ts";
import type { z } from "zod";


/** An open page as answered: the documented output schema's type. */
type ViewingJson = z.infer<typeof viewingOutput>;

interface Entry {
  path: string;
  since: string;
  timer: ReturnType<typeof setTimeout>;
}

/**
 * Which page each person has open, per workspace — the page-level half of presence (the live
 * stream's presence says who is in the workspace). Browsers report the open page and repeat it
 * while it stays open; an entry not repeated within the timeout (90 s, the presence timeout of docs/interfaces.md §8)
 * lapses. Changes go out on the live stream as `page-viewing` {user_id, path|null}. Kept in
 * memory: it describes this server's connected people and means nothing after a restart.
 */
export class PageViewing {
  private readonly entries = new Map<string, Entry>();

  private timeoutMs = 90_000;

  constructor(private readonly deps: { permissions: Permissions; restrictions: Restrictions; bus: EventBus }) {}

  /** Tests use milliseconds instead of the 90 s default. */
  setTimeoutMs(ms: number): void {
    this.timeoutMs = ms;
  }

  report(principal: Principal, ref: string, body: unknown): void {
    const { workspace, role } = this.deps.permissions.require(principal, workspaceRef(ref), "viewer");
    const input = parseInput(viewingInput, body);
    // A page hidden from the reporter is not one they can have open: the report counts as none.
    if (input.path !== null && !this.deps.restrictions.visibilityOf(principal, workspace, role).sees(input.path)) input.path = null;
    const key = `${workspace.id}|${principal.userId}`;
    const before = this.entries.get(key);
    if (before) clearTimeout(before.timer);
    if (input.path === null) {
      this.entries.delete(key);
      if (before) this.announce(workspace.id, principal.userId, null);
      return;
    }
    const path = input.path;
    const timer = setTimeout(() => {
      if (this.entries.get(key)?.timer !== timer) return;
      this.entries.delete(key);
      this.announce(workspace.id, principal.userId, null);
    }, this.timeoutMs);
    timer.unref?.();
    this.entries.set(key, { path, since: before?.path === path ? before.since : new Date().toISOString(), timer });
    if (before?.path !== path) this.announce(workspace.id, principal.userId, path);
  }

  list(principal: Principal, ref: string): { items: ViewingJson[]; next_cursor: null } {
    const { workspace, role } = this.deps.permissions.require(principal, workspaceRef(ref), "viewer");
    const vis = this.deps.restrictions.visibilityOf(principal, workspace, role);
    const prefix = `${workspace.id}|`;
    const items = [...this.entries]
      .filter(([k, e]) => k.startsWith(prefix) && vis.sees(e.path))
      .map(([k, e]) => ({ user_id: k.slice(prefix.length), path: e.path, since: e.since }));
    return { items, next_cursor: null };
  }

  stop(): void {
    for (const e of this.entries.values()) clearTimeout(e.timer);
    this.entries.clear();
  }

  private announce(workspaceId: string, userId: string, path: string | null) {
    this.deps.bus.publish({ type: "page-viewing", workspace_id: workspaceId, payload: { workspace_id: workspaceId, user_id: userId, path } });
  }
}
