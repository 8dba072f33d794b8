import { commitPath } from "./commit-message.ts";
import { readFileSync } from "node:fs";
import type { Db } from "../db/database.ts";
import { nowIso } from "../core/clock.ts";
import { NotFoundError } from "../core/errors.ts";
import { parseInput } from "../core/validate.ts";
import type { Principal } from "../core/principal.ts";
import type { Permissions } from "../access/permissions.ts";
import type { Users } from "../identity/users.ts";
import type { Restrictions } from "../access/restrictions/restrictions-service.ts";
import type { ContentLedger } from "../content/ledger.ts";
import { assertRight, type ContentAccess } from "../content/rights.ts";
import { injectId } from "../content/page-ids.ts";
import { readPageFile } from "../content/page-file.ts";
import { typeForName } from "../content/uploads.ts";
import type { EventBus } from "../core/event-bus.ts";
import { workspaceRef, type WorkspaceRow } from "../workspaces/workspace-records.ts";
import type { FileContent } from "./repo.ts";
import { conflictId, parseConflictId, type ConflictMeta } from "./conflict-store.ts";
import { writeOrRemove } from "./pull.ts";
import type { GitSync, SyncResult } from "./sync-service.ts";
import { resolveConflictInput } from "./schemas.ts";

/**
 * What people do with sync conflicts: list them, download either side, and resolve them.
 * Every resolution ends with the resolved state committed as the caller and pushed (auto-commit
 * on): `kept_local` commits the local file when HEAD does not hold it yet; `kept_remote` and
 * `custom` write the chosen text through the ledger's writer as the caller, then commit it.
 */
const isUtf8 = (bytes: Buffer) => {
  try {
    new TextDecoder("utf-8", { fatal: true }).decode(bytes);
    return true;
  } catch {
    return false;
  }
};

interface ConflictFile {
  bytes: Buffer;
  contentType: string;
  /** File name to download it as; null for a page (served as Markdown text). */
  attachment: string | null;
}

const originLabel = (access: ContentAccess) => (access.origin === "API" ? "API" : "web editor");

type ConflictJson = { id: string } & Omit<ConflictMeta, "workspace_id" | "remote_commit">;

export class ConflictService {
  constructor(
    private readonly deps: { db: Db; permissions: Permissions; users: Users; ledger: ContentLedger; bus: EventBus; gitSync: GitSync; restrictions: Restrictions },
  ) {}

  async sync(principal: Principal, ref: string): Promise<SyncResult> {
    const { workspace } = this.deps.permissions.require(principal, workspaceRef(ref), "admin");
    return this.deps.gitSync.trigger(workspace.id, { reason: "manual" });
  }

  list(principal: Principal, ref: string) {
    const { workspace, role } = this.deps.permissions.require(principal, workspaceRef(ref), "viewer");
    const vis = this.deps.restrictions.visibilityOf(principal, workspace, role);
    return {
      workspace_id: workspace.id,
      sync_status: workspace.sync_status,
      // A conflict on a page hidden from the caller is theirs to know nothing of (docs/decisions/restricted-folders.md).
      conflicts: this.deps.gitSync.conflicts.list(workspace.id).filter((m) => vis.sees(m.path)).map((m) => ({
        id: conflictId(m),
        path: m.path,
        ours_hash: m.ours_hash,
        theirs_hash: m.theirs_hash,
        page_id: m.page_id,
        timestamp: m.timestamp,
      })),
    };
  }

  /**
   * The raw ours/theirs file of a conflict (read access to its workspace), byte for byte: a page
   * as `text/markdown`, any other file by its extension (`application/octet-stream` when unknown)
   * and as an attachment, so a browser never renders an uploaded file inline.
   */
  file(principal: Principal, pageId: string, timestamp: string, version: string): ConflictFile {
    if (version !== "ours" && version !== "theirs") throw new NotFoundError("Unknown conflict version; use ours or theirs");
    const meta = this.locate(principal, pageId, timestamp, "viewer").meta;
    const bytes = this.deps.gitSync.conflicts.read(meta, version);
    if (meta.path.endsWith(".md")) return { bytes, contentType: "text/markdown; charset=utf-8", attachment: null };
    const name = meta.path.slice(meta.path.lastIndexOf("/") + 1);
    return { bytes, contentType: typeForName(name)?.mime ?? "application/octet-stream", attachment: `${version}-${name}` };
  }

