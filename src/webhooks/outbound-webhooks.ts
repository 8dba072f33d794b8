/**
 * Outbound webhook definitions (docs/interfaces.md §3): admins list, create, read, change and delete them.
 * Delivery is not active, so no event is ever sent and every delivery log is empty; the
 * definitions are kept so integrations can be set up now.
 *
 * A URL must be http(s), carry no credentials, and lead only to public addresses: it is checked
 * with the same rules as git remotes (src/core/net/address-class.ts, remote-network.ts) — every IPv4
 * and IPv6 spelling of a private, loopback or link-local address, `localhost` names, and names
 * that resolve to such an address (any one of their records) are refused, unless the operator sets
 * WEBHOOK_ALLOWLIST_PRIVATE. The secret signs deliveries; it is shown once, at creation.
 */
import type { Db } from "../db/database.ts";
import { NotFoundError, ValidationError, ConflictError } from "../core/errors.ts";
import { isUlid, randomToken, ulid } from "../core/ids.ts";
import { nowIso } from "../core/clock.ts";
import { parseInput } from "../core/validate.ts";
import type { Principal } from "../core/principal.ts";
import type { Permissions } from "../access/permissions.ts";
import { workspaceRef } from "../workspaces/workspace-records.ts";
import { RemoteNetwork } from "../core/net/remote-network.ts";
import { RemoteError } from "../core/net/remote-error.ts";
import { WEBHOOK_EVENTS, createWebhookInput, updateWebhookInput, type WebhookOutput } from "./schemas.ts";
import type { WorkspaceRow } from "../workspaces/workspace-records.ts";
import type { WorkspaceEvent } from "../core/event-bus.ts";
import type { PageVisibility } from "../access/restrictions/visibility.ts";
import { webhookPayload, type WebhookBody } from "./payload.ts";

const MAX_WEBHOOKS_PER_WORKSPACE = 25;
const WEBHOOK_SECRET_PREFIX = "whsec_";

interface WebhookRow {
  id: string;
  workspace_id: string;
  url: string;
  events: string;
  secret: string;
  active: number;
  description: string;
  trusted: number;
  created_at: string;
  updated_at: string;
}

/** A definition as answered: the documented output schema's type; `secret` only in the create's answer. */
type WebhookJson = WebhookOutput & { secret?: string };

export class OutboundWebhooks {
  /** A field so a test can judge addresses differently; the rules are the git remotes' own. */
  network: RemoteNetwork;

  constructor(
    private readonly deps: {
      db: Db;
      permissions: Permissions;
      allowPrivate: boolean;
      /** What every member may see (restricted folders): all an untrusted hook is told. */
      restrictions: { everyoneVisibility(workspace: WorkspaceRow): PageVisibility };
    },
  ) {
    this.network = new RemoteNetwork(deps.allowPrivate);
  }

  list(principal: Principal, ref: string): { items: WebhookJson[]; next_cursor: null } {
    const ws = this.admin(principal, ref);
    const rows = this.deps.db
      .query<WebhookRow, [string]>("SELECT * FROM outbound_webhooks WHERE workspace_id = ? ORDER BY created_at, id")
      .all(ws);
    return { items: rows.map(toJson), next_cursor: null };
  }

