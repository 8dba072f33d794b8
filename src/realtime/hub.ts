import type { Db } from "../db/database.ts";
import type { Restrictions } from "../access/restrictions/restrictions-service.ts";
import { namesPages, shownTo } from "./event-visibility.ts";
import type { Logger } from "../core/log.ts";
import type { Permissions } from "../access/permissions.ts";
import type { WorkspaceRecords } from "../workspaces/workspace-records.ts";
import type { Sessions } from "../identity/sessions.ts";
import type { EventBus, WorkspaceEvent } from "../core/event-bus.ts";
import { NotFoundError, ValidationError } from "../core/errors.ts";
import { parseInput } from "../core/validate.ts";
import { envelope, errorFrame, MAX_CLIENT_FRAME_BYTES } from "./messages.ts";
import { clientMessage } from "./schemas.ts";
import { DEFAULT_PRESENCE_TIMINGS, Presence, type PresenceTimings } from "./presence.ts";

/** What the hub needs from a live socket; the WebSocket route adapts Bun's socket to it. */
export interface Connection {
  id: string;
  userId: string;
  sessionId: string;
  send(text: string): void;
  subscribe(topic: string): void;
  unsubscribe(topic: string): void;
  ping(): void;
  close(code: number, reason: string): void;
}

/** Close code sent when the session behind a connection ends (logout, password reset, account deleted). */
const CLOSE_SESSION_ENDED = 4401;

const topicOf = (workspaceId: string) => `workspace:${workspaceId}`;

/**
 * The WebSocket hub. Each connection subscribes to the Bun pub/sub topic of every workspace its
 * user can read; ledger and sync events on the bus are published once per topic. Before each
 * publish the topic's subscribers are re-checked, so a user removed from the workspace (or whose
 * session was revoked) stops receiving at the next event, without the access layer having to
 * know about sockets.
 */
export class RealtimeHub {
  private readonly connections = new Map<string, Connection>();
  /** workspace id → ids of the connections subscribed to its topic. */
  private readonly subscribers = new Map<string, Set<string>>();
  private readonly presence: Presence;
  private publisher: ((topic: string, text: string) => void) | null = null;
  private heartbeat: ReturnType<typeof setInterval> | null = null;
  private unsubscribeBus: (() => void) | null = null;
  private stopped = false;
  timings: PresenceTimings;

  constructor(
    private readonly deps: {
      db: Db;
      bus: EventBus;
      permissions: Permissions;
      workspaces: WorkspaceRecords;
      sessions: Sessions;
      restrictions: Restrictions;
      log: Logger;
    },
    timings: Partial<PresenceTimings> = {},
  ) {
    this.timings = { ...DEFAULT_PRESENCE_TIMINGS, ...timings };
    this.presence = new Presence(
      () => this.timings,
      (workspace_id, user_id) => deps.bus.publish({ type: "presence-join", workspace_id, payload: { workspace_id, user_id } }),
      (workspace_id, user_id) => deps.bus.publish({ type: "presence-leave", workspace_id, payload: { workspace_id, user_id } }),
    );
  }

  start(): void {
    this.stopped = false;
    this.unsubscribeBus ??= this.deps.bus.onEvent((event) => this.deliver(event));
    this.restartHeartbeat();
  }

  /** Changes the presence timings (tests use milliseconds instead of the 30 s / 90 s defaults). */
  setTimings(timings: Partial<PresenceTimings>): void {
    this.timings = { ...this.timings, ...timings };
    if (this.heartbeat) this.restartHeartbeat();
  }

  /** The server-wide publish of Bun's pub/sub, handed over by the WebSocket route. */
  setPublisher(publish: (topic: string, text: string) => void): void {
    this.publisher = publish;
  }

  get connectionCount(): number {
    return this.connections.size;
  }

  present(workspaceId: string): string[] {
    return this.presence.present(workspaceId);
  }

