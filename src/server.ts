import type { Config } from "./config.ts";
import type { Logger } from "./core/log.ts";
import { createApp } from "./app.ts";
import { buildServices, type Services } from "./services.ts";
import { acquireIdleRelease, type IdleRelease } from "./ops/idle-release.ts";
import { MetricsListenError, startMetricsListener } from "./ops/metrics-listener.ts";

export interface RunningServer {
  url: string;
  port: number;
  services: Services;
  /** Gives memory back once the process goes quiet after a burst of work (shared per process). */
  idleRelease: IdleRelease;
  /** The METRICS_PORT listener's port (127.0.0.1), when one is configured. */
  metricsPort?: number;
  /** Closes WebSockets, stops accepting, waits up to `drainMs` for in-flight requests, then closes services. */
  stop(drainMs?: number): Promise<void>;
}

/**
 * Builds the services and the app and listens. stop() closes the WebSocket hub's sockets, winds down index builds, drains
 * the HTTP server, then closes the services (`closeAll()`: every domain's closers, in reverse order of construction).
 */
export async function startServer(opts: {
  config: Config;
  dataDir: string;
  log: Logger;
  port?: number;
  hostname?: string;
}): Promise<RunningServer> {
  const services = await buildServices({ config: opts.config, dataDir: opts.dataDir, log: opts.log });
  const app = createApp(services);
  // Elysia turns SO_REUSEPORT on by default; then a second instance on a taken port would start
  // and silently share its traffic with the first. Off, the second one fails with EADDRINUSE.
  app.listen({ port: opts.port ?? opts.config.port, hostname: opts.hostname ?? "0.0.0.0", reusePort: false });
  const server = app.server!;
  const port = server.port!;
  const host = opts.hostname && opts.hostname !== "0.0.0.0" ? opts.hostname : "localhost";
  let metricsListener: ReturnType<typeof startMetricsListener> | undefined;
  if (opts.config.metrics.port !== undefined) {
    try {
      metricsListener = startMetricsListener(services.metrics, opts.config.metrics.port);
    } catch (error) {
      // Not EADDRINUSE of the main port (serve would name PORT): say which listener failed.
      error = new MetricsListenError(opts.config.metrics.port, error);
      await server.stop(true);
      await services.closeAll();
      throw error;
    }
  }
  const idle = acquireIdleRelease(opts.log);
  // SQLite's page caches (quire.db 2 MiB, the search index 1 MiB) refill during work and are handed back when it
  // is over; the next query reads its pages again from the OS's cache (docs/decisions/runtime-footprint.md).
  const releaseCaches = () => {
    services.db.exec("PRAGMA shrink_memory");
    services.search.releaseMemory();
  };
  idle.instance.beforeRelease.add(releaseCaches);
  let stopped: Promise<void> | undefined;
  return {
    url: `http://${host}:${port}`,
    port,
    services,
    idleRelease: idle.instance,
    ...(metricsListener ? { metricsPort: metricsListener.port } : {}),
    stop(drainMs = 10_000) {
      stopped ??= (async () => {
        idle.instance.beforeRelease.delete(releaseCaches);
        idle.dispose();
        metricsListener?.stop();
        // docs/architecture.md §4's order: the WebSocket hub first. Bun's stop(false) waits for every open socket, and
        // a live stream never ends on its own, so one connected browser would hold the whole drain.
        // Closing them first (1001 "going away") leaves the drain to the requests in flight.
        services.realtime.stop();
        // Index builds stop at their next batch rather than run on through the drain; the next start resumes them.
        services.search.windDown();
        const drained = server.stop(false);
        const timedOut = await Promise.race([
          drained.then(() => false),
          Bun.sleep(drainMs).then(() => true),
        ]);
        if (timedOut) await server.stop(true);
        // Elysia runs afterResponse hooks (the request log line) just after the last response
        // is written; give them a turn of the event loop before the closers and the exit.
        await new Promise((resolve) => setImmediate(resolve));
        await services.closeAll();
      })();
      return stopped;
    },
  };
}
