/**
 * Worker threads that export pages (page-worker.ts) while the exporter's thread reads files and
 * writes the ZIP. Rendering is most of an export's cost (2–6 ms a page: Markdown, sanitizer,
 * highlighting, layout, deflate), and it is the same pure function on any thread, so the exporter
 * hands out batches of pages and takes the results back in its own order: the bytes do not depend
 * on the number of threads or on which finished first.
 *
 * A worker that cannot start (or dies) is not an export failure: its batches reject with
 * PoolUnavailable and the exporter renders them on its own thread.
 */
import type { SiteModel } from "../site/model.ts";
import type { PageJob, PageOutput } from "./page-export.ts";
import type { WorkerReply, WorkerRequest } from "./page-worker.ts";


/**
 * The worker threads an export uses unless told otherwise: none. Measured on the 2-core machine the
 * budgets are set on (docs/decisions/export-preview-quality.md), workers made a 1,000-page export
 * slower (median 4.5 s against 3.0 s wall, +0.9 s CPU, +35 MB RSS): the runtime's JIT and
 * collector already keep the second core busy, and each worker warms its own JIT up from cold.
 * `quire export --threads n` is there for machines with idle cores to spare.
 */
export function defaultThreads(_pages: number): number {
  return 0;
}

declare const QUIRE_EXPORT_WORKER: string | undefined;
/**
 * The worker's module: beside this file when run from source; in the compiled executable, the
 * build embeds page-worker.ts as a second entry point and names where it put it (build.ts).
 */
const WORKER_URL = typeof QUIRE_EXPORT_WORKER === "string" ? QUIRE_EXPORT_WORKER : new URL("./page-worker.ts", import.meta.url).href;

export class PoolUnavailable extends Error {}

interface Slot {
  worker: Worker;
  pending: Map<number, { resolve: (out: PageOutput[]) => void; reject: (error: Error) => void }>;
  dead: boolean;
}

export class PagePool {
  private readonly slots: Slot[] = [];
  private nextId = 0;
  /** Pages the workers have rendered (the exporter reports it, so a pool that never ran is seen). */
  pagesRendered = 0;

  constructor(models: SiteModel[], baseUrl: string | null, threads: number) {
    for (let i = 0; i < threads; i++) {
      let worker: Worker;
      try {
        worker = new Worker(WORKER_URL);
      } catch {
        break; // no worker threads here: the exporter's thread does the work
      }
      const slot: Slot = { worker, pending: new Map(), dead: false };
      const fail = (why: string) => {
        if (slot.dead) return;
        slot.dead = true;
        for (const p of slot.pending.values()) p.reject(new PoolUnavailable(why));
        slot.pending.clear();
        worker.terminate();
      };
      worker.addEventListener("message", (event: MessageEvent<WorkerReply>) => {
        const msg = event.data;
        if (msg.type === "ready") return;
        const p = slot.pending.get(msg.id);
        if (!p) return;
        slot.pending.delete(msg.id);
        if (msg.type === "done") {
          this.pagesRendered += msg.outputs.length;
          p.resolve(msg.outputs);
        }
        else p.reject(new Error(msg.message));
      });
      worker.addEventListener("error", (event) => fail(`an export worker failed: ${(event as ErrorEvent).message ?? "unknown error"}`));
      worker.addEventListener("close", () => fail("an export worker stopped"));
      worker.postMessage({ type: "init", models, baseUrl } satisfies WorkerRequest);
      this.slots.push(slot);
    }
  }

  /** Whether any worker is still there to take pages. */
  get alive(): boolean {
    return this.slots.some((s) => !s.dead);
  }

  /** The pages' outputs, in the jobs' order, from the least busy live worker. */
  run(jobs: PageJob[]): Promise<PageOutput[]> {
    let best: Slot | null = null;
    for (const s of this.slots) if (!s.dead && (!best || s.pending.size < best.pending.size)) best = s;
    if (!best) return Promise.reject(new PoolUnavailable("no export worker is running"));
    const slot = best;
    const id = this.nextId++;
    return new Promise<PageOutput[]>((resolve, reject) => {
      slot.pending.set(id, { resolve, reject });
      slot.worker.postMessage({ type: "jobs", id, jobs } satisfies WorkerRequest);
    });
  }

  close(): void {
    for (const s of this.slots) {
      if (s.dead) continue;
      s.dead = true;
      for (const p of s.pending.values()) p.reject(new PoolUnavailable("the export was closed"));
      s.pending.clear();
      s.worker.terminate();
    }
  }
}