  /** A new authenticated connection: subscribed to every workspace its user can read. */
  open(conn: Connection): void {
    // An upgrade that slipped in during shutdown (a kept-alive connection) would hold the HTTP drain.
    if (this.stopped) {
      conn.close(1001, "Server shutting down");
      return;
    }
    // The session may have ended between the upgrade's check and now (a sign-out, or the account
    // deleted while the handshake was under way): such a connection never joins.
    if (!this.deps.sessions.isActive(conn.sessionId, Date.now())) {
      conn.close(CLOSE_SESSION_ENDED, "Session ended");
      return;
    }
    this.connections.set(conn.id, conn);
    const workspaces = this.readableWorkspaces(conn.userId);
    conn.send(
      envelope("hello", {
        user_id: conn.userId,
        workspaces,
        heartbeat_ms: this.timings.heartbeatMs,
        presence_timeout_ms: this.timings.timeoutMs,
      }),
    );
    for (const id of workspaces) this.subscribe(conn, id);
  }

  message(connectionId: string, raw: unknown): void {
    const conn = this.connections.get(connectionId);
    if (!conn) return;
    if (typeof raw === "string" && raw.length > MAX_CLIENT_FRAME_BYTES) {
      conn.send(errorFrame(new ValidationError("Message too large")));
      return;
    }
    this.alive(conn);
    try {
      const msg = parseInput(clientMessage, typeof raw === "string" ? safeJson(raw) : raw);
      switch (msg.type) {
        case "ping":
          conn.send(envelope("pong"));
          return;
        case "subscribe": {
          const workspace = this.deps.workspaces.byId(msg.workspace_id);
          if (!workspace || this.deps.permissions.roleIn(conn.userId, workspace) === null) {
            conn.send(errorFrame(new NotFoundError("Workspace not found"), { workspace_id: msg.workspace_id }));
            return;
          }
          this.subscribe(conn, workspace.id);
          conn.send(envelope("subscribed", { workspace_id: workspace.id, present: this.presence.present(workspace.id) }));
          return;
        }
        case "unsubscribe":
          this.unsubscribe(conn, msg.workspace_id);
          conn.send(envelope("unsubscribed", { workspace_id: msg.workspace_id }));
          return;
      }
    } catch (error) {
      conn.send(errorFrame(error));
    }
  }

  /** A WebSocket-level pong (browsers answer the server's pings by themselves) counts as a heartbeat. */
  pong(connectionId: string): void {
    const conn = this.connections.get(connectionId);
    if (conn) this.alive(conn);
  }

  close(connectionId: string): void {
    const conn = this.connections.get(connectionId);
    if (!conn) return;
    this.connections.delete(connectionId);
    for (const [workspaceId, ids] of this.subscribers) {
      if (ids.delete(connectionId)) this.presence.release(workspaceId, conn.userId, conn.id);
      if (ids.size === 0) this.subscribers.delete(workspaceId);
    }
  }

  /**
   * Closes every open connection of a user at once (their account was deleted), with the
   * session-ended close code; returns how many were closed.
   */
  closeUser(userId: string, reason = "Account deleted"): number {
    let closed = 0;
    for (const conn of [...this.connections.values()]) {
      if (conn.userId !== userId) continue;
      try {
        conn.close(CLOSE_SESSION_ENDED, reason);
      } catch {
        // already gone
      }
      this.close(conn.id);
      closed++;
    }
    return closed;
  }

  /** Closes every connection and stops the timers (server shutdown). */
  stop(): void {
    this.stopped = true;
    this.unsubscribeBus?.();
    this.unsubscribeBus = null;
    if (this.heartbeat) clearInterval(this.heartbeat);
    this.heartbeat = null;
    for (const conn of [...this.connections.values()]) {
      try {
        conn.close(1001, "Server shutting down");
      } catch {
        // already gone
      }
    }
    this.connections.clear();
    this.subscribers.clear();
    this.presence.stop();
  }

