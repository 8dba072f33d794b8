/**
 * Prometheus metrics (docs/architecture.md §13), kept in memory and rendered in the text exposition format
 * (version 0.0.4) on each scrape. Counters are fed by hooks (the HTTP core, search, git sync);
 * gauges that the database or a service already knows (pages, pending mail, WebSocket
 * connections) are read at scrape time through `gauges`, so nothing has to be kept in step.
 *
 * Labels are bounded by construction: `route` is the matched route template (or "unmatched"),
 * `method` one of the HTTP methods (else "OTHER"), `status` a three-digit code, `result` one of
 * the sync outcomes. No label value ever comes from a raw path, a query, a header or a body, so
 * no URL, email or token can reach a scrape and 10,000 distinct URLs make no new series.
 */
import { readdirSync, readFileSync } from "node:fs";

export const DURATION_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10] as const;
const METHODS = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]);
const UNMATCHED_ROUTE = "unmatched";
const SYNC_RESULTS = new Set(["completed", "conflict", "ignored", "failed"]);

interface Histogram {
  /** Observations per bucket, not cumulative (one increment per observation); summed when rendered. */
  counts: number[];
  sum: number;
  count: number;
}

interface Series {
  labels: string;
  requests: Map<unknown, { n: number }>;
  histogram: Histogram;
}

interface MetricGauges {
  pages(): number;
  emailOutboxPending(): number;
  wsConnections(): number;
  /** Free bytes on the data directory's filesystem (null when it cannot be read). */
  storageFreeBytes?(): number | null;
}