  /** Keeps the local file (committed as the caller, like `kept_local`) and removes the artifacts (edit access). */
  async resolveArtifacts(principal: Principal, pageId: string, timestamp: string): Promise<{ message: string; page_id: string }> {
    const { meta, workspace, role } = this.locate(principal, pageId, timestamp, "editor");
    const access = this.accessOf(principal, workspace, role);
    assertRight(access, "edit");
    await this.keepLocal(access, meta);
    this.deps.gitSync.conflicts.remove(meta);
    this.deps.gitSync.refreshStatus(workspace.id);
    return { message: `Conflict on ${meta.path} resolved; the local version is kept`, page_id: meta.page_id };
  }

  /**
   * Both sides and the base. A file that is not UTF-8 text (an image, any binary upload) comes
   * as base64, all three sides alike, and `encoding` says which.
   */
  inspect(principal: Principal, ref: string, id: string) {
    const { workspace, meta } = this.byId(principal, ref, id, "viewer");
    const store = this.deps.gitSync.conflicts;
    const sides = { ours: store.read(meta, "ours"), theirs: store.read(meta, "theirs"), base: store.read(meta, "base") };
    const encoding = Object.values(sides).every(isUtf8) ? "utf8" : "base64";
    return {
      ...this.toJson(meta),
      workspace_id: workspace.id,
      encoding,
      ours: sides.ours.toString(encoding),
      theirs: meta.theirs_deleted ? null : sides.theirs.toString(encoding),
      base: sides.base.toString(encoding),
    };
  }

  async resolve(principal: Principal, ref: string, id: string, body: unknown) {
    const { workspace, meta, role } = this.byId(principal, ref, id, "editor");
    const input = parseInput(resolveConflictInput, body);
    const access = this.accessOf(principal, workspace, role);
    assertRight(access, "edit");
    // Taking a remote deletion deletes the page; writing a page that is gone locally creates it.
    if (input.resolution === "kept_remote" && meta.theirs_deleted) assertRight(access, "delete");
    else if (input.resolution !== "kept_local" && !this.deps.ledger.records.live(workspace.id, meta.path)) assertRight(access, "create");
    const store = this.deps.gitSync.conflicts;
    if (input.resolution === "kept_remote") {
      // A page is written as text (its id kept); any other file byte for byte.
      const theirs = store.read(meta, "theirs");
      await this.write(access, meta, meta.theirs_deleted ? null : meta.path.endsWith(".md") ? theirs.toString("utf8") : new Uint8Array(theirs));
    } else if (input.resolution === "custom") {
      await this.write(access, meta, input.content!);
    } else {
      await this.keepLocal(access, meta);
    }
    store.remove(meta);
    this.deps.gitSync.refreshStatus(workspace.id);
    const status = this.deps.permissions.require(principal, { id: workspace.id }, "viewer").workspace.sync_status;
    return { id, resolution: input.resolution, path: meta.path, page_id: meta.page_id, sync_status: status };
  }

  /**
   * Writes the chosen text (null: delete) as the caller, through the ledger's writer: file,
   * record and activity, events, then the commit (author = the caller) and a push.
   */
  private async write(access: ContentAccess, meta: ConflictMeta, text: string | Uint8Array | null): Promise<void> {
    const { ledger, db, bus, gitSync } = this.deps;
    const ws = access.workspace;
    const path = meta.path;
    await ledger.exclusive(ws.id, async () => {
      const row = ledger.records.live(ws.id, path);
      const now = nowIso();
      const dir = ledger.dir(ws.id).root;
      const note = (abs: string, t: string | null) => ledger.ownWrites.note(abs, t);
      let written: string | Uint8Array | null = text;
      if (text === null) {
        writeOrRemove(dir, path, null, note);
        if (row) {
          db.transaction(() => {
            ledger.records.softDelete(row.id, now, access.actor.id, access.actor.name);
            ledger.activity.record({ workspaceId: ws.id, action: "page_deleted", actorId: access.actor.id, actorName: access.actor.name, pageId: row.id, pagePath: path, details: { origin: access.origin, reason: "conflict_resolved" }, now });
          })();
          bus.publishChange({ kind: "remove", workspace_id: ws.id, page_id: row.id });
        }
        bus.publish({ type: "page-deleted", workspace_id: ws.id, payload: { workspace_id: ws.id, path, actor: access.actor } });
      } else if (path.endsWith(".md") && typeof text === "string") {
        const id = row?.id ?? meta.page_id;
        let file = readPageFile(text, path);
        if (file.meta.id !== id && file.yamlError === null) file = readPageFile(injectId(file, id), path);
        written = file.text;
        writeOrRemove(dir, path, new TextEncoder().encode(file.text), note);
        db.transaction(() => {
          const write = ledger.recordWrite(path, file, access.actor, now);
          if (row) ledger.records.update(row.id, write);
          else ledger.records.insert(id, ws.id, write);
          ledger.activity.record({ workspaceId: ws.id, action: row ? "page_updated" : "page_created", actorId: access.actor.id, actorName: access.actor.name, pageId: id, pagePath: path, details: { content_hash: file.contentHash, origin: access.origin, reason: "conflict_resolved" }, now });
        })();
        const saved = ledger.records.byId(id)!;
        bus.publish({ type: row ? "page-updated" : "page-created", workspace_id: ws.id, payload: { workspace_id: ws.id, path, actor: access.actor } });
        bus.publishChange({ kind: "upsert", workspace_id: ws.id, page: ledger.snapshot(saved, file) });
      } else {
        writeOrRemove(dir, path, typeof text === "string" ? new TextEncoder().encode(text) : text, note);
      }
      // Committed by the git worker from the text written (after any commits queued before it).
      await this.commitResolution(ws.id, [{ path, data: written }], `Update ${commitPath(path)} via ${originLabel(access)} (conflict resolved)`, access);
    });
  }

