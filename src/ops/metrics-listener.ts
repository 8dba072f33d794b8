/**
 * METRICS_PORT: `/metrics` without authentication on 127.0.0.1 only, for a scraper on the same
 * machine (or a sidecar that forwards it). Bun.serve directly: one path, no app around it.
 */
import { METRICS_CONTENT_TYPE, type Metrics } from "./metrics.ts";

/** METRICS_PORT could not be listened on (taken, or not allowed). */
export class MetricsListenError extends Error {
  constructor(port: number, cause: unknown) {
    super(`METRICS_PORT ${port} could not listen on 127.0.0.1: ${(cause as Error)?.message ?? String(cause)}; choose another port`);
    this.name = "MetricsListenError";
  }
}

export function startMetricsListener(metrics: Metrics, port: number): { port: number; stop(): void } {
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port,
    reusePort: false,
    maxRequestBodySize: 1024,
    fetch(request) {
      const path = new URL(request.url).pathname;
      if (path !== "/metrics" || (request.method !== "GET" && request.method !== "HEAD")) {
        return new Response("not found\n", { status: 404, headers: { "content-type": "text/plain" } });
      }
      return new Response(metrics.render(), { headers: { "content-type": METRICS_CONTENT_TYPE, "cache-control": "no-store" } });
    },
  });
  return { port: server.port!, stop: () => void server.stop(true) };
}
