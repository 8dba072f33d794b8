import type { Db } from "../db/database.ts";
import { injectId } from "./page-ids.ts";
import type { ContentLedger } from "./ledger.ts";
import { readPageFile, type PageFile } from "./page-file.ts";
import type { PageRow } from "./page-records.ts";
import type { WorkspaceDir } from "./paths.ts";
import type { Actor } from "./committed-write.ts";
import { snapshotOf, type PageChange, type ReconcileProblem, type ReconcileResult, type ReconcileSource, type ScannedFile } from "./reconcile-pass.ts";

/**
 * The third phase of a reconcile pass, once every file is matched: ids are written into the
 * files that do not carry theirs, then the records follow the files in one transaction
 * (created, updated, moved, restored, soft-deleted), each change with its activity row.
 */

/** Changes found on disk have no known author: records, activity and events say "system". */
export const RECONCILE_ACTOR: Actor = { id: null, name: "system" };

/**
 * Injects ids the files do not carry yet (one inserted line each; the files written together,
 * each atomically, flushed as one batch). A file that cannot be written is a problem; the others
 * are written regardless. Returns the files written, with the exact text (git commits from it).
 */
export async function injectMissingIds(ledger: ContentLedger, dir: WorkspaceDir, scanned: ScannedFile[], problems: ReconcileProblem[]): Promise<Array<{ path: string; text: string }>> {
  const injections = scanned.filter((s) => s.file.meta.id !== s.id && s.file.yamlError === null).map((s) => ({ s, text: injectId(s.file, s.id) }));
  const failures = await ledger.writeFiles(injections.map(({ s, text }) => ({ abs: dir.resolveInside(s.path), text })));
  const injected: Array<{ path: string; text: string }> = [];
  injections.forEach(({ s, text }, i) => {
    const error = failures[i];
    if (error) {
      problems.push({ kind: "unreadable", path: s.path, message: `could not add an id: ${String(error)}` });
      return;
    }
    s.file = readPageFile(text, s.path);
    s.stat = null; // written just now: a later pass records its stat
    injected.push({ path: s.path, text });
  });
  return injected;
}

/**
 * Writes the records of one pass in one transaction: records whose file is gone are soft-deleted,
 * matched files update (or restore) their record, new files insert one; every change gets its
 * activity row. Each record keeps the stat its file was read with, when it may (`recordedStat`).
 * `unchanged` are the records whose file the pass left unread. Counts go into `result`; returns
 * the changes, in the order they were made.
 */
export function recordChanges(
  deps: { db: Db; ledger: ContentLedger },
  workspaceId: string,
  scanned: ScannedFile[],
  records: PageRow[],
  source: ReconcileSource,
  iso: string,
  result: ReconcileResult,
  unchanged: ReadonlySet<string> = new Set(),
): PageChange[] {
  const { db, ledger } = deps;
  const claimed = new Set(scanned.map((s) => s.record?.id).filter((id): id is string => id !== undefined));
  for (const id of unchanged) claimed.add(id);
  const orphans = records.filter((r) => r.deleted_at === null && !claimed.has(r.id));
  const changes: PageChange[] = [];
  db.transaction(() => {
    for (const r of orphans) {
      ledger.records.softDelete(r.id, iso, RECONCILE_ACTOR.id, RECONCILE_ACTOR.name);
      changes.push({ action: "page_deleted", pageId: r.id, path: r.path, snapshot: null });
    }
    // Records changing path step aside first, so two pages may swap paths.
    for (const s of scanned) if (s.record && s.record.path !== s.path && s.record.deleted_at === null) ledger.records.park(s.record.id);
    for (const s of scanned) {
      const write = { ...ledger.recordWrite(s.path, s.file, RECONCILE_ACTOR, iso), fileStat: recordedStat(s) };
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
      } else if (record.file_stat !== write.fileStat) {
        ledger.records.setFileStat(record.id, write.fileStat);
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
  return changes;
}

/**
 * The stat a record keeps of its file: the one taken before the pass read it, when it may be
 * trusted, and only for a file that as read carries the record's id and parses (a file with a
 * problem, or one the pass wrote an id into, is read again next time, so its problem is reported
 * again and nothing is assumed of it).
 */
function recordedStat(s: ScannedFile): string | null {
  return s.stat !== null && s.file.yamlError === null && s.file.meta.id === s.id ? s.stat : null;
}

function changed(record: PageRow, path: string, file: PageFile): boolean {
  return (
    record.path !== path ||
    record.content_hash !== file.contentHash ||
    record.frontmatter_hash !== file.frontmatterHash ||
    record.title !== file.meta.title
  );
}
