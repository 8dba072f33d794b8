/**
 * The live event stream (/ws). Authenticated by the ws-token cookie (POST /api/auth/ws-token, one
 * hour, path /ws); on every (re)connect a fresh cookie is fetched first, so an expired one never
 * matters. Lost connections come back with exponential backoff and jitter (1 s doubling to 30 s).
 * Envelopes are {type, payload, ts}. Page events become in-app page changes; presence is kept per
 * workspace; comment events are handed to whoever listens (the comments panel).
 */
import { webSocketToken } from "../api/account.ts";
import { emitPageChange, type PageChange } from "./page-events.ts";

type LiveStatus = "connecting" | "open" | "offline";

interface Envelope {
  type: string;
  payload?: Record<string, unknown>;
  ts?: string;
}

const MAX_BACKOFF_MS = 30_000;

function backoffMs(attempt: number, random = Math.random): number {
  const base = Math.min(MAX_BACKOFF_MS, 1000 * 2 ** attempt);
  return Math.round(base / 2 + (random() * base) / 2);
}

export class LiveClient {
  status: LiveStatus = "connecting";
  /** Bumped on every status or presence change (a cheap snapshot for React). */
  version = 0;
  /** Bumped on every successful (re)connect, so screens can re-read what they may have missed. */
  connections = 0;
  private socket: WebSocket | null = null;
  private attempt = 0;
  private retry: ReturnType<typeof setTimeout> | null = null;
  private heartbeat: ReturnType<typeof setInterval> | null = null;
  private stopped = false;
  private readonly present = new Map<string, Set<string>>();
  /** workspace id → user id → the page path that person has open. */
  private readonly viewing = new Map<string, Map<string, string>>();
  private readonly listeners = new Set<() => void>();
  private readonly eventListeners = new Set<(e: Envelope) => void>();

  start(): void {
    this.stopped = false;
    void this.connect();
  }

  stop(): void {
    this.stopped = true;
    if (this.retry) clearTimeout(this.retry);
    if (this.heartbeat) clearInterval(this.heartbeat);
    this.socket?.close(1000, "bye");
    this.socket = null;
  }

  /** Re-renders subscribers on status and presence changes. */
  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Every envelope, for features with their own events (comments). */
  onEvent(listener: (e: Envelope) => void): () => void {
    this.eventListeners.add(listener);
    return () => this.eventListeners.delete(listener);
  }

  /** Who has which page open in a workspace (user id → path). */
  viewingIn(workspaceId: string): Map<string, string> {
    return this.viewing.get(workspaceId) ?? new Map();
  }

  /** Seeds the page-level presence of a workspace (the stream then keeps it current). */
  setViewing(workspaceId: string, items: Array<{ user_id: string; path: string }>): void {
    this.viewing.set(workspaceId, new Map(items.map((i) => [i.user_id, i.path])));
    this.changed();
  }

  presentIn(workspaceId: string): string[] {
    return [...(this.present.get(workspaceId) ?? [])];
  }

  private changed() {
    this.version++;
    for (const l of this.listeners) l();
  }

  private async connect(): Promise<void> {
    if (this.stopped) return;
    this.status = this.attempt === 0 ? "connecting" : "offline";
    this.changed();
    try {
      await webSocketToken();
    } catch {
      this.reconnectLater();
      return;
    }
    if (this.stopped) return;
    const url = `${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/ws`;
    const socket = new WebSocket(url);
    this.socket = socket;
    socket.onopen = () => {
      this.attempt = 0;
      this.connections++;
      this.status = "open";
      this.changed();
    };
    socket.onmessage = (m) => {
      let env: Envelope;
      try {
        env = JSON.parse(String(m.data)) as Envelope;
      } catch {
        return;
      }
      this.handle(env);
    };
    socket.onclose = () => {
      if (this.socket !== socket) return;
      this.socket = null;
      if (this.heartbeat) clearInterval(this.heartbeat);
      this.present.clear();
      this.reconnectLater();
    };
  }

  private reconnectLater() {
    if (this.stopped) return;
    this.status = "offline";
    this.changed();
    const wait = backoffMs(this.attempt++);
    this.retry = setTimeout(() => void this.connect(), wait);
  }

  private handle(env: Envelope) {
    const p = env.payload ?? {};
    const ws = typeof p.workspace_id === "string" ? p.workspace_id : "";
    switch (env.type) {
      case "hello": {
        const every = Number(p.heartbeat_ms) || 30_000;
        if (this.heartbeat) clearInterval(this.heartbeat);
        this.heartbeat = setInterval(() => this.socket?.readyState === WebSocket.OPEN && this.socket.send('{"type":"ping"}'), every);
        break;
      }
      case "subscribed":
        this.present.set(ws, new Set(Array.isArray(p.present) ? (p.present as string[]) : []));
        this.changed();
        break;
      case "presence-join":
        if (!this.present.has(ws)) this.present.set(ws, new Set());
        this.present.get(ws)!.add(String(p.user_id));
        this.changed();
        break;
      case "presence-leave":
        this.present.get(ws)?.delete(String(p.user_id));
        this.viewing.get(ws)?.delete(String(p.user_id));
        this.changed();
        break;
      case "page-viewing": {
        if (!this.viewing.has(ws)) this.viewing.set(ws, new Map());
        const who = String(p.user_id);
        if (typeof p.path === "string") this.viewing.get(ws)!.set(who, p.path);
        else this.viewing.get(ws)!.delete(who);
        this.changed();
        break;
      }
      case "page-created":
      case "page-updated":
      case "page-deleted":
      case "page-moved": {
        const change: PageChange = {
          type: env.type,
          workspace_id: ws,
          path: String(p.path ?? p.new_path ?? ""),
          ...(typeof p.old_path === "string" ? { old_path: p.old_path } : {}),
          ...(p.actor && typeof p.actor === "object" ? { actor: p.actor as PageChange["actor"] & object } : {}),
        };
        emitPageChange(change);
        break;
      }
    }
    for (const l of this.eventListeners) l(env);
  }
}
