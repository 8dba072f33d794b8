/**
 * The control endpoint (docs/architecture.md §13): a tiny HTTP listener on 127.0.0.1 and an ephemeral port,
 * through which `quire stop` asks a running `serve` to shut down and `quire status` can confirm
 * who is running. It is not part of the public app (no Elysia, no routes of the API): two
 * requests, each carrying the per-boot `control.token` as a bearer token.
 *
 * Three gates, each enough alone for what it guards against:
 *  - the bind address: 127.0.0.1 only, so no other machine can open a connection at all;
 *  - the peer check: a request whose peer is not a loopback address is refused (defence in depth,
 *    should the listener ever be bound more widely);
 *  - the token: compared in constant time; only a process that may read the data directory
 *    (control.token is 0600) can stop the server. Other local users cannot.
 */
import { constantTimeEqual } from "../core/crypto.ts";

export const CONTROL_HOST = "127.0.0.1";

export interface ControlStatus {
  pid: number;
  instance_id: string;
  version: string;
  url: string;
  started_at: string;
}

export interface ControlEndpoint {
  readonly port: number;
  readonly hostname: string;
  stop(): void;
}

/** 127.0.0.0/8, ::1 and IPv4-mapped loopback (::ffff:127.x.y.z). Anything else is not loopback. */
export function isLoopbackAddress(address: string | undefined | null): boolean {
  if (!address) return false;
  const a = address.toLowerCase();
  if (a === "::1" || a === "0:0:0:0:0:0:0:1") return true;
  const v4 = a.startsWith("::ffff:") ? a.slice(7) : a;
  const parts = v4.split(".");
  return parts.length === 4 && parts[0] === "127" && parts.every((p) => /^\d{1,3}$/.test(p) && Number(p) <= 255);
}

/** Whether an Authorization header carries exactly this token (constant time in the token's length). */
export function tokenAllows(authorization: string | null, token: string): boolean {
  const given = authorization?.startsWith("Bearer ") ? authorization.slice(7).trim() : "";
  // Compared even when empty, so a missing header takes the same path as a wrong one.
  return constantTimeEqual(given, token) && token.length > 0;
}

const json = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json", "cache-control": "no-store" } });

/**
 * Starts the listener. `onStop` is called once, after the answer to `POST /stop` was sent (the
 * caller then watches the instance lock for the end of the shutdown).
 */
export function startControlEndpoint(opts: {
  token: string;
  status: () => ControlStatus;
  onStop: () => void;
  /** Only for tests of the bind address itself; the product always binds 127.0.0.1. */
  hostname?: string;
}): ControlEndpoint {
  const hostname = opts.hostname ?? CONTROL_HOST;
  let stopRequested = false;
  const server = Bun.serve({
    hostname,
    port: 0,
    reusePort: false,
    // A control request is a few bytes; anything larger is not one.
    maxRequestBodySize: 1024,
    fetch(request, srv) {
      const peer = srv.requestIP(request)?.address;
      if (!isLoopbackAddress(peer)) return json(403, { error: "loopback only" });
      if (!tokenAllows(request.headers.get("authorization"), opts.token)) return json(401, { error: "invalid control token" });
      const path = new URL(request.url).pathname;
      if (path === "/status" && request.method === "GET") return json(200, opts.status());
      if (path === "/stop" && request.method === "POST") {
        if (!stopRequested) {
          stopRequested = true;
          setTimeout(opts.onStop, 0);
        }
        return json(202, { stopping: true });
      }
      return json(404, { error: "not found" });
    },
  });
  return {
    port: server.port!,
    hostname,
    // Not forced: the answer to a stop request still in flight is delivered.
    stop: () => void server.stop(false),
  };
}
