import { existsSync } from "node:fs";
import { ConflictError, NotFoundError } from "../core/errors.ts";
import type { ActivityLog } from "./activity-log.ts";
import type { Actor, CommittedWrite } from "./committed-write.ts";
import { rewriteLinks } from "./links.ts";
import { readPageFile, type PageFile } from "./page-file.ts";
import type { PageRecords, PageRow, RecordWrite } from "./page-records.ts";
import type { WorkspaceDir } from "./paths.ts";
import type { ContentAccess } from "./rights.ts";

/**
 * The steps of moving a page (ContentLedger.move): plan it, with every link to it rewritten, before
 * anything is touched; then, once the files are written, record it; then tell git what changed.
 * Writing the files, and putting them back when anything fails, stays with the ledger's write
 * pipeline.
 */

/** Another page whose links to the moved page were rewritten: its record and new text. */
interface LinkRewrite {
  row: PageRow;
  file: PageFile;
}

/** Everything a move will change, worked out while nothing is changed yet. */
export interface MovePlan {
  row: PageRow;
  oldPath: string;
  newPath: string;
  oldAbs: string;
  newAbs: string;
  /** The moved page's text at its new path (its own relative links follow it). */
  movedText: string;
  moved: PageFile;
  rewrites: LinkRewrite[];
}

/**
 * Plans a move: the page must exist and its new path be free (no record, no file). Throws
 * NotFoundError or ConflictError (on `field`) otherwise. Reads the workspace's pages; writes nothing.
 */
export function planMove(
  store: { records: PageRecords; readFile(workspaceId: string, path: string): PageFile | null },
  dir: WorkspaceDir,
  oldPath: string,
  newPath: string,
  field: string,
): MovePlan {
  const workspaceId = dir.workspaceId;
  const row = store.records.live(workspaceId, oldPath);
  const file = row ? store.readFile(workspaceId, oldPath) : null;
  if (!row || !file) throw new NotFoundError("Page not found");
  const newAbs = dir.resolveInside(newPath);
  if (store.records.live(workspaceId, newPath) || existsSync(newAbs)) {
    throw new ConflictError("A page already exists at the new path", undefined, { field });
  }
  const { movedText, rewrites } = rewriteLinksForMove(store, workspaceId, row, file, oldPath, newPath);
  return { row, oldPath, newPath, oldAbs: dir.resolveInside(oldPath), newAbs, movedText, moved: readPageFile(movedText, newPath), rewrites };
}

/** The moved page's links and every other page's links to it, collected as new texts. */
function rewriteLinksForMove(
  store: { records: PageRecords; readFile(workspaceId: string, path: string): PageFile | null },
  workspaceId: string,
  row: PageRow,
  file: PageFile,
  oldPath: string,
  newPath: string,
): { movedText: string; rewrites: LinkRewrite[] } {
  const live = store.records.liveIn(workspaceId);
  const paths = new Set(live.map((r) => r.path));
  paths.delete(oldPath);
  paths.add(newPath);
  const exists = (p: string) => paths.has(p);
  const movedText = rewriteLinks(file.text, { fromPath: newPath, oldPath, newPath, exists, selfMovedFrom: oldPath });
  const rewrites: LinkRewrite[] = [];
  for (const other of live) {
    if (other.id === row.id) continue;
    const current = store.readFile(workspaceId, other.path);
    // A page without `]` holds no Markdown link: skip the rewrite's parse.
    if (!current || !current.text.includes("]")) continue;
    const text = rewriteLinks(current.text, { fromPath: other.path, oldPath, newPath, exists });
    if (text !== current.text) rewrites.push({ row: other, file: readPageFile(text, other.path) });
  }
  return { movedText, rewrites };
}

/**
 * The records and activity of a move, inside the caller's transaction: the moved page's record
 * and its `page_moved` row, then each rewritten page's record and its `page_updated` row.
 */
export function recordMove(
  store: { records: PageRecords; activity: ActivityLog; recordWrite(path: string, file: PageFile, actor: Actor, now: string): RecordWrite },
  access: ContentAccess,
  plan: MovePlan,
  now: string,
): void {
  const { row, oldPath, newPath, moved, rewrites } = plan;
  const { actor } = access;
  const workspaceId = access.workspace.id;
  store.records.update(row.id, store.recordWrite(newPath, moved, actor, now));
  store.activity.record({
    workspaceId,
    action: "page_moved",
    actorId: actor.id,
    actorName: actor.name,
    pageId: row.id,
    pagePath: newPath,
    details: { old_path: oldPath, new_path: newPath, origin: access.origin, links_rewritten: rewrites.length },
    now,
  });
  for (const r of rewrites) {
    store.records.update(r.row.id, store.recordWrite(r.row.path, r.file, actor, now));
    store.activity.record({
      workspaceId,
      action: "page_updated",
      actorId: actor.id,
      actorName: actor.name,
      pageId: r.row.id,
      pagePath: r.row.path,
      details: { content_hash: r.file.contentHash, origin: access.origin, reason: "links", moved_from: oldPath, moved_to: newPath },
      now,
    });
  }
}

/** What git is told of a move: the old path gone, the new one and every rewritten page with their texts. */
export function movedWrite(plan: MovePlan): Omit<CommittedWrite, "workspace_id" | "actor" | "origin"> {
  const { oldPath, newPath, movedText, rewrites } = plan;
  return {
    kind: "move",
    path: newPath,
    old_path: oldPath,
    files: [oldPath, newPath, ...rewrites.map((r) => r.row.path)],
    contents: [{ path: oldPath, data: null }, { path: newPath, data: movedText }, ...rewrites.map((r) => ({ path: r.row.path, data: r.file.text }))],
  };
}
