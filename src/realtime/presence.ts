/** How often the server pings each connection, and how long after the last sign of life a user leaves. */
export interface PresenceTimings {
  heartbeatMs: number;
  timeoutMs: number;
}

export const DEFAULT_PRESENCE_TIMINGS: PresenceTimings = { heartbeatMs: 30_000, timeoutMs: 90_000 };

interface Entry {
  connections: Set<string>;
  timer: ReturnType<typeof setTimeout>;
}

/**
 * Who is present in which workspace. A user joins when one of their connections subscribes (or
 * shows life again after going quiet) and leaves `timeoutMs` after the last heartbeat or close
 * of any of their connections, so a page reload does not flicker the user out and back in.
 */
export class Presence {
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly timings: () => PresenceTimings,
    private readonly onJoin: (workspaceId: string, userId: string) => void,
    private readonly onLeave: (workspaceId: string, userId: string) => void,
  ) {}

  /** A sign of life from a connection subscribed to the workspace. */
  touch(workspaceId: string, userId: string, connectionId: string): void {
    const key = keyOf(workspaceId, userId);
    const entry = this.entries.get(key);
    if (entry) {
      entry.connections.add(connectionId);
      clearTimeout(entry.timer);
      entry.timer = this.leaveLater(key, workspaceId, userId);
      return;
    }
    this.entries.set(key, { connections: new Set([connectionId]), timer: this.leaveLater(key, workspaceId, userId) });
    this.onJoin(workspaceId, userId);
  }

  /** The connection closed or left the workspace: the leave clock restarts from now. */
  release(workspaceId: string, userId: string, connectionId: string): void {
    const key = keyOf(workspaceId, userId);
    const entry = this.entries.get(key);
    if (!entry) return;
    entry.connections.delete(connectionId);
    clearTimeout(entry.timer);
    entry.timer = this.leaveLater(key, workspaceId, userId);
  }

  /** Leaves at once (the user lost access to the workspace). */
  evict(workspaceId: string, userId: string): void {
    const key = keyOf(workspaceId, userId);
    const entry = this.entries.get(key);
    if (!entry) return;
    clearTimeout(entry.timer);
    this.entries.delete(key);
    this.onLeave(workspaceId, userId);
  }

  /** User ids present in a workspace. */
  present(workspaceId: string): string[] {
    const prefix = `${workspaceId}|`;
    return [...this.entries.keys()].filter((k) => k.startsWith(prefix)).map((k) => k.slice(prefix.length));
  }

  stop(): void {
    for (const entry of this.entries.values()) clearTimeout(entry.timer);
    this.entries.clear();
  }

  private leaveLater(key: string, workspaceId: string, userId: string) {
    const timer = setTimeout(() => {
      if (this.entries.get(key)?.timer !== timer) return;
      this.entries.delete(key);
      this.onLeave(workspaceId, userId);
    }, this.timings().timeoutMs);
    return timer;
  }
}

const keyOf = (workspaceId: string, userId: string) => `${workspaceId}|${userId}`;
