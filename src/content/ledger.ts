import { existsSync, readFileSync, rmSync } from "node:fs";
import type { Db } from "../db/database.ts";
import type { Logger } from "../core/log.ts";
import { ConflictError, NotFoundError, ValidationError } from "../core/errors.ts";
import { ulid } from "../core/ids.ts";
import { nowIso } from "../core/clock.ts";
import { parseInput } from "../core/validate.ts";
import type { EventBus, PageSnapshot } from "../core/event-bus.ts";
import { ActivityLog } from "./activity-log.ts";
import { flushDirSyncs, writeFileAtomic, writeFilesAtomic } from "./atomic-write.ts";
import { FileUndo, removeEmptyParents } from "./file-undo.ts";
import { joinFile, parseYaml, setKeys, withYaml, yamlValue } from "./frontmatter.ts";
import { injectId } from "./page-ids.ts";
import { readPageFile, type PageFile } from "./page-file.ts";
import { PageRecords, pageJson, type PageJson, type PageRow } from "./page-records.ts";
import { normalizePagePath, WorkspaceDir } from "./paths.ts";
import { assertLanding, assertPageLevel, assertRight, type ContentAccess } from "./rights.ts";
import { WriteGroup, type Actor, type CommittedWrite } from "./committed-write.ts";
import { createPageInput, movePageInput, updatePageInput, type CreatePageInput } from "./schemas.ts";
import { buildTree, markRestricted, reorderPages, type TreeNode } from "./tree.ts";
import { deepestFolder } from "./tree-slice.ts";
import { KeyedQueue } from "../core/write-queue.ts";
import { OwnWrites } from "./own-writes.ts";
import { pageProblems, type PageProblem } from "./page-problems.ts";
import { movedWrite, planMove, recordMove, type MovePlan } from "./page-move.ts";

interface PageResult {
  page: PageJson;
  /** True when the call created the page (PUT on a missing page without a hash). */
  created: boolean;
}

const utf8 = new TextDecoder("utf-8", { fatal: true });

/**
 * The content ledger: every change to a page goes through here, one writer per workspace
 * (docs/architecture.md §5): validate → compare hashes → write the file atomically → one transaction for the
 * record and the activity row → after the commit, events on the bus and `committed` listeners.
 */
/** A save names the hash it read; a page changed since is a conflict naming the current hash and who changed it. */
function assertUnchanged(row: PageRow, file: PageFile, lastKnownHash: string | undefined): void {
  if (lastKnownHash === file.contentHash) return;
  throw new ConflictError("The page changed since you read it; read it again and retry", {
    current_hash: file.contentHash,
    your_hash: lastKnownHash ?? null,
    modified_by: row.updated_by_name ?? null,
    modified_at: row.updated_at,
  });
}

/** Trees of at least this many pages are kept between reads (a smaller one builds in well under a millisecond). */
const KEEP_TREES_FROM = 300;

export class ContentLedger {
  private readonly trees = new Map<string, { mark: string; tree: TreeNode[] }>();
  private readonly restrictedTrees = new WeakMap<object, { workspaceId: string; mark: string; tree: TreeNode[] }>();
  readonly records: PageRecords;
  readonly activity: ActivityLog;
  readonly queue = new KeyedQueue();
  /** What the ledger itself last wrote, so the file watcher ignores its own writes. */
  readonly ownWrites = new OwnWrites();
  private readonly committedListeners = new Set<(write: CommittedWrite) => void>();
  private readonly groupListeners = new Set<(workspaceId: string) => (() => void) | void>();

  constructor(
    private readonly deps: { db: Db; dataDir: string; bus: EventBus; log: Logger },
  ) {
    this.records = new PageRecords(deps.db);
    this.activity = new ActivityLog(deps.db);
  }

  dir(workspaceId: string): WorkspaceDir {
    return new WorkspaceDir(this.deps.dataDir, workspaceId);
  }

  /** Subscribes to committed writes (the git engine queues commits from here). */
  onCommitted(listener: (write: CommittedWrite) => void): () => void {
    this.committedListeners.add(listener);
    return () => this.committedListeners.delete(listener);
  }

