import type { PageSnapshot } from "../core/event-bus.ts";
import type { PageFile } from "./page-file.ts";
import type { PageRow } from "./page-records.ts";

/** The shapes of one reconcile pass (reconcile.ts), shared by its phases. */

type ProblemKind = "safety_stop" | "invalid_yaml" | "not_utf8" | "vanished" | "unreadable" | "bad_path" | "duplicate_id";

export interface ReconcileProblem {
  kind: ProblemKind;
  path: string | null;
  message: string;
}

export interface ReconcileOptions {
  /** Publish a search `reset` even when nothing changed. */
  announce?: boolean;
  source?: ReconcileSource;
  /** Told of the files that got an id, with the exact text written (git commits them from it). */
  onIdsInjected?: (files: Array<{ path: string; text: string }>) => void;
}

/** What started a pass; written into each activity row's details as `source`. */
export type ReconcileSource = "filesystem" | "git" | "startup" | "cli";

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
export interface PageChange {
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
  /** Files the start-up pass left unread: their stat was the one recorded when they were last read. */
  unchanged: number;
  duration_ms: number;
}

/** A Markdown file the pass read, and what it was matched to. */
export interface ScannedFile {
  path: string;
  file: PageFile;
  /** The record this file belongs to, once matched. */
  record: PageRow | null;
  /** The id the file must carry (injected when the file does not say it). */
  id: string;
  tier: "id" | "path" | "hash" | "new";
  /** The record had no file: soft-deleted, or live but its file vanished (moved outside Quire). */
  recovered: boolean;
  /** The file's stat taken before reading it, when it may be recorded (page-file-stat.ts); null otherwise. */
  stat: string | null;
}

/** What the search index and page events are told about a scanned file. */
export function snapshotOf(s: ScannedFile): PageSnapshot {
  return {
    page_id: s.id,
    path: s.path,
    title: s.file.meta.title,
    description: s.file.meta.description,
    tags: s.file.meta.tags,
    body: s.file.split.body,
  };
}