  private deliver(event: WorkspaceEvent): void {
    const ids = this.subscribers.get(event.workspace_id);
    if (!ids || ids.size === 0 || !this.publisher) return;
    const workspace = this.deps.workspaces.byId(event.workspace_id);
    const now = Date.now();
    for (const id of [...ids]) {
      const conn = this.connections.get(id);
      if (!conn) continue;
      if (!this.deps.sessions.isActive(conn.sessionId, now)) {
        conn.close(CLOSE_SESSION_ENDED, "Session ended");
        this.close(conn.id);
        continue;
      }
      if (!workspace || this.deps.permissions.roleIn(conn.userId, workspace) === null) {
        this.unsubscribe(conn, event.workspace_id, true);
      }
    }
    const left = this.subscribers.get(event.workspace_id);
    if (!left || left.size === 0) return;
    const payload = { ...event.payload, workspace_id: event.workspace_id } as Record<string, unknown>;
    // A workspace with restricted folders: an event naming a page goes to each person as they may see it.
    if (workspace && namesPages(payload) && this.deps.restrictions.hasRules(workspace)) {
      for (const id of left) {
        const conn = this.connections.get(id)!;
        const vis = this.deps.restrictions.visibilityOfUser(conn.userId, workspace, this.deps.permissions.roleIn(conn.userId, workspace));
        const shown = shownTo(event.type, payload, vis);
        if (shown) conn.send(envelope(shown.type, shown.payload));
      }
      return;
    }
    this.publisher(topicOf(event.workspace_id), envelope(event.type, payload));
  }

  private subscribe(conn: Connection, workspaceId: string): void {
    let ids = this.subscribers.get(workspaceId);
    if (!ids) this.subscribers.set(workspaceId, (ids = new Set()));
    ids.add(conn.id);
    conn.subscribe(topicOf(workspaceId));
    this.presence.touch(workspaceId, conn.userId, conn.id);
  }

  private unsubscribe(conn: Connection, workspaceId: string, lostAccess = false): void {
    const ids = this.subscribers.get(workspaceId);
    if (!ids?.delete(conn.id)) return;
    if (ids.size === 0) this.subscribers.delete(workspaceId);
    conn.unsubscribe(topicOf(workspaceId));
    const stillThere = [...(this.subscribers.get(workspaceId) ?? [])].some((id) => this.connections.get(id)?.userId === conn.userId);
    if (lostAccess && !stillThere) this.presence.evict(workspaceId, conn.userId);
    else this.presence.release(workspaceId, conn.userId, conn.id);
  }

  /** Refreshes the connection's presence in each workspace it follows. */
  private alive(conn: Connection): void {
    for (const [workspaceId, ids] of this.subscribers) {
      if (ids.has(conn.id)) this.presence.touch(workspaceId, conn.userId, conn.id);
    }
  }

  private restartHeartbeat(): void {
    if (this.heartbeat) clearInterval(this.heartbeat);
    this.heartbeat = setInterval(() => {
      for (const conn of this.connections.values()) {
        try {
          conn.ping();
        } catch {
          // a socket closing under us is handled by its close event
        }
      }
    }, this.timings.heartbeatMs);
  }

  /** Live workspaces the user can read: memberships plus every workspace of an organization they own. */
  private readableWorkspaces(userId: string): string[] {
    return this.deps.db
      .query<{ id: string }, [string, string]>(
        `SELECT w.id FROM workspaces w
         WHERE w.deleted_at IS NULL AND (
           EXISTS (SELECT 1 FROM workspace_members m WHERE m.workspace_id = w.id AND m.user_id = ?)
           OR EXISTS (SELECT 1 FROM org_members o WHERE o.org_id = w.org_id AND o.user_id = ? AND o.role = 'super_admin'))
         ORDER BY w.id`,
      )
      .all(userId, userId)
      .map((r) => r.id);
  }
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