  /**
   * Subscribes to write groups being opened: while a group's notices are held, files are on disk
   * that history has not been told about, so the git engine keeps its crash marker up (a process
   * killed mid-group is then repaired at start). The listener returns what to do when it ends.
   */
  onGroupOpened(listener: (workspaceId: string) => (() => void) | void): () => void {
    this.groupListeners.add(listener);
    return () => this.groupListeners.delete(listener);
  }

  /** Opens a write group for `access` (set it as `access.group` on the writes); end it with endGroup. */
  beginGroup(workspaceId: string, message: string): WriteGroup {
    const group = new WriteGroup(message);
    for (const listener of this.groupListeners) {
      try {
        const end = listener(workspaceId);
        if (end) group.onEnd.push(end);
      } catch (error) {
        this.deps.log.error("write-group listener failed", { error: String(error) });
      }
    }
    return group;
  }

  /** On shutdown: lets queued writes finish, then makes their renames durable (batched folder fsyncs). */
  async close(): Promise<void> {
    await this.queue.idle();
    await flushDirSyncs();
  }

  /** Runs `op` as the workspace's single writer (the reconciler uses it too). */
  exclusive<T>(workspaceId: string, op: () => Promise<T> | T): Promise<T> {
    return this.queue.run(workspaceId, op);
  }

  // ---- reads ---------------------------------------------------------------------------------

  read(access: ContentAccess, rawPath: string): PageJson {
    assertRight(access, "read");
    const path = normalizePagePath(rawPath);
    // The visibility first, then one lookup that builds a record only for a page the reader sees:
    // a hidden page costs the same check and the same query as a missing one, and neither builds
    // anything, so neither answer comes sooner.
    const visible = access.visibility.sees(path);
    const row = this.records.liveIf(access.workspace.id, path, visible);
    if (!row) throw new NotFoundError("Page not found");
    const file = this.readFile(access.workspace.id, path);
    if (!file) throw new NotFoundError("Page not found");
    return this.toJson(row, file);
  }

  /**
   * The workspace's tree. A large one is kept until the database changes: opening a page of a
   * workspace of thousands asks for several of its folders at once, and each would rebuild it all.
   * Callers never modify the nodes they get (folder slices are copies: tree.ts treeUnder).
   */
  tree(access: ContentAccess): TreeNode[] {
    assertRight(access, "read");
    const id = access.workspace.id;
    const mark = this.records.changeMark();
    const vis = access.visibility;
    if (vis.restricted) {
      // A person's own tree, kept with their visibility (which lives until the rules or their role change).
      const own = this.restrictedTrees.get(vis);
      if (own?.mark === mark && own.workspaceId === id) return own.tree;
      const tree = markRestricted(buildTree(this.records.liveIn(id).filter((r) => vis.sees(r.path))), access.ruleKeys);
      this.restrictedTrees.set(vis, { workspaceId: id, mark, tree });
      return tree;
    }
    const kept = this.trees.get(id);
    if (kept?.mark === mark) return kept.tree;
    const rows = this.records.liveIn(id);
    const tree = markRestricted(buildTree(rows), access.ruleKeys);
    if (rows.length >= KEEP_TREES_FROM) this.trees.set(id, { mark, tree });
    else this.trees.delete(id);
    return tree;
  }

  pageCount(workspaceId: string): number {
    return this.records.liveCount(workspaceId);
  }

  // ---- writes --------------------------------------------------------------------------------

  async create(access: ContentAccess, rawPath: string, body: unknown): Promise<PageJson> {
    assertRight(access, "create");
    const path = normalizePagePath(rawPath);
    this.assertLands(access, path);
    const input = parseInput(createPageInput, body);
    return this.exclusive(access.workspace.id, () => this.createLocked(access, path, input));
  }