  /**
   * `kept_local`: the local version is already in the work tree; it is committed as the caller
   * when HEAD does not hold it yet (uncommitted local bytes, a fast-forward pull), so the
   * resolved state is in the history and on the remote like any other resolution.
   */
  private async keepLocal(access: ContentAccess, meta: ConflictMeta): Promise<void> {
    const { ledger } = this.deps;
    const ws = access.workspace;
    await ledger.exclusive(ws.id, async () => {
      let data: Uint8Array | null;
      try {
        data = readFileSync(ledger.dir(ws.id).resolveInside(meta.path));
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
        data = null;
      }
      await this.commitResolution(ws.id, [{ path: meta.path, data }], `Keep the local version of ${commitPath(meta.path)} via ${originLabel(access)} (conflict resolved)`, access);
    });
  }

  /**
   * A resolution is committed (author = the caller) and pushed when auto-commit is on. With it
   * off it stays an uncommitted edit in the work tree like any save (docs/decisions/git-commits.md §8, §10).
   */
  private async commitResolution(workspaceId: string, files: FileContent[], message: string, access: ContentAccess): Promise<void> {
    const { gitSync, db } = this.deps;
    // Read now, not from the request's start: the setting may have changed meanwhile.
    const ws = db.query<{ id: string; git_auto_commit: number; git_remote: string | null }, [string]>("SELECT id, git_auto_commit, git_remote FROM workspaces WHERE id = ?").get(workspaceId);
    if (!ws || ws.git_auto_commit !== 1) return;
    const oid = await gitSync.commitFiles(ws.id, files, message, gitSync.authorOf(access.actor));
    if (oid && ws.git_remote) gitSync.schedulePush(ws.id);
  }

  private accessOf(principal: Principal, workspace: WorkspaceRow, role: ContentAccess["role"]): ContentAccess {
    return {
      workspace,
      role,
      visibility: this.deps.restrictions.visibilityOf(principal, workspace, role),
      actor: { id: principal.userId, name: this.deps.users.byId(principal.userId)?.name ?? "" },
      origin: principal.kind === "api_key" ? "API" : "web editor",
    };
  }

  private byId(principal: Principal, ref: string, id: string, min: "viewer" | "editor") {
    const { workspace, role } = this.deps.permissions.require(principal, workspaceRef(ref), min);
    const { pageId, timestamp } = parseConflictId(id);
    const meta = this.deps.gitSync.conflicts.get(pageId, timestamp);
    if (meta.workspace_id !== workspace.id || !this.deps.restrictions.visibilityOf(principal, workspace, role).sees(meta.path)) throw new NotFoundError("Conflict not found");
    return { workspace, role, meta };
  }

  /** A conflict by page id and timestamp; its workspace decides access (404 without read access). */
  private locate(principal: Principal, pageId: string, timestamp: string, min: "viewer" | "editor") {
    const meta = this.deps.gitSync.conflicts.get(pageId, timestamp);
    // 404 without read access, 403 with read but not edit access.
    const { workspace, role } = this.deps.permissions.require(principal, { id: meta.workspace_id }, "viewer");
    // A conflict on a hidden page is missing, whatever the caller's role.
    if (!this.deps.restrictions.visibilityOf(principal, workspace, role).sees(meta.path)) throw new NotFoundError("Conflict not found");
    this.deps.permissions.require(principal, { id: meta.workspace_id }, min);
    return { meta, workspace, role };
  }

  private toJson(m: ConflictMeta): ConflictJson {
    return { id: conflictId(m), path: m.path, page_id: m.page_id, timestamp: m.timestamp, ours_hash: m.ours_hash, theirs_hash: m.theirs_hash, theirs_deleted: m.theirs_deleted };
  }
}
