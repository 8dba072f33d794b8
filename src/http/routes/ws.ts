import { Elysia } from "elysia";
import type { Services } from "../../services.ts";
import { httpCore } from "../core.ts";
import { ForbiddenError, UnauthorizedError } from "../../core/errors.ts";
import { WS_COOKIE } from "./auth.ts";
import type { Connection } from "../../realtime/hub.ts";

interface WsAuth {
  userId: string;
  sessionId: string;
}

type Socket = {
  id: string;
  data: { wsAuth?: WsAuth };
  send(text: string): unknown;
  subscribe(topic: string): unknown;
  unsubscribe(topic: string): unknown;
  close(code?: number, reason?: string): unknown;
  raw: { ping(data?: string): unknown };
};

/**
 * GET /ws: the live event stream. Authenticated by the `quire_ws_token` cookie that
 * POST /api/auth/ws-token sets (its own audience, 1 hour), and the session behind it must still be
 * active. A browser page of another origin is refused even if it carries the cookie.
 */
export function wsRoutes(services: Services) {
  const { realtime, tokens, sessions, config } = services;
  const ownOrigin = new URL(config.baseUrl).origin;
  return new Elysia()
    .use(httpCore(services))
    .ws("/ws", {
      async beforeHandle(context) {
        const { cookie, request, server } = context;
        const origin = request.headers.get("origin");
        if (origin !== null && origin !== ownOrigin && !sameHost(origin, request.headers.get("host"))) {
          throw new ForbiddenError("WebSocket connections from another origin are refused");
        }
        const token = cookie[WS_COOKIE]?.value;
        if (typeof token !== "string" || token === "" || token.length > 8192) throw new UnauthorizedError();
        const claims = await tokens.verifyWs(token);
        if (!claims || !sessions.isActive(claims.sessionId, Date.now())) throw new UnauthorizedError();
        (context as unknown as { wsAuth: WsAuth }).wsAuth = { userId: claims.userId, sessionId: claims.sessionId };
        if (server) realtime.setPublisher((topic, text) => server.publish(topic, text));
      },
      open(ws) {
        const socket = ws as unknown as Socket;
        const auth = socket.data.wsAuth;
        if (!auth) {
          socket.close(4401, "Unauthorized");
          return;
        }
        realtime.open(adapt(socket, auth));
      },
      message(ws, message) {
        realtime.message((ws as unknown as Socket).id, message);
      },
      pong(ws) {
        const raw = ws as unknown as { data?: { id?: string } };
        if (raw.data?.id) realtime.pong(raw.data.id);
      },
      close(ws) {
        realtime.close((ws as unknown as Socket).id);
      },
    });
}

function adapt(socket: Socket, auth: WsAuth): Connection {
  return {
    id: socket.id,
    userId: auth.userId,
    sessionId: auth.sessionId,
    send: (text) => void socket.send(text),
    subscribe: (topic) => void socket.subscribe(topic),
    unsubscribe: (topic) => void socket.unsubscribe(topic),
    ping: () => void socket.raw.ping(),
    close: (code, reason) => void socket.close(code, reason),
  };
}

function sameHost(origin: string, host: string | null): boolean {
  if (!host) return false;
  try {
    return new URL(origin).host === host;
  } catch {
    return false;
  }
}