  async create(principal: Principal, ref: string, body: unknown): Promise<WebhookJson> {
    const ws = this.admin(principal, ref);
    const input = parseInput(createWebhookInput, body);
    const url = await this.checkUrl(input.url);
    const { db } = this.deps;
    const id = ulid();
    const secret = WEBHOOK_SECRET_PREFIX + randomToken(32);
    const now = nowIso();
    db.transaction(() => {
      const n = db.query<{ n: number }, [string]>("SELECT COUNT(*) AS n FROM outbound_webhooks WHERE workspace_id = ?").get(ws)!.n;
      if (n >= MAX_WEBHOOKS_PER_WORKSPACE) {
        throw new ConflictError(`A workspace has at most ${MAX_WEBHOOKS_PER_WORKSPACE} webhooks; delete one first`, undefined, { limit: MAX_WEBHOOKS_PER_WORKSPACE });
      }
      db.query(
        `INSERT INTO outbound_webhooks (id, workspace_id, url, events, secret, active, description, trusted, created_by, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      ).run(id, ws, url, JSON.stringify(input.events ?? [...WEBHOOK_EVENTS]), secret, input.active === false ? 0 : 1, input.description ?? "", input.trusted === true ? 1 : 0, principal.userId, now, now);
    })();
    return { ...toJson(this.row(ws, id)!), secret };
  }

  get(principal: Principal, ref: string, id: string): WebhookJson {
    const ws = this.admin(principal, ref);
    return toJson(this.found(ws, id));
  }

  async update(principal: Principal, ref: string, id: string, body: unknown): Promise<WebhookJson> {
    const ws = this.admin(principal, ref);
    this.found(ws, id);
    const input = parseInput(updateWebhookInput, body);
    const url = input.url === undefined ? undefined : await this.checkUrl(input.url);
    const row = this.found(ws, id); // it may have been deleted while the address was checked
    this.deps.db
      .query("UPDATE outbound_webhooks SET url = ?, events = ?, active = ?, description = ?, trusted = ?, updated_at = ? WHERE id = ?")
      .run(
        url ?? row.url,
        input.events ? JSON.stringify(input.events) : row.events,
        input.active === undefined ? row.active : input.active ? 1 : 0,
        input.description ?? row.description,
        input.trusted === undefined ? row.trusted : input.trusted ? 1 : 0,
        nowIso(),
        id,
      );
    return toJson(this.found(ws, id));
  }

  delete(principal: Principal, ref: string, id: string): void {
    const ws = this.admin(principal, ref);
    this.found(ws, id);
    this.deps.db.query("DELETE FROM outbound_webhooks WHERE id = ?").run(id);
  }

  /** Delivery is not active (docs/interfaces.md §6): nothing is ever sent, so the log is always empty. */
  deliveries(principal: Principal, ref: string, id: string): { items: never[]; next_cursor: null } {
    const ws = this.admin(principal, ref);
    this.found(ws, id);
    return { items: [], next_cursor: null };
  }

  /**
   * What each of the workspace's active hooks is to be sent for one event, in the order they were
   * made (payload.ts decides, per hook, from its events and its trusted mark). Delivery is not
   * active yet: this is what it will send.
   */
  deliveriesFor(workspace: WorkspaceRow, event: WorkspaceEvent): Array<{ webhook_id: string; url: string; body: WebhookBody }> {
    const rows = this.deps.db
      .query<WebhookRow, [string]>("SELECT * FROM outbound_webhooks WHERE workspace_id = ? AND active = 1 ORDER BY created_at, id")
      .all(workspace.id);
    if (rows.length === 0) return [];
    const everyone = this.deps.restrictions.everyoneVisibility(workspace);
    const out: Array<{ webhook_id: string; url: string; body: WebhookBody }> = [];
    for (const row of rows) {
      const body = webhookPayload({ events: JSON.parse(row.events) as string[], active: true, trusted: row.trusted === 1 }, event, everyone);
      if (body) out.push({ webhook_id: row.id, url: row.url, body });
    }
    return out;
  }

  /**
   * The URL as it will be stored (normalised by the URL parser, so `http://2130706433/` is judged
   * as the 127.0.0.1 it is), or a VALIDATION_ERROR naming `url` and the reason.
   */
  async checkUrl(raw: string): Promise<string> {
    const refuse = (message: string, reason: string): never => {
      throw new ValidationError(`url: ${message}`, "url", { reason });
    };
    let u: URL;
    try {
      u = new URL(raw);
    } catch {
      return refuse("must be an absolute http or https URL", "invalid");
    }
    if (u.protocol !== "https:" && u.protocol !== "http:") refuse("must use http or https", "scheme");
    if (u.username !== "" || u.password !== "") refuse("must not contain credentials; the webhook's secret signs each delivery", "credentials");
    if (u.hostname === "") refuse("must name a host", "invalid");
    try {
      await this.network.resolve(u.hostname);
    } catch (error) {
      if (error instanceof RemoteError) {
        return refuse(
          error.reason === "private_network"
            ? "private, loopback and link-local addresses are refused (set WEBHOOK_ALLOWLIST_PRIVATE=true to allow them)"
            : error.message,
          error.reason,
        );
      }
      throw error;
    }
    u.hash = "";
    return u.toString();
  }

  private admin(principal: Principal, ref: string): string {
    return this.deps.permissions.require(principal, workspaceRef(ref), "admin").workspace.id;
  }

  private row(workspaceId: string, id: string): WebhookRow | null {
    if (!isUlid(id)) return null;
    return this.deps.db
      .query<WebhookRow, [string, string]>("SELECT * FROM outbound_webhooks WHERE workspace_id = ? AND id = ?")
      .get(workspaceId, id);
  }

  private found(workspaceId: string, id: string): WebhookRow {
    const row = this.row(workspaceId, id);
    if (!row) throw new NotFoundError("Webhook not found");
    return row;
  }
}

function toJson(row: WebhookRow): WebhookJson {
  return {
    id: row.id,
    url: row.url,
    events: JSON.parse(row.events) as WebhookOutput["events"],
    active: row.active === 1,
    description: row.description,
    trusted: row.trusted === 1,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}