  /** PUT: updates with optimistic concurrency; on a missing page without a hash it creates (upsert). */
  async update(access: ContentAccess, rawPath: string, body: unknown): Promise<PageResult> {
    assertRight(access, "edit");
    const path = normalizePagePath(rawPath);
    const input = parseInput(updatePageInput, body);
    // With a hash it updates a page the caller names (a hidden one is as missing); without, it may
    // create one, so it may land only where a create may.
    if (input.lastKnownHash === undefined) this.assertLands(access, path);
    else assertPageLevel(access, path, "edit");
    return this.exclusive(access.workspace.id, () => {
      const ws = access.workspace;
      const row = this.records.live(ws.id, path);
      const file = row ? this.readFile(ws.id, path) : null;
      if (!row || !file) {
        if (input.lastKnownHash !== undefined || (row && !file)) throw new NotFoundError("Page not found");
        assertRight(access, "create");
        const title = input.frontmatter?.title;
        if (title === undefined) throw new ValidationError("frontmatter.title: is required to create a page", "frontmatter.title");
        const created = this.createLocked(access, path, {
          title,
          body: input.body,
          tags: input.frontmatter?.tags,
          description: input.frontmatter?.description,
          publish: input.frontmatter?.publish,
        });
        return { page: created, created: true };
      }
      assertUnchanged(row, file, input.lastKnownHash);
      let split = file.split;
      if (input.frontmatter && Object.keys(input.frontmatter).length > 0) {
        split = this.editFrontmatter(file, row.id, input.frontmatter);
      }
      if (input.body !== undefined) split = { ...split, body: input.body };
      const text = joinFile(split);
      if (text === file.text) return { page: this.toJson(row, file), created: false };
      const next = readPageFile(text, path);
      const dir = this.dir(ws.id);
      const abs = dir.resolveInside(path);
      const undo = new FileUndo(this.ownWrites, dir.root);
      undo.remember(abs);
      const now = nowIso();
      this.undoOnFailure(undo, () => {
        this.writeFile(abs, text);
        this.deps.db.transaction(() => {
          this.records.update(row.id, this.recordWrite(path, next, access.actor, now));
          this.activity.record({
            workspaceId: ws.id,
            action: "page_updated",
            actorId: access.actor.id,
            actorName: access.actor.name,
            pageId: row.id,
            pagePath: path,
            details: { content_hash: next.contentHash, origin: access.origin },
            now,
          });
        })();
      });
      const saved = this.records.byId(row.id)!;
      this.afterCommit(access, "page-updated", { path }, [this.snapshot(saved, next)], { kind: "update", path, files: [path], contents: [{ path, data: text }] });
      return { page: this.toJson(saved, next), created: false };
    });
  }

  /**
   * Puts a complete file text back as a page (page history's restore: docs/decisions/page-history.md).
   * With `lastKnownHash`: the live page at the path is replaced, hash-checked like any save (409 on
   * a stale hash). With `pageId` instead: a deleted page comes back at a free path with that id,
   * its soft-deleted record revived when it still exists. One commit, with `message`.
   */
  async restoreText(access: ContentAccess, rawPath: string, text: string, opts: { message: string; lastKnownHash?: string; pageId?: string; chosenPath?: boolean }): Promise<PageJson> {
    assertRight(access, opts.pageId === undefined ? "edit" : "create");
    const path = normalizePagePath(rawPath);
    // A path the caller chose lands like a create; the page's own path (or a free one beside it)
    // is where they saw it, so only its access list is asked.
    if (opts.chosenPath === true) this.assertLands(access, path);
    else assertPageLevel(access, path, "edit");
    return this.exclusive(access.workspace.id, () => {
      const ws = access.workspace;
      const row = opts.pageId === undefined ? this.records.live(ws.id, path) : this.records.byId(opts.pageId);
      const file = opts.pageId === undefined && row ? this.readFile(ws.id, path) : null;
      if (opts.pageId === undefined) {
        if (!row || !file) throw new NotFoundError("Page not found");
        assertUnchanged(row, file, opts.lastKnownHash);
      } else if (row && row.deleted_at === null) throw new ConflictError("This page exists already", undefined, { field: "trash_id" });
      const dir = this.dir(ws.id);
      dir.ensure();
      const abs = dir.resolveInside(path);
      if (opts.pageId !== undefined && (this.records.live(ws.id, path) || existsSync(abs))) {
        throw new ConflictError("A page already exists at this path", undefined, { field: "path" });
      }
      const next = readPageFile(text, path);
      const id = opts.pageId ?? row!.id;
      const undo = new FileUndo(this.ownWrites, dir.root);
      undo.remember(abs);
      const now = nowIso();
      this.undoOnFailure(undo, () => {
        this.writeFile(abs, text);
        this.deps.db.transaction(() => {
          if (row) this.records.update(id, this.recordWrite(path, next, access.actor, now));
          else this.records.insert(id, ws.id, this.recordWrite(path, next, access.actor, now));
          this.activity.record({
            workspaceId: ws.id,
            action: file ? "page_updated" : "page_created",
            actorId: access.actor.id,
            actorName: access.actor.name,
            pageId: id,
            pagePath: path,
            details: { content_hash: next.contentHash, origin: access.origin, restored: true },
            now,
          });
        })();
      });
      const saved = this.records.byId(id)!;
      this.afterCommit(access, file ? "page-updated" : "page-created", { path }, [this.snapshot(saved, next)], {
        kind: file ? "update" : "create",
        path,
        files: [path],
        contents: [{ path, data: text }],
        message: opts.message,
      });
      return this.toJson(saved, next);
    });
  }

