import { existsSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import type { Db } from "../db/database.ts";
import type { Logger } from "../core/log.ts";
import { isoFromMs, nowMs } from "../core/clock.ts";
import { ulid } from "../core/ids.ts";
import type { EventBus, PageSnapshot } from "../core/event-bus.ts";
import { isAtomicTemp } from "./atomic-write.ts";
import { injectId } from "./page-ids.ts";
import type { ContentLedger } from "./ledger.ts";
import { readPageFile, type PageFile } from "./page-file.ts";
import { SOFT_DELETE_KEEP_MS, type PageRow } from "./page-records.ts";
import { normalizePagePath } from "./paths.ts";
import type { Actor } from "./committed-write.ts";
import { WorkspaceProblems } from "../workspaces/workspace-problems.ts";

/**
 * Files → database (DESIGN.md §5). Matches every `.md` file to a page record in three tiers:
 * 1. the frontmatter `id`; 2. the path; 3. the content hash against records without a file
 * (deleted in the last 24 h, or live ones whose file vanished: a file moved outside Quire).
 * Files without an id get one injected as a single inserted line (or a new frontmatter block).
 * Records without a file are soft-deleted. A workspace folder that is missing or holds no Markdown
 * while records exist stops the run before anything is deleted.
 */
type ProblemKind = "safety_stop" | "invalid_yaml" | "not_utf8" | "vanished" | "unreadable" | "bad_path" | "duplicate_id";

interface ReconcileProblem {
  kind: ProblemKind;
  path: string | null;
  message: string;
}

interface ReconcileOptions {
  /** Publish a search `reset` even when nothing changed. */
  announce?: boolean;
  source?: ReconcileSource;
  /** Told of the files that got an id, with the exact text written (git commits them from it). */
  onIdsInjected?: (files: Array<{ path: string; text: string }>) => void;
}

/** What started a pass; written into each activity row's details as `source`. */
type ReconcileSource = "filesystem" | "git" | "startup" | "cli";

/**
 * A pass that changed pages, told after its database commit (like the ledger's `onCommitted`):
 * what changed, and what each touched file held as the pass read or wrote it (null: removed), so
 * git can commit exactly that without reading the work tree again.
 */
export interface ReconciledPass {
  workspace_id: string;
  source: ReconcileSource;
  changes: Array<{ action: PageChange["action"]; path: string; old_path?: string }>;
  files: Array<{ path: string; data: string | null }>;
}

/** One page a pass changed, for its activity row and event. */
interface PageChange {
  action: "page_created" | "page_updated" | "page_deleted" | "page_moved";
  pageId: string;
  path: string;
  oldPath?: string;
  restored?: boolean;
  contentHash?: string;
  snapshot: PageSnapshot | null;
}

export interface ReconcileResult {
  workspace_id: string;
  inserted: number;
  updated: number;
  orphaned: number;
  recovered: number;
  problems: ReconcileProblem[];
  /** True when the safety stop refused to touch anything. */
  aborted: boolean;
  duration_ms: number;
}

interface ScannedFile {
  path: string;
  file: PageFile;
  /** The record this file belongs to, once matched. */
  record: PageRow | null;
  /** The id the file must carry (injected when the file does not say it). */
  id: string;
  tier: "id" | "path" | "hash" | "new";
  /** The record had no file: soft-deleted, or live but its file vanished (moved outside Quire). */
  recovered: boolean;
}

/** Changes found on disk have no known author: records, activity and events say "system". */
const RECONCILE_ACTOR: Actor = { id: null, name: "system" };
/** Above this many changed pages the search index gets one `reset` instead of page-by-page updates. */
const RESET_ABOVE = 100;
const YIELD_EVERY = 100;
const utf8 = new TextDecoder("utf-8", { fatal: true });

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

  private async run(workspaceId: string, announce: boolean, source: ReconcileSource, onIdsInjected?: ReconcileOptions["onIdsInjected"]): Promise<ReconcileResult> {
    const started = performance.now();
    const { db, ledger } = this.deps;
    const result: ReconcileResult = {
      workspace_id: workspaceId,
      inserted: 0,
      updated: 0,
      orphaned: 0,
      recovered: 0,
      problems: [],
      aborted: false,
      duration_ms: 0,
    };
    const finish = () => {
      result.duration_ms = Math.round((performance.now() - started) * 10) / 10;
      this.last.set(workspaceId, result);
      // The workspace reports a safety stop until a pass completes (workspace JSON, /api/ready).
      const stop = result.aborted ? result.problems.find((p) => p.kind === "safety_stop") : undefined;
      if (stop) this.problems.report(workspaceId, { kind: "safety_stop", message: stop.message }, isoFromMs(nowMs()));
      else this.problems.clear(workspaceId);
      return result;
    };
    const dir = ledger.dir(workspaceId);
    const liveCount = ledger.records.liveCount(workspaceId);
    // Temporary files of atomic writes are left only by a process killed mid-write (the rename
    // never happened, so the page is whole as it was): gone at start, before anyone commits them.
    if (source === "startup" && existsSync(dir.root)) removeLeftoverTemps(dir.root, "");
    const paths = existsSync(dir.root) ? this.walk(dir.root, "", result.problems) : null;
    if (paths === null || paths.length === 0) {
      if (liveCount > 0) {
        result.aborted = true;
        result.problems.push({
          kind: "safety_stop",
          path: null,
          message: paths === null
            ? "The workspace folder is missing; nothing was deleted"
            : "The workspace folder holds no Markdown files while pages exist; nothing was deleted",
        });
        this.deps.log.error("reconcile stopped: workspace folder missing or empty", { workspace_id: workspaceId, pages: liveCount });
        return finish();
      }
      dir.ensure();
    }

    // Read every file, yielding now and then so requests are served during a long scan.
    const scanned: ScannedFile[] = [];
    for (let i = 0; i < (paths ?? []).length; i++) {
      if (i > 0 && i % YIELD_EVERY === 0) await Bun.sleep(0);
      const path = paths![i]!;
      const file = this.readOne(join(dir.root, path), path, result.problems);
      if (file) scanned.push({ path, file, record: null, id: "", tier: "new", recovered: false });
    }

    const now = nowMs();
    const since = isoFromMs(now - SOFT_DELETE_KEEP_MS);
    ledger.records.purgeDeleted(workspaceId, since);
    const records = ledger.records.recoverable(workspaceId, since);
    this.match(scanned, records, result.problems);

    // Inject ids the files do not carry yet (one inserted line each; the files written together,
    // each atomically, flushed as one batch), then write the records. A file that cannot be
    // written is a problem; the others are written and recorded regardless.
    const injections = scanned.filter((s) => s.file.meta.id !== s.id && s.file.yamlError === null).map((s) => ({ s, text: injectId(s.file, s.id) }));
    const failures = await ledger.writeFiles(injections.map(({ s, text }) => ({ abs: dir.resolveInside(s.path), text })));
    const injected: Array<{ path: string; text: string }> = [];
    injections.forEach(({ s, text }, i) => {
      const error = failures[i];
      if (error) {
        result.problems.push({ kind: "unreadable", path: s.path, message: `could not add an id: ${String(error)}` });
        return;
      }
      s.file = readPageFile(text, s.path);
      injected.push({ path: s.path, text });
    });
    const iso = isoFromMs(now);
    const claimed = new Set(scanned.map((s) => s.record?.id).filter((id): id is string => id !== undefined));
    const orphans = records.filter((r) => r.deleted_at === null && !claimed.has(r.id));
    const changes: PageChange[] = [];
    const snapshotOf = (s: ScannedFile): PageSnapshot => ({
      page_id: s.id,
      path: s.path,
      title: s.file.meta.title,
      description: s.file.meta.description,
      tags: s.file.meta.tags,
      body: s.file.split.body,
    });
    db.transaction(() => {
      for (const r of orphans) {
        ledger.records.softDelete(r.id, iso, RECONCILE_ACTOR.id, RECONCILE_ACTOR.name);
        changes.push({ action: "page_deleted", pageId: r.id, path: r.path, snapshot: null });
      }
      // Records changing path step aside first, so two pages may swap paths.
      for (const s of scanned) if (s.record && s.record.path !== s.path && s.record.deleted_at === null) ledger.records.park(s.record.id);
      for (const s of scanned) {
        const write = ledger.recordWrite(s.path, s.file, RECONCILE_ACTOR, iso);
        const record = s.record;
        if (!record) {
          ledger.records.insert(s.id, workspaceId, write);
          result.inserted++;
          changes.push({ action: "page_created", pageId: s.id, path: s.path, contentHash: s.file.contentHash, snapshot: snapshotOf(s) });
        } else if (s.recovered || changed(record, s.path, s.file)) {
          ledger.records.update(record.id, write);
          if (s.recovered) result.recovered++;
          else result.updated++;
          const restored = record.deleted_at !== null;
          const moved = !restored && record.path !== s.path;
          changes.push({
            action: restored ? "page_created" : moved ? "page_moved" : "page_updated",
            pageId: record.id,
            path: s.path,
            ...(moved ? { oldPath: record.path } : {}),
            ...(restored ? { restored: true } : {}),
            contentHash: s.file.contentHash,
            snapshot: snapshotOf(s),
          });
        }
      }
      for (const c of changes) {
        ledger.activity.record({
          workspaceId,
          action: c.action,
          actorId: RECONCILE_ACTOR.id,
          actorName: RECONCILE_ACTOR.name,
          pageId: c.pageId,
          pagePath: c.path,
          details: {
            source,
            ...(c.oldPath !== undefined ? { old_path: c.oldPath, new_path: c.path } : {}),
            ...(c.restored ? { restored: true } : {}),
            ...(c.contentHash !== undefined ? { content_hash: c.contentHash } : {}),
          },
          now: iso,
        });
      }
    })();
    result.orphaned = orphans.length;
    const reset = announce || changes.length > RESET_ABOVE;
    this.announce(workspaceId, changes, reset ? scanned.map(snapshotOf) : null);
    if (injected.length > 0) onIdsInjected?.(injected);
    if (changes.length > 0 || injected.length > 0) this.notifyReconciled(workspaceId, source, changes, scanned, injected);
    return finish();
  }

  private notifyReconciled(workspaceId: string, source: ReconcileSource, changes: PageChange[], scanned: ScannedFile[], injected: Array<{ path: string; text: string }>): void {
    if (this.reconciledListeners.size === 0) return;
    const textOf = new Map(scanned.map((s) => [s.path, s.file.text]));
    // Removals first: a path a page left and another page now holds keeps the file that is there.
    const files = new Map<string, string | null>();
    for (const c of changes) {
      if (c.action === "page_deleted") files.set(c.path, null);
      if (c.oldPath !== undefined) files.set(c.oldPath, null);
    }
    for (const c of changes) if (c.action !== "page_deleted") files.set(c.path, textOf.get(c.path) ?? null);
    for (const f of injected) files.set(f.path, f.text);
    const pass: ReconciledPass = {
      workspace_id: workspaceId,
      source,
      changes: changes.map((c) => ({ action: c.action, path: c.path, ...(c.oldPath !== undefined ? { old_path: c.oldPath } : {}) })),
      files: [...files].map(([path, data]) => ({ path, data })),
    };
    for (const listener of this.reconciledListeners) {
      try {
        listener(pass);
      } catch (error) {
        this.deps.log.error("reconciled-pass listener failed", { workspace_id: workspaceId, error: String(error) });
      }
    }
  }

  /**
   * After the commit: page events (one `bulk-sync` when a pass changed several pages, the page's
   * own event otherwise) and search updates (page by page, or one `reset` for a large pass).
   */
  private announce(workspaceId: string, changes: PageChange[], everything: PageSnapshot[] | null): void {
    const { bus } = this.deps;
    const actor = RECONCILE_ACTOR;
    if (changes.length === 1) {
      const c = changes[0]!;
      const type = c.action === "page_created" ? "page-created" : c.action === "page_deleted" ? "page-deleted" : c.action === "page_moved" ? "page-moved" : "page-updated";
      const fields = c.oldPath !== undefined ? { old_path: c.oldPath, new_path: c.path } : { path: c.path };
      bus.publish({ type, workspace_id: workspaceId, payload: { workspace_id: workspaceId, ...fields, actor } });
    } else if (changes.length > 1) {
      const paths = [...new Set(changes.flatMap((c) => (c.oldPath !== undefined ? [c.oldPath, c.path] : [c.path])))].sort();
      bus.publish({ type: "bulk-sync", workspace_id: workspaceId, payload: { workspace_id: workspaceId, changed_count: changes.length, paths, actor } });
    }
    if (everything !== null) {
      bus.publishChange({ kind: "reset", workspace_id: workspaceId, pages: everything });
      return;
    }
    for (const c of changes) {
      if (c.snapshot) bus.publishChange({ kind: "upsert", workspace_id: workspaceId, page: c.snapshot });
      else bus.publishChange({ kind: "remove", workspace_id: workspaceId, page_id: c.pageId });
    }
  }

  /** Relative paths of the Markdown files, skipping dot entries, assets/ and symlinks. */
  private walk(root: string, rel: string, problems: ReconcileProblem[]): string[] {
    const out: string[] = [];
    let entries;
    try {
      entries = readdirSync(rel === "" ? root : join(root, rel), { withFileTypes: true });
    } catch {
      return out; // a folder removed while scanning
    }
    for (const entry of entries) {
      const name = entry.name;
      if (name.startsWith(".")) continue;
      const path = rel === "" ? name : `${rel}/${name}`;
      if (entry.isSymbolicLink()) continue; // never followed: it could lead out of the workspace
      if (entry.isDirectory()) {
        if (rel === "" && name === "assets") continue;
        out.push(...this.walk(root, path, problems));
      } else if (entry.isFile() && name.endsWith(".md")) {
        let normalized: string | null = null;
        try {
          normalized = normalizePagePath(path);
        } catch {
          normalized = null;
        }
        if (normalized !== path) {
          problems.push({ kind: "bad_path", path: null, message: `skipped a file whose name is not a valid page path: ${JSON.stringify(path)}` });
          continue;
        }
        out.push(path);
      }
    }
    return out.sort();
  }

  private readOne(abs: string, path: string, problems: ReconcileProblem[]): PageFile | null {
    let bytes: Buffer;
    try {
      bytes = readFileSync(abs);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      problems.push(
        code === "ENOENT"
          ? { kind: "vanished", path, message: "the file was deleted while being read" }
          : { kind: "unreadable", path, message: `could not read the file (${code ?? "error"})` },
      );
      return null;
    }
    let text: string;
    try {
      text = utf8.decode(bytes);
    } catch {
      problems.push({ kind: "not_utf8", path, message: "the file is not valid UTF-8; skipped" });
      return null;
    }
    const file = readPageFile(text, path);
    if (file.yamlError !== null) {
      problems.push({ kind: "invalid_yaml", path, message: `invalid frontmatter (${file.yamlError}); indexed with the title from its file name` });
    }
    return file;
  }

  private match(scanned: ScannedFile[], records: PageRow[], problems: ReconcileProblem[]): void {
    const byId = new Map(records.map((r) => [r.id, r]));
    const liveByPath = new Map(records.filter((r) => r.deleted_at === null).map((r) => [r.path, r]));
    const claimed = new Set<string>();
    const takenIds = new Set<string>();
    // Tier 1: frontmatter id. Among files sharing an id, the one at the record's path keeps it.
    const ordered = [...scanned].sort((a, b) => rank(a, byId) - rank(b, byId) || a.path.localeCompare(b.path));
    const rest: ScannedFile[] = [];
    for (const s of ordered) {
      const id = s.file.meta.id;
      if (id === null) {
        rest.push(s);
        continue;
      }
      if (takenIds.has(id)) {
        problems.push({ kind: "duplicate_id", path: s.path, message: `id ${id} is already used by another file; a new id was given` });
        rest.push(s);
        continue;
      }
      const record = byId.get(id);
      if (record) {
        s.record = record;
        s.id = id;
        s.tier = "id";
        s.recovered = record.deleted_at !== null;
        claimed.add(id);
        takenIds.add(id);
      } else if (this.deps.ledger.records.byId(id)) {
        // The id belongs to a page of another workspace (a copied file): this one gets its own.
        problems.push({ kind: "duplicate_id", path: s.path, message: `id ${id} belongs to another page; a new id was given` });
        rest.push(s);
      } else {
        s.id = id;
        s.tier = "new";
        takenIds.add(id);
      }
    }
    // Tier 2: path, for files without a usable id.
    const unmatched: ScannedFile[] = [];
    for (const s of rest) {
      const record = liveByPath.get(s.path);
      if (record && !claimed.has(record.id)) {
        s.record = record;
        s.id = record.id;
        s.tier = "path";
        claimed.add(record.id);
      } else unmatched.push(s);
    }
    // Tier 3: content hash against records that have no file (recently deleted or vanished).
    const byHash = new Map<string, PageRow>();
    for (const r of records) if (!claimed.has(r.id) && !byHash.has(r.content_hash)) byHash.set(r.content_hash, r);
    for (const s of unmatched) {
      const record = byHash.get(s.file.contentHash);
      if (record && !claimed.has(record.id)) {
        s.record = record;
        s.id = record.id;
        s.tier = "hash";
        claimed.add(record.id);
        s.recovered = true;
      } else {
        s.id = ulid();
        s.tier = "new";
      }
    }
  }
}

function rank(s: ScannedFile, byId: Map<string, PageRow>): number {
  const id = s.file.meta.id;
  return id !== null && byId.get(id)?.path === s.path ? 0 : 1;
}

function changed(record: PageRow, path: string, file: PageFile): boolean {
  return (
    record.path !== path ||
    record.content_hash !== file.contentHash ||
    record.frontmatter_hash !== file.frontmatterHash ||
    record.title !== file.meta.title
  );
}

/**
 * Removes what a killed atomic write leaves (`.{name}.{12 hex}.tmp`, atomic-write.ts) anywhere in
 * a work tree except `.git/`; symbolic links are never followed. Only at start, when no write can
 * be in flight.
 */
function removeLeftoverTemps(root: string, rel: string): void {
  let entries;
  try {
    entries = readdirSync(rel === "" ? root : join(root, rel), { withFileTypes: true });
  } catch {
    return;
  }
  for (const entry of entries) {
    const path = rel === "" ? entry.name : `${rel}/${entry.name}`;
    if (entry.isDirectory() && entry.name !== ".git") removeLeftoverTemps(root, path);
    else if (entry.isFile() && isAtomicTemp(entry.name)) rmSync(join(root, path), { force: true });
  }
}
