/** A real WebSocket client for tests: records every frame and waits for the ones asked for. */
import type { TestServer } from "../helpers/server.ts";
import type { TestUser } from "../helpers/factories.ts";

export interface Frame {
  type: string;
  payload: Record<string, any>;
  ts: string;
}

export class WsClient {
  readonly frames: Frame[] = [];
  closed: { code: number; reason: string } | null = null;
  private waiters: Array<() => void> = [];

  constructor(readonly socket: WebSocket) {
    socket.onmessage = (e) => {
      this.frames.push(JSON.parse(String(e.data)));
      this.wake();
    };
    socket.onclose = (e) => {
      this.closed = { code: e.code, reason: e.reason };
      this.wake();
    };
  }

  private wake() {
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w();
  }

  send(message: unknown): void {
    this.socket.send(typeof message === "string" ? message : JSON.stringify(message));
  }

  /** The first frame (from `from` on) matching the predicate, waiting up to `ms`. */
  async next(match: (f: Frame) => boolean, ms = 2000, from = 0): Promise<Frame> {
    const deadline = Date.now() + ms;
    for (;;) {
      const found = this.frames.slice(from).find(match);
      if (found) return found;
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no matching frame within ${ms} ms; got ${JSON.stringify(this.frames.map((f) => f.type))}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  async waitClosed(ms = 2000): Promise<{ code: number; reason: string }> {
    const deadline = Date.now() + ms;
    while (!this.closed && Date.now() < deadline) await Bun.sleep(10);
    if (!this.closed) throw new Error("socket did not close");
    return this.closed;
  }

  close(): void {
    this.socket.close();
  }
}

export const wsUrl = (server: TestServer) => server.url.replace(/^http/, "ws") + "/ws";

/** Opens a socket with the given headers; resolves with the client once open, or with how it failed. */
export function openSocket(server: TestServer, headers: Record<string, string> = {}): Promise<WsClient | { refused: true }> {
  return new Promise((resolve) => {
    const socket = new WebSocket(wsUrl(server), { headers } as unknown as string[]);
    let settled = false;
    socket.onopen = () => {
      settled = true;
      resolve(new WsClient(socket));
    };
    const refuse = () => {
      if (!settled) {
        settled = true;
        resolve({ refused: true });
      }
    };
    socket.onerror = refuse;
    socket.onclose = refuse;
  });
}

/** Signs the user in to the stream as a browser would: ws-token cookie, then connect. */
export async function connect(server: TestServer, user: TestUser): Promise<WsClient> {
  const r = await user.client.post("/api/auth/ws-token");
  if (r.status !== 204) throw new Error(`ws-token failed: ${r.status}`);
  const client = await openSocket(server, { cookie: `quire_ws_token=${user.client.cookies.get("quire_ws_token")}` });
  if (!("socket" in client)) throw new Error("connection refused");
  await client.next((f) => f.type === "hello");
  return client;
}