const escapeLabel = (v: string) => v.replace(/\\/g, "\\\\").replace(/\n/g, "\\n").replace(/"/g, '\\"');

/** Route templates are the app's own strings; still, only a template's shape is accepted. */
function routeLabel(route: string | undefined | null): string {
  if (!route || route.length > 200 || !route.startsWith("/")) return UNMATCHED_ROUTE;
  return route;
}

function methodLabel(method: string): string {
  const m = method.toUpperCase();
  return METHODS.has(m) ? m : "OTHER";
}

function statusLabel(status: unknown): string {
  const n = typeof status === "number" ? status : Number(status);
  return Number.isInteger(n) && n >= 100 && n <= 599 ? String(n) : "500";
}

export class Metrics {
  /** Requests by label set; a cell is shared with `series`, so counting one is an increment. */
  private readonly requests = new Map<string, { n: number }>();
  private readonly durations = new Map<string, Histogram>();
  /** The cells of a route template and method, by status (see observeHttp). */
  private readonly series = new Map<string, Map<string, Series>>();
  private searchQueries = 0;
  private readonly syncs = new Map<string, number>();
  private gauges: MetricGauges | null = null;
  private readonly startTime = Date.now() / 1000 - process.uptime();

  attachGauges(gauges: MetricGauges): void {
    this.gauges = gauges;
  }

  observeHttp(route: string | undefined | null, method: string, status: unknown, seconds: number): void {
    // Label sets and their cells are made once per (route, method, status) and then looked up:
    // this runs for every request, and allocates nothing once a series exists.
    const series = this.seriesOf(route, method);
    let cell = series.requests.get(status);
    if (cell === undefined) {
      const key = `${series.labels},status="${statusLabel(status)}"`;
      cell = this.requests.get(key);
      if (!cell) this.requests.set(key, (cell = { n: 0 }));
      if (series.requests.size < 100) series.requests.set(status, cell);
    }
    cell.n++;
    const h = series.histogram;
    let i = 0;
    while (i < DURATION_BUCKETS.length && !(seconds <= DURATION_BUCKETS[i]!)) i++;
    if (i < DURATION_BUCKETS.length) h.counts[i]!++;
    h.sum += seconds;
    h.count++;
  }

  private seriesOf(route: string | undefined | null, method: string): Series {
    const routeKey = route ?? "";
    let byMethod = this.series.get(routeKey);
    if (!byMethod) {
      // Route templates are the app's own (a bounded set); anything odd is not remembered.
      if (this.series.size >= 1000) this.series.clear();
      this.series.set(routeKey, (byMethod = new Map()));
    }
    let hit = byMethod.get(method);
    if (!hit) {
      const labels = `route="${escapeLabel(routeLabel(route))}",method="${methodLabel(method)}"`;
      let histogram = this.durations.get(labels);
      if (!histogram) this.durations.set(labels, (histogram = { counts: new Array<number>(DURATION_BUCKETS.length).fill(0), sum: 0, count: 0 }));
      hit = { labels, requests: new Map(), histogram };
      if (byMethod.size < 20) byMethod.set(method, hit);
    }
    return hit;
  }

  searchQuery(): void {
    this.searchQueries++;
  }

  gitSync(result: string): void {
    const r = SYNC_RESULTS.has(result) ? result : "failed";
    this.syncs.set(r, (this.syncs.get(r) ?? 0) + 1);
  }

  /** The number of distinct label sets of quire_http_requests_total (for tests of cardinality). */
  get httpSeries(): number {
    return this.requests.size;
  }

  render(): string {
    const out: string[] = [];
    const metric = (name: string, type: string, help: string) => out.push(`# HELP ${name} ${help}`, `# TYPE ${name} ${type}`);

    const cpu = process.cpuUsage();
    const mem = process.memoryUsage();
    metric("process_cpu_user_seconds_total", "counter", "User CPU time spent in seconds.");
    out.push(`process_cpu_user_seconds_total ${cpu.user / 1e6}`);
    metric("process_cpu_system_seconds_total", "counter", "System CPU time spent in seconds.");
    out.push(`process_cpu_system_seconds_total ${cpu.system / 1e6}`);
    metric("process_cpu_seconds_total", "counter", "Total user and system CPU time spent in seconds.");
    out.push(`process_cpu_seconds_total ${(cpu.user + cpu.system) / 1e6}`);
    metric("process_resident_memory_bytes", "gauge", "Resident memory size in bytes.");
    out.push(`process_resident_memory_bytes ${mem.rss}`);
    metric("process_heap_bytes", "gauge", "JavaScript heap in use, in bytes.");
    out.push(`process_heap_bytes ${mem.heapUsed}`);
    metric("process_start_time_seconds", "gauge", "Start time of the process since unix epoch in seconds.");
    out.push(`process_start_time_seconds ${Math.round(this.startTime)}`);
    const fds = openFds();
    if (fds !== null) {
      metric("process_open_fds", "gauge", "Number of open file descriptors.");
      out.push(`process_open_fds ${fds}`);
    }
    if (MAX_FDS !== null) {
      metric("process_max_fds", "gauge", "Maximum number of open file descriptors.");
      out.push(`process_max_fds ${MAX_FDS}`);
    }

    metric("quire_http_requests_total", "counter", "HTTP requests answered, by route template, method and status.");
    for (const [labels, cell] of this.requests) out.push(`quire_http_requests_total{${labels}} ${cell.n}`);
    metric("quire_http_request_duration_seconds", "histogram", "HTTP request duration in seconds, by route template and method.");
    for (const [labels, h] of this.durations) {
      let below = 0; // Prometheus buckets are cumulative: each counts every observation up to its bound
      for (let i = 0; i < DURATION_BUCKETS.length; i++) {
        below += h.counts[i]!;
        out.push(`quire_http_request_duration_seconds_bucket{${labels},le="${DURATION_BUCKETS[i]}"} ${below}`);
      }
      out.push(`quire_http_request_duration_seconds_bucket{${labels},le="+Inf"} ${h.count}`);
      out.push(`quire_http_request_duration_seconds_sum{${labels}} ${h.sum}`);
      out.push(`quire_http_request_duration_seconds_count{${labels}} ${h.count}`);
    }

    metric("quire_search_queries_total", "counter", "Search queries answered.");
    out.push(`quire_search_queries_total ${this.searchQueries}`);
    metric("quire_git_sync_total", "counter", "Git sync rounds, by result.");
    for (const result of SYNC_RESULTS) out.push(`quire_git_sync_total{result="${result}"} ${this.syncs.get(result) ?? 0}`);

    const g = this.gauges;
    metric("quire_pages", "gauge", "Live pages across all workspaces.");
    out.push(`quire_pages ${g ? safe(() => g.pages()) : 0}`);
    metric("quire_email_outbox_pending", "gauge", "Emails waiting to be sent.");
    out.push(`quire_email_outbox_pending ${g ? safe(() => g.emailOutboxPending()) : 0}`);
    metric("quire_ws_connections", "gauge", "Open WebSocket connections.");
    out.push(`quire_ws_connections ${g ? safe(() => g.wsConnections()) : 0}`);
    // An alert on this fires before saves start failing with 507 (docs/decisions/storage.md).
    const free = g?.storageFreeBytes ? safe(() => g.storageFreeBytes!() ?? Number.NaN) : "NaN";
    if (free !== "NaN") {
      metric("quire_storage_free_bytes", "gauge", "Free bytes on the data directory's filesystem.");
      out.push(`quire_storage_free_bytes ${free}`);
    }
    return out.join("\n") + "\n";
  }
}

/** Open descriptors from /proc/self/fd (Linux); null elsewhere. */
function openFds(): number | null {
  try {
    return readdirSync("/proc/self/fd").length;
  } catch {
    return null;
  }
}

/** The soft limit on descriptors, read once (Linux). */
const MAX_FDS: number | null = (() => {
  try {
    const m = /^Max open files\s+(\d+)/m.exec(readFileSync("/proc/self/limits", "utf8"));
    return m ? Number(m[1]) : null;
  } catch {
    return null;
  }
})();

/** A gauge that cannot be read (database closing) is reported as NaN rather than failing the scrape. */
function safe(read: () => number): string {
  try {
    return String(read());
  } catch {
    return "NaN";
  }
}

export const METRICS_CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";
