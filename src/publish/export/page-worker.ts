/**
 * A worker thread of the export (page-pool.ts): told the site models once, then renders, lays out,
 * compresses and scores batches of pages with the same PageExporter the exporter's own thread uses.
 */
import { GC_EVERY, PageExporter, type PageJob, type PageOutput } from "./page-export.ts";
import type { SiteModel } from "../site/model.ts";

export type WorkerRequest =
  | { type: "init"; models: SiteModel[]; baseUrl: string | null }
  | { type: "jobs"; id: number; jobs: PageJob[] };

export type WorkerReply =
  | { type: "ready" }
  | { type: "done"; id: number; outputs: PageOutput[] }
  | { type: "failed"; id: number; message: string };

declare const self: Worker;

let exporter: PageExporter | null = null;
let pagesSinceGc = 0;

self.onmessage = (event: MessageEvent<WorkerRequest>) => {
  const msg = event.data;
  if (msg.type === "init") {
    exporter = new PageExporter(msg.models, msg.baseUrl);
    self.postMessage({ type: "ready" } satisfies WorkerReply);
    return;
  }
  try {
    if (!exporter) throw new Error("the export worker was given pages before the site");
    const outputs = msg.jobs.map((job) => exporter!.run(job));
    self.postMessage({ type: "done", id: msg.id, outputs } satisfies WorkerReply);
    // Each thread has its own heap: collected on the same schedule as the exporter's (GC_EVERY).
    pagesSinceGc += outputs.length;
    if (pagesSinceGc >= GC_EVERY) {
      pagesSinceGc = 0;
      Bun.gc(true);
    }
  } catch (error) {
    self.postMessage({ type: "failed", id: msg.id, message: error instanceof Error ? (error.stack ?? error.message) : String(error) } satisfies WorkerReply);
  }
};