  async delete(access: ContentAccess, rawPath: string): Promise<void> {
    assertRight(access, "delete");
    const path = normalizePagePath(rawPath);
    assertPageLevel(access, path, "edit");
    await this.exclusive(access.workspace.id, () => {
      const ws = access.workspace;
      const row = this.records.live(ws.id, path);
      if (!row) throw new NotFoundError("Page not found");
      const dir = this.dir(ws.id);
      const abs = dir.resolveInside(path);
      const undo = new FileUndo(this.ownWrites, dir.root);
      undo.remember(abs);
      const now = nowIso();
      this.undoOnFailure(undo, () => {
        this.removeFile(abs);
        this.deps.db.transaction(() => {
          this.records.softDelete(row.id, now, access.actor.id, access.actor.name);
          this.activity.record({
            workspaceId: ws.id,
            action: "page_deleted",
            actorId: access.actor.id,
            actorName: access.actor.name,
            pageId: row.id,
            pagePath: path,
            details: { origin: access.origin },
            now,
          });
        })();
      });
      removeEmptyParents(abs, dir.root); // only once committed, so a restored file finds its folder
      this.deps.bus.publishChange({ kind: "remove", workspace_id: ws.id, page_id: row.id });
      this.afterCommit(access, "page-deleted", { path }, [], { kind: "delete", path, files: [path], contents: [{ path, data: null }] });
    });
  }

  /**
   * Moves a page (keeping its id) and rewrites every link to it across the workspace; each page
   * whose links changed is written through the same pipeline and gets its own page-updated event.
   */
  async move(access: ContentAccess, rawPath: string, body: unknown, field = "new_path"): Promise<PageJson> {
    assertRight(access, "move");
    const oldPath = normalizePagePath(rawPath);
    const input = parseInput(movePageInput, body);
    const newPath = normalizePagePath(input.new_path, field);
    if (newPath === oldPath) throw new ValidationError("new_path: is the page's current path", field);
    // Edit access on both sides: a page moves neither out of nor into a folder the mover cannot edit.
    assertPageLevel(access, oldPath, "edit");
    this.assertLands(access, newPath);
    return this.exclusive(access.workspace.id, () => {
      const dir = this.dir(access.workspace.id);
      const plan = planMove(this, dir, oldPath, newPath, field);
      this.writeMove(access, dir, plan);
      removeEmptyParents(plan.oldAbs, dir.root);
      return this.announceMove(access, plan);
    });
  }

  /** A move's files and its transaction; on failure every file is put back as it was. */
  private writeMove(access: ContentAccess, dir: WorkspaceDir, plan: MovePlan): void {
    const undo = new FileUndo(this.ownWrites, dir.root);
    for (const abs of [plan.newAbs, plan.oldAbs, ...plan.rewrites.map((r) => dir.resolveInside(r.row.path))]) undo.remember(abs);
    const now = nowIso();
    this.undoOnFailure(undo, () => {
      this.writeFile(plan.newAbs, plan.movedText);
      this.removeFile(plan.oldAbs);
      for (const r of plan.rewrites) this.writeFile(dir.resolveInside(r.row.path), r.file.text);
      this.deps.db.transaction(() => recordMove(this, access, plan, now))();
    });
  }

