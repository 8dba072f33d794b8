/** Who made a write (a person, or Quire itself with a null id). */
export interface Actor {
  id: string | null;
  name: string;
}

/** Where a write came from; the git commit message says `via <origin>` (docs/architecture.md §6). */
export type Origin = "web editor" | "API" | "MCP" | "git" | "reconcile" | "starter";

/** What a committed write did, for listeners that act on files afterwards (git commits). */
export interface CommittedWrite {
  workspace_id: string;
  kind: "create" | "update" | "delete" | "move" | "upload" | "batch";
  /** The page's path (its new path for a move). */
  path: string;
  old_path?: string;
  /** Every file the write touched: a move includes the pages whose links were rewritten; an upload its `assets/` file. */
  files: string[];
  /**
   * What the write left in each of `files`: the exact text or bytes written, null for a removed
   * file. Git commits these bytes, so a commit never depends on reading the work tree later.
   */
  contents: Array<{ path: string; data: string | Uint8Array | null }>;
  actor: Actor;
  origin: Origin;
  /** A batch's own commit message (a write group names what it did as a whole). */
  message?: string;
}

/**
 * Writes that history records as one commit (a version snapshot copying many pages). Each write
 * still goes through the ledger on its own (new id, record, activity, search, events, right
 * away); only its notice to `onCommitted` listeners is held, and `endGroup` sends them all as one
 * `batch` write with the group's message, so git makes exactly one commit of every file written.
 * Meant for creates and updates (a move's redirect bookkeeping listens for `move` notices).
 */
export class WriteGroup {
  readonly writes: CommittedWrite[] = [];
  /** Called when the group ends (listeners of `onGroupOpened` that keep a crash marker up meanwhile). */
  readonly onEnd: Array<() => void> = [];
  constructor(readonly message: string) {}
}
