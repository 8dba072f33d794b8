import { existsSync } from "node:fs";
import type { Db } from "../db/database.ts";
import type { Logger } from "../core/log.ts";
import { isoFromMs, nowMs } from "../core/clock.ts";
import type { EventBus } from "../core/event-bus.ts";
import type { ContentLedger } from "./ledger.ts";
import { SOFT_DELETE_KEEP_MS } from "./page-records.ts";
import type { WorkspaceDir } from "./paths.ts";
import { WorkspaceProblems } from "../workspaces/workspace-problems.ts";
import { snapshotOf, type ReconciledPass, type ReconcileOptions, type ReconcileResult, type ReconcileSource } from "./reconcile-pass.ts";
import { readUnchanged, removeLeftoverTemps, scanFiles, walkMarkdown } from "./reconcile-scan.ts";
import { matchFiles } from "./reconcile-match.ts";
import { injectMissingIds, recordChanges } from "./reconcile-apply.ts";
import { announceChanges, reconciledPass } from "./reconcile-report.ts";

export type { ReconciledPass, ReconcileResult } from "./reconcile-pass.ts";

/**
 * Files → database (docs/architecture.md §5). Matches every `.md` file to a page record in three tiers:
 * 1. the frontmatter `id`; 2. the path; 3. the content hash against records without a file
 * (deleted in the last 24 h, or live ones whose file vanished: a file moved outside Quire).
 * Files without an id get one injected as a single inserted line (or a new frontmatter block).
 * Records without a file are soft-deleted. A workspace folder that is missing or holds no Markdown
 * while records exist stops the run before anything is deleted.
 *
 * A pass runs in phases, each in its own file: scan (reconcile-scan.ts), match
 * (reconcile-match.ts), apply (reconcile-apply.ts), report (reconcile-report.ts); their shared
 * shapes are in reconcile-pass.ts.
 */

/** Above this many changed pages the search index gets one `reset` instead of page-by-page updates. */
const RESET_ABOVE = 100;

export class Reconciler {
  private readonly last = new Map<string, ReconcileResult>();
  private readonly reconciledListeners = new Set<(pass: ReconciledPass) => void>();
  private stopping = false;
  private background: Promise<void> | null = null;

  private readonly problems: WorkspaceProblems;

  constructor(private readonly deps: { db: Db; ledger: ContentLedger; bus: EventBus; log: Logger }) {
    this.problems = new WorkspaceProblems(deps.db);
  }

  /** The last result per workspace ("the workspace reports the error" after a safety stop). */
  lastResult(workspaceId: string): ReconcileResult | null {
    return this.last.get(workspaceId) ?? null;
  }

  /**
   * Reconciles one workspace as its single writer. Call it after files changed outside Quire (a
   * git pull, an editor on disk). `announce` publishes a search `reset` even when nothing changed.
   */
  reconcile(workspaceId: string, opts: ReconcileOptions = {}): Promise<ReconcileResult> {
    return this.deps.ledger.exclusive(workspaceId, () => this.run(workspaceId, opts.announce ?? false, opts.source ?? "filesystem", opts.onIdsInjected));
  }

  /**
   * Tells `listener` about every pass that changed pages (called while the pass still holds the
   * workspace's writer, after its database commit). Returns the unsubscribe function.
   */
  onReconciled(listener: (pass: ReconciledPass) => void): () => void {
    this.reconciledListeners.add(listener);
    return () => this.reconciledListeners.delete(listener);
  }

  /** Reconciles every live workspace in the background; reads are served meanwhile. */
  startBackground(): void {
    if (this.background) return;
    const ids = this.deps.db
      .query<{ id: string }, []>("SELECT id FROM workspaces WHERE deleted_at IS NULL ORDER BY id")
      .all()
      .map((r) => r.id);
    this.background = (async () => {
      await Bun.sleep(0);
      for (const id of ids) {
        if (this.stopping) return;
        try {
          const r = await this.reconcile(id, { source: "startup" });
          if (r.inserted + r.updated + r.orphaned + r.recovered > 0 || r.problems.length > 0) {
            this.deps.log.info("reconciled workspace", { ...r, problems: r.problems.length });
          }
        } catch (error) {
          this.deps.log.error("reconcile failed", { workspace_id: id, error: String(error) });
        }
      }
      // The start-up pass reads every file once; hand the memory it used back before the server
      // settles (measured: ~3 MB less resident with 1,000 pages; bench/content.ts).
      if (!this.stopping) {
        this.deps.db.exec("PRAGMA shrink_memory");
        Bun.gc(true);
      }
    })();
  }

