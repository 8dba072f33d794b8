/**
 * Gives memory back once when the process goes quiet after a burst of work (a sign-in, a save,
 * a git pull), instead of holding it until the next burst. See docs/decisions/runtime-footprint.md.
 *
 * "Busy" is measured, not guessed: a timer reads the process's CPU time once a second (one
 * getrusage call, unref'd so it never keeps the process alive). A second that used at least
 * BUSY_CPU_MS of CPU marks a burst; QUIET_MS without such a second ends it, and the release runs
 * once. It runs again only after another burst, so an idle server does nothing but the tick.
 *
 * The release is a synchronous full collection and then `Bun.shrink()`, which also throws away
 * compiled code (bytecode, JIT) of functions that are not running; the next request recompiles
 * what it needs from the executable's bytecode (measured in the decision record). Before it, each
 * `beforeRelease` hook hands back a cache of its own (a server's SQLite page caches), so what they
 * free is collected in the same release. One instance per process: every server started in it
 * shares the same timer.
 */
import type { Logger } from "../core/log.ts";

const TICK_MS = 1000;
const QUIET_MS = 2000;
/** CPU time in one tick that counts as work; an idle server uses well under a millisecond. */
const BUSY_CPU_MS = 10;

interface IdleReleaseOptions {
  tickMs?: number;
  quietMs?: number;
  busyCpuMs?: number;
  /** Process CPU time in ms (user + system). */
  cpuMs?: () => number;
  /** What a release does; by default a full collection and Bun.shrink(). */
  release?: () => void;
  log?: Logger;
}

interface ReleaseRecord {
  at: number;
  ms: number;
  rss_before_mb: number;
  rss_after_mb: number;
}

const processCpuMs = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};

function releaseMemory(): void {
  Bun.gc(true);
  // Deprecated in the typings but present; guarded so a runtime without it still collects.
  const shrink = (Bun as unknown as { shrink?: () => void }).shrink;
  if (typeof shrink === "function") shrink();
}

export class IdleRelease {
  readonly releases: ReleaseRecord[] = [];
  /** Run first at each release (each server adds its own and removes it when it stops); a failure is logged. */
  readonly beforeRelease = new Set<() => void>();
  private timer: ReturnType<typeof setInterval> | undefined;
  private lastCpu = 0;
  /** A burst is under way or ended less than quietMs ago; the start-up itself is one. */
  private dirty = true;
  private quietSince = 0;
  private readonly tickMs: number;
  private readonly quietMs: number;
  private readonly busyCpuMs: number;
  private readonly cpuMs: () => number;
  private readonly release: () => void;

  constructor(private readonly opts: IdleReleaseOptions = {}) {
    this.tickMs = opts.tickMs ?? TICK_MS;
    this.quietMs = opts.quietMs ?? QUIET_MS;
    this.busyCpuMs = opts.busyCpuMs ?? BUSY_CPU_MS;
    this.cpuMs = opts.cpuMs ?? processCpuMs;
    this.release = opts.release ?? releaseMemory;
  }

  get running(): boolean {
    return this.timer !== undefined;
  }

  start(): void {
    if (this.timer) return;
    this.lastCpu = this.cpuMs();
    this.dirty = true;
    this.quietSince = performance.now();
    this.timer = setInterval(() => this.tick(), this.tickMs);
    this.timer.unref?.();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  private tick(): void {
    const cpu = this.cpuMs();
    const used = cpu - this.lastCpu;
    this.lastCpu = cpu;
    const now = performance.now();
    if (used >= this.busyCpuMs) {
      this.dirty = true;
      this.quietSince = now;
      return;
    }
    if (!this.dirty || now - this.quietSince < this.quietMs) return;
    this.dirty = false;
    const before = process.memoryUsage.rss();
    const t0 = performance.now();
    for (const hook of this.beforeRelease) {
      try {
        hook();
      } catch (error) {
        this.opts.log?.warn("memory release failed", { error: String(error) });
      }
    }
    try {
      this.release();
    } catch (error) {
      this.opts.log?.warn("memory release failed", { error: String(error) });
    }
    const record: ReleaseRecord = {
      at: Date.now(),
      ms: Math.round((performance.now() - t0) * 10) / 10,
      rss_before_mb: mb(before),
      rss_after_mb: mb(process.memoryUsage.rss()),
    };
    // Bounded: only the latest few are of interest (tests, diagnostics).
    if (this.releases.push(record) > 20) this.releases.shift();
    this.opts.log?.debug("released memory after a burst of work", { ...record });
    // The release's own CPU time is not a new burst.
    this.lastCpu = this.cpuMs();
  }
}

const mb = (bytes: number) => Math.round((bytes / 1048576) * 10) / 10;

let shared: { instance: IdleRelease; users: number } | undefined;

/**
 * The process's idle release, started with its first user and stopped with its last (several
 * servers share a test process). Returns the instance and the function that gives it back.
 */
export function acquireIdleRelease(log?: Logger): { instance: IdleRelease; dispose: () => void } {
  shared ??= { instance: new IdleRelease(log ? { log } : {}), users: 0 };
  const entry = shared;
  entry.users++;
  entry.instance.start();
  let disposed = false;
  return {
    instance: entry.instance,
    dispose: () => {
      if (disposed) return;
      disposed = true;
      if (--entry.users === 0) {
        entry.instance.stop();
        if (shared === entry) shared = undefined;
      }
    },
  };
}