  /** After a move's commit: its event and git's write, then each rewritten page's own event. */
  private announceMove(access: ContentAccess, plan: MovePlan): PageJson {
    const { row, oldPath, newPath, moved } = plan;
    const saved = this.records.byId(row.id)!;
    this.afterCommit(access, "page-moved", { old_path: oldPath, new_path: newPath }, [this.snapshot(saved, moved)], movedWrite(plan));
    for (const r of plan.rewrites) {
      this.publishEvent(access, "page-updated", { path: r.row.path });
      this.deps.bus.publishChange({ kind: "upsert", workspace_id: access.workspace.id, page: this.snapshot(this.records.byId(r.row.id)!, r.file) });
    }
    return this.toJson(saved, moved);
  }

  /**
   * Sets `sort_order` within one tree level. Order lives in the database only (no file changes,
   * nothing for git), but clients must refresh their tree, so a reorder is announced with the
   * events a pull uses: `page-updated` (with `reason: "reorder"`) when one page's order changed,
   * one `bulk-sync` {changed_count, paths, reason: "reorder"} when several did. One event per
   * request, whatever the size of the level.
   */
  async reorder(access: ContentAccess, body: unknown): Promise<void> {
    assertRight(access, "edit");
    await this.exclusive(access.workspace.id, () => {
      const paths = reorderPages(this.deps.db, this.records, access.workspace.id, body, (path) => access.visibility.allows(path, "edit"));
      if (paths.length === 1) this.publishEvent(access, "page-updated", { path: paths[0], reason: "reorder" });
      else if (paths.length > 1) {
        const ws = access.workspace.id;
        this.deps.bus.publish({
          type: "bulk-sync",
          workspace_id: ws,
          payload: { workspace_id: ws, changed_count: paths.length, paths, reason: "reorder", actor: access.actor },
        });
      }
    });
  }

  // ---- internals -----------------------------------------------------------------------------

  /**
   * Where a new page may go for the caller (rights.ts assertLanding): its folder is looked up in the
   * caller's own tree (kept until the pages change), which costs the same for a hidden folder as for
   * a new one.
   */
  private assertLands(access: ContentAccess, path: string): void {
    assertLanding(access, path, (folder) => deepestFolder(this.tree(access), folder));
  }

  /**
   * Runs a write's file changes and its transaction; when either throws, every remembered file is
   * put back as it was before the error is passed on (the transaction has rolled itself back).
   */
  private undoOnFailure(undo: FileUndo, write: () => void): void {
    try {
      write();
    } catch (error) {
      const failed = undo.restore();
      if (failed.length > 0) this.deps.log.error("could not restore files after a failed write", { failed });
      throw error;
    }
  }

  private createLocked(access: ContentAccess, path: string, input: CreatePageInput): PageJson {
    const id = ulid();
    return this.insertLocked(access, path, id, newPageText(id, input));
  }

  /**
   * Adds a page from a complete file text (starter pages, imports), giving it a fresh id as one
   * inserted line; the rest of the text is kept as written.
   */
  async importPage(access: ContentAccess, rawPath: string, text: string): Promise<PageJson> {
    assertRight(access, "create");
    const path = normalizePagePath(rawPath);
    this.assertLands(access, path);
    return this.exclusive(access.workspace.id, () => {
      const id = ulid();
      return this.insertLocked(access, path, id, injectId(readPageFile(text, path), id));
    });
  }