  async stop(): Promise<void> {
    this.stopping = true;
    await this.background;
  }

  /** One pass over a workspace, holding its writer: scan, safety stop, match, apply, report. */
  private async run(workspaceId: string, announce: boolean, source: ReconcileSource, onIdsInjected?: ReconcileOptions["onIdsInjected"]): Promise<ReconcileResult> {
    const started = performance.now();
    const { db, ledger, bus } = this.deps;
    const result: ReconcileResult = { workspace_id: workspaceId, inserted: 0, updated: 0, orphaned: 0, recovered: 0, problems: [], aborted: false, unchanged: 0, duration_ms: 0 };
    const dir = ledger.dir(workspaceId);
    const liveCount = ledger.records.liveCount(workspaceId);
    // Temporary files of atomic writes are left only by a process killed mid-write (the rename
    // never happened, so the page is whole as it was): gone at start, before anyone commits them.
    if (source === "startup" && existsSync(dir.root)) removeLeftoverTemps(dir.root, "");
    const paths = existsSync(dir.root) ? walkMarkdown(dir.root, "", result.problems) : null;
    if (paths === null || paths.length === 0) {
      if (liveCount > 0) return this.finish(this.safetyStop(result, dir, paths === null, liveCount), started);
      dir.ensure();
    }
    // The start-up pass leaves unread the files whose stat is the one recorded when they were last
    // read (docs/decisions/startup-reconcile.md); passes for a change seen while running read all.
    const known = source === "startup" ? ledger.records.fileStats(workspaceId) : null;
    const { scanned, unchanged } = await scanFiles(dir.root, paths ?? [], result.problems, known);
    const unchangedIds = new Set(unchanged.map((u) => u.id));
    result.unchanged = unchanged.length;

    const now = nowMs();
    const since = isoFromMs(now - SOFT_DELETE_KEEP_MS);
    ledger.records.purgeDeleted(workspaceId, since);
    const records = ledger.records.recoverable(workspaceId, since);
    matchFiles(scanned, records, result.problems, (id) => Boolean(ledger.records.byId(id)), unchangedIds);

    const injected = await injectMissingIds(ledger, dir, scanned, result.problems);
    const changes = recordChanges({ db, ledger }, workspaceId, scanned, records, source, isoFromMs(now), result, unchangedIds);

    const reset = announce || changes.length > RESET_ABOVE;
    // A reset replaces the workspace's whole search index: the files left unread are read for it.
    announceChanges(bus, workspaceId, changes, reset ? [...scanned, ...readUnchanged(dir.root, unchanged)].map(snapshotOf) : null);
    if (injected.length > 0) onIdsInjected?.(injected);
    if ((changes.length > 0 || injected.length > 0) && this.reconciledListeners.size > 0) this.notifyReconciled(reconciledPass(workspaceId, source, changes, scanned, injected));
    return this.finish(result, started);
  }

  /** A missing folder, or one without Markdown while pages exist: nothing is touched, the workspace reports it. */
  private safetyStop(result: ReconcileResult, dir: WorkspaceDir, missing: boolean, liveCount: number): ReconcileResult {
    result.aborted = true;
    result.problems.push({
      kind: "safety_stop",
      path: null,
      message: missing
        ? "The workspace folder is missing; nothing was deleted"
        : "The workspace folder holds no Markdown files while pages exist; nothing was deleted",
    });
    this.deps.log.error("reconcile stopped: workspace folder missing or empty", { workspace_id: dir.workspaceId, pages: liveCount });
    return result;
  }

  /** Times the pass, keeps it as the workspace's last result, and reports a safety stop (or clears one). */
  private finish(result: ReconcileResult, started: number): ReconcileResult {
    const workspaceId = result.workspace_id;
    result.duration_ms = Math.round((performance.now() - started) * 10) / 10;
    this.last.set(workspaceId, result);
    // The workspace reports a safety stop until a pass completes (workspace JSON, /api/ready).
    const stop = result.aborted ? result.problems.find((p) => p.kind === "safety_stop") : undefined;
    if (stop) this.problems.report(workspaceId, { kind: "safety_stop", message: stop.message }, isoFromMs(nowMs()));
    else this.problems.clear(workspaceId);
    return result;
  }

  private notifyReconciled(pass: ReconciledPass): void {
    for (const listener of this.reconciledListeners) {
      try {
        listener(pass);
      } catch (error) {
        this.deps.log.error("reconciled-pass listener failed", { workspace_id: pass.workspace_id, error: String(error) });
      }
    }
  }
}