  private insertLocked(access: ContentAccess, path: string, id: string, text: string): PageJson {
    const ws = access.workspace;
    const dir = this.dir(ws.id);
    dir.ensure();
    const abs = dir.resolveInside(path);
    if (this.records.live(ws.id, path) || existsSync(abs)) {
      throw new ConflictError("A page already exists at this path", undefined, { field: "path" });
    }
    const file = readPageFile(text, path);
    this.writeFile(abs, text);
    const now = nowIso();
    try {
      this.deps.db.transaction(() => {
        this.records.insert(id, ws.id, this.recordWrite(path, file, access.actor, now));
        this.activity.record({
          workspaceId: ws.id,
          action: "page_created",
          actorId: access.actor.id,
          actorName: access.actor.name,
          pageId: id,
          pagePath: path,
          details: { origin: access.origin },
          now,
        });
      })();
    } catch (error) {
      this.removeFile(abs); // nothing is half-created: no record, no file
      throw error;
    }
    const row = this.records.byId(id)!;
    this.afterCommit(access, "page-created", { path }, [this.snapshot(row, file)], { kind: "create", path, files: [path], contents: [{ path, data: text }] });
    return this.toJson(row, file);
  }

  private editFrontmatter(file: PageFile, id: string, patch: Record<string, unknown>) {
    if (file.yamlError !== null) {
      throw new ValidationError(`frontmatter: the page's YAML is invalid (${file.yamlError}); fix it before editing keys`, "frontmatter");
    }
    const values = Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined));
    let split = file.split;
    if (split.block === "") split = withYaml({ ...split, gap: split.body.startsWith("\n") ? "" : "\n" }, `id: ${id}\n`);
    const yaml = setKeys(split.yaml, values, split.newline);
    // The edit touched lines, not the YAML tree: prove every other key still parses the same.
    let after: Record<string, unknown>;
    try {
      after = parseYaml(yaml);
    } catch (error) {
      throw new ValidationError(`frontmatter: could not be edited safely (${(error as Error).message})`, "frontmatter");
    }
    const before = parseYaml(split.yaml);
    for (const key of new Set([...Object.keys(before), ...Object.keys(after)])) {
      const expected = key in values ? values[key] : before[key];
      if (!Bun.deepEquals(after[key], expected)) {
        throw new ValidationError(`frontmatter: could not edit ${key} without changing other keys`, "frontmatter");
      }
    }
    return withYaml(split, yaml);
  }

  /** Every page file the ledger (or the reconciler) writes goes through here: atomic, and noted. */
  writeFile(abs: string, text: string): void {
    writeFileAtomic(abs, text);
    this.ownWrites.note(abs, text);
  }

  /**
   * Many page files at once (the reconciler's id injection), each atomic as `writeFile`, flushed
   * together (one syncfs for the batch on Linux, per-file fsyncs elsewhere: atomic-write.ts).
   * Noted first, so the watcher knows them whenever its event comes; a file that fails keeps its
   * old text, which its note does not match, so a later change to it still counts as someone's.
   * One entry per file: null when written (durably, name included), else the error.
   */
  async writeFiles(files: Array<{ abs: string; text: string }>): Promise<Array<Error | null>> {
    for (const f of files) this.ownWrites.note(f.abs, f.text);
    return writeFilesAtomic(files.map((f) => ({ path: f.abs, data: f.text })));
  }

  removeFile(abs: string): void {
    rmSync(abs, { force: true });
    this.ownWrites.note(abs, null);
  }

  /** Reads and parses a page file; null when it does not exist (or is not a file we may read). */
  readFile(workspaceId: string, path: string): PageFile | null {
    let bytes: Buffer;
    try {
      bytes = readFileSync(this.dir(workspaceId).resolveInside(path));
    } catch (error) {
      if (error instanceof ValidationError) return null;
      const code = (error as NodeJS.ErrnoException).code;
      if (code === "ENOENT" || code === "EISDIR" || code === "ENOTDIR") return null;
      throw error;
    }
    let text: string;
    try {
      text = utf8.decode(bytes);
    } catch {
      throw new ValidationError("The page file is not valid UTF-8", "path");
    }
    return readPageFile(text, path);
  }

  recordWrite(path: string, file: PageFile, actor: Actor, now: string) {
    return {
      meta: file.meta,
      path,
      contentHash: file.contentHash,
      frontmatterHash: file.frontmatterHash,
      actorId: actor.id,
      actorName: actor.name,
      now,
    };
  }

  toJson(row: PageRow, file: PageFile): PageJson & { problems: PageProblem[] } {
    // A page whose YAML is invalid still loads (titled from its file name) and says why, so an
    // editor can fix the file instead of guessing; an alias bomb's frontmatter is left out.
    const { problems, frontmatter } = pageProblems(file);
    // The file is the truth: metadata comes from it even if it changed outside Quire.
    const json = pageJson(row, { content: file.split.body, frontmatter });
    return {
      ...json,
      title: file.meta.title,
      description: file.meta.description,
      tags: file.meta.tags,
      status: file.meta.status,
      publish: file.meta.publish,
      nav_order: file.meta.navOrder,
      content_hash: file.contentHash,
      frontmatter_hash: file.frontmatterHash,
      problems,
    };
  }

  snapshot(row: PageRow, file: PageFile): PageSnapshot {
    return {
      page_id: row.id,
      path: row.path,
      title: file.meta.title,
      description: file.meta.description,
      tags: file.meta.tags,
      body: file.split.body,
    };
  }

  private publishEvent(access: ContentAccess, type: "page-created" | "page-updated" | "page-deleted" | "page-moved", fields: Record<string, unknown>) {
    const ws = access.workspace.id;
    this.deps.bus.publish({ type, workspace_id: ws, payload: { workspace_id: ws, ...fields, actor: access.actor } });
  }

  private afterCommit(
    access: ContentAccess,
    type: "page-created" | "page-updated" | "page-deleted" | "page-moved",
    fields: Record<string, unknown>,
    snapshots: PageSnapshot[],
    write: Omit<CommittedWrite, "workspace_id" | "actor" | "origin">,
  ): void {
    const ws = access.workspace.id;
    this.publishEvent(access, type, fields);
    for (const page of snapshots) this.deps.bus.publishChange({ kind: "upsert", workspace_id: ws, page });
    const committed: CommittedWrite = { workspace_id: ws, actor: access.actor, origin: access.origin, ...write };
    if (access.group) access.group.writes.push(committed);
    else this.notifyCommitted(committed);
  }

  /**
   * Ends a write group: whatever its writes left on disk is announced as one `batch` write (the
   * last text of each file), so nothing written is left out of history even when the group
   * stopped at a failed write. A group with no writes announces nothing.
   */
  endGroup(access: ContentAccess, group: WriteGroup): void {
    try {
      if (group.writes.length > 0) this.notifyBatch(access, group);
    } finally {
      for (const end of group.onEnd.splice(0)) end();
    }
  }

  private notifyBatch(access: ContentAccess, group: WriteGroup): void {
    const latest = new Map<string, CommittedWrite["contents"][number]>();
    for (const w of group.writes) for (const c of w.contents) latest.set(c.path, c);
    this.notifyCommitted({
      workspace_id: access.workspace.id,
      kind: "batch",
      path: group.writes[0]!.path,
      files: [...latest.keys()],
      contents: [...latest.values()],
      actor: access.actor,
      origin: access.origin,
      message: group.message,
    });
    group.writes.length = 0;
  }

  /** Tells `onCommitted` listeners about a write (uploads call it too, so git commits them). */
  notifyCommitted(committed: CommittedWrite): void {
    for (const listener of this.committedListeners) {
      try {
        listener(committed);
      } catch (error) {
        this.deps.log.error("committed-write listener failed", { error: String(error) });
      }
    }
  }
}

/** The text of a new page: `id` first, then the given keys, then the body after one blank line. */
function newPageText(id: string, input: CreatePageInput): string {
  const lines = [`id: ${id}`, `title: ${yamlValue(input.title)}`];
  if (input.description !== undefined && input.description !== "") lines.push(`description: ${yamlValue(input.description)}`);
  if (input.tags !== undefined && input.tags.length > 0) lines.push(`tags: ${yamlValue(input.tags)}`);
  if (input.publish === true) lines.push("publish: true", "status: published");
  return `---\n${lines.join("\n")}\n---\n\n${input.body ?? ""}`;
}
