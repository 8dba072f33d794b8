import type { Db } from "../db/database.ts";
import { ConflictError, NotFoundError, ValidationError } from "../core/errors.ts";
import { parseInput } from "../core/validate.ts";
import { decodeCursor, encodeCursor } from "../core/pagination.ts";
import type { ContentLedger } from "../content/ledger.ts";
import { injectId } from "../content/page-ids.ts";
import { readPageFile } from "../content/page-file.ts";
import type { PageJson } from "../content/page-records.ts";
import { agentPagePath, normalizePagePath } from "../content/paths.ts";
import { assertPageLevel, assertRight, type ContentAccess } from "../content/rights.ts";
import { restoreMessage } from "./channel.ts";
import { blame } from "./blame.ts";
import { localOnly } from "./remote-reach.ts";
import { trackingRef } from "../git/transport.ts";
import { blameQuery, changesQuery, diffQuery, historyQuery, restoreInput, trashRestoreInput, versionQuery, type VersionEntry } from "./schemas.ts";
import { renderedDiff, renderVersion } from "./rendered.ts";
import { decode, frontmatterChanges, frontmatterOf, lineStats, unifiedDiff, wordChanges } from "./text-diff.ts";
import type { VersionIndex, VersionRow } from "./version-index.ts";

/**
 * Page history (docs/decisions/page-history.md): a page's versions from the index, any version's content and diffs
 * from git's objects, restores and the trash through the content ledger. Rights are those of the
 * page: reading history needs read, a restore edit, a trash restore create. A commit that is not a
 * version of the page (unknown, another workspace's, another page's) is 404 and nothing more.
 */
const ORIGIN_LABEL: Record<string, string> = { "web editor": "web editor", API: "API", MCP: "MCP" };
const TRASH_MAX = 500;
/** Versions a blame reads at most (the newest); older lines are credited to the oldest read. */
const BLAME_MAX = 1000;

interface HistoryPage {
  items: VersionEntry[];
  next_cursor: string | null;
  indexing: boolean;
  git: boolean;
}

export class HistoryService {
  /** Per workspace: the last answer of `localOnly`, for the HEAD and remote commit it was computed for. */
  private readonly reach = new Map<string, { key: string; local: Set<string> | null }>();

  constructor(private readonly deps: { db: Db; ledger: ContentLedger; index: VersionIndex }) {}

  // ---- reads -------------------------------------------------------------------------------

  list(access: ContentAccess, query: unknown): Promise<HistoryPage> {
    assertRight(access, "read");
    const q = parseInput(historyQuery, query);
    return this.versions(access, q.path, q.limit, q.cursor);
  }

  /** A page's versions, newest first (the MCP tool calls this with its own defaults). */
  async versions(access: ContentAccess, rawPath: string, limit: number, cursor?: string): Promise<HistoryPage> {
    assertRight(access, "read");
    const ws = access.workspace.id;
    const path = normalizePagePath(agentPagePath(rawPath));
    const git = this.deps.index.git(ws).exists();
    const after = decodeCursor(cursor, 3);
    // A hidden page has no versions, exactly as a page that never existed (while indexing too).
    const rows = access.visibility.sees(path) ? this.pageRows(ws, path, limit + 1, after) : null;
    const indexing = this.deps.index.pending(ws) > 0;
    // While the history is still being read, a page it has not reached yet has no versions so far.
    if (rows === null && !indexing) throw new NotFoundError("Page not found");
    if (rows === null) return { items: [], next_cursor: null, indexing, git };
    const more = rows.length > limit;
    const shown = more ? rows.slice(0, limit) : rows;
    const last = shown[shown.length - 1];
    return {
      items: this.present(ws, shown, await this.notOnRemote(access)),
      next_cursor: more && last ? encodeCursor([String(last.at), String(last.rank), last.commit_id]) : null,
      indexing,
      git,
    };
  }

  /** The page as it was at `commit`, in the shape of a read of the page (its current record's fields, the version's text). */
  async pageAt(access: ContentAccess, rawPath: string, commit: string): Promise<PageJson & { version: string }> {
    const current = this.deps.ledger.read(access, agentPagePath(rawPath));
    const old = await this.readVersion(access, rawPath, commit);
    const file = readPageFile(old.content, old.path);
    return { ...current, path: old.path, content: file.split.body, content_hash: file.contentHash, frontmatter: { ...file.data }, version: old.commit };
  }

  async version(access: ContentAccess, query: unknown) {
    const q = parseInput(versionQuery, query);
    const version = await this.readVersion(access, q.path, q.commit);
    return q.html === "true" ? { ...version, html: renderVersion(access.workspace.slug, version.path, version.content) } : version;
  }

  async readVersion(access: ContentAccess, rawPath: string, commit: string) {
    assertRight(access, "read");
    const ws = access.workspace.id;
    const path = normalizePagePath(agentPagePath(rawPath));
    // A hidden page's versions are as missing as the page (its old texts included).
    assertPageLevel(access, path, "view");
    const row = this.versionOf(ws, path, commit);
    const bytes = row.blob ? await this.deps.index.git(ws).blob(row.blob) : null;
    if (!bytes) throw new NotFoundError("This version deleted the page: it has no content (read the version before it)");
    const { text, valid_utf8 } = decode(bytes);
    return { commit: row.commit_id, path: row.path, content: text, valid_utf8, frontmatter_valid: !frontmatterOf(text).invalid };
  }

  async diff(access: ContentAccess, query: unknown) {
    const q = parseInput(diffQuery, query);
    return this.diffVersions(access, q.path, q.from, q.to, q.words === "true", q.rendered === "true");
  }

  async diffVersions(access: ContentAccess, rawPath: string, from: string, to: string | undefined, words = false, rendered = false) {
    assertRight(access, "read");
    const ws = access.workspace.id;
    const path = normalizePagePath(agentPagePath(rawPath));
    const a = await this.readVersion(access, path, from);
    let bText: string;
    let bLabel: string;
    if (to === undefined) {
      const current = this.deps.ledger.readFile(ws, path);
      if (!current || !this.deps.ledger.records.live(ws, path)) throw new NotFoundError("Page not found");
      bText = current.text;
      bLabel = "current";
    } else {
      const b = await this.readVersion(access, path, to);
      bText = b.content;
      bLabel = b.commit;
    }
    const stats = lineStats(a.content, bText);
    return {
      from: a.commit,
      to: bLabel,
      unified: unifiedDiff(path, a.content, bText, a.commit.slice(0, 12), bLabel === "current" ? "current" : bLabel.slice(0, 12)),
      frontmatter_changes: frontmatterChanges(a.content, bText),
      added: stats.added,
      removed: stats.removed,
      ...(words ? { words: wordChanges(a.content, bText) } : {}),
      ...(rendered ? { rendered: renderedDiff(access.workspace.slug, path, a.content, bText) } : {}),
    };
  }

  /**
   * Each line of the current file with the version that last wrote it (docs/decisions/page-history.md §10):
   * the page's versions by page id, oldest first, then the file as it is now (lines not committed
   * yet carry no commit).
   */
  async blame(access: ContentAccess, query: unknown) {
    assertRight(access, "read");
    const q = parseInput(blameQuery, query);
    const ws = access.workspace.id;
    const path = normalizePagePath(agentPagePath(q.path));
    const current = this.deps.ledger.readFile(ws, path);
    if (!current || !this.deps.ledger.records.live(ws, path)) throw new NotFoundError("Page not found");
    // One row per commit (a commit may touch the page's paths twice: its id's and an id-less file's).
    const seen = new Set<string>();
    const rows = (this.pageRows(ws, path, BLAME_MAX + 1, null) ?? []).filter((r) => !seen.has(r.commit_id) && seen.add(r.commit_id));
    const truncated = rows.length > BLAME_MAX;
    const read = (truncated ? rows.slice(0, BLAME_MAX) : rows).reverse();
    const git = this.deps.index.git(ws);
    const steps = [];
    for (const r of read) {
      const bytes = r.blob ? await git.blob(r.blob) : null;
      steps.push({ commit: r.commit_id, text: bytes ? decode(bytes).text : null });
    }
    steps.push({ commit: null, text: current.text });
    const ranges = blame(steps);
    const named = new Set(ranges.map((r) => r.commit));
    return { path, content: current.text, ranges, commits: this.present(ws, read.filter((r) => named.has(r.commit_id)).reverse(), await this.notOnRemote(access)), truncated };
  }

  // ---- restore -----------------------------------------------------------------------------

  async restore(access: ContentAccess, body: unknown): Promise<PageJson> {
    const input = parseInput(restoreInput, body);
    return this.restoreVersion(access, input.path, input.commit, input.last_known_hash);
  }

  /**
   * Puts a version back as the page's content: a hash-checked save of the version's whole text
   * (frontmatter included) with the page's own id, at the page's current path, one commit whose
   * message names the version. A version whose bytes are not UTF-8 is refused: saving it would
   * change it (docs/decisions/page-history.md §6).
   */
  async restoreVersion(access: ContentAccess, rawPath: string, commit: string, lastKnownHash: string): Promise<PageJson> {
    assertRight(access, "edit");
    const ws = access.workspace.id;
    const path = normalizePagePath(agentPagePath(rawPath));
    const live = this.deps.ledger.records.live(ws, path);
    if (!live) throw new NotFoundError("Page not found");
    const version = await this.readVersion(access, path, commit);
    if (!version.valid_utf8) throw new ValidationError("commit: this version is not valid UTF-8 text; read it with the version endpoint and save what you want by hand", "commit");
    const text = injectId(readPageFile(version.content, path), live.id);
    return this.deps.ledger.restoreText(access, path, text, {
      lastKnownHash,
      message: restoreMessage(path, version.commit, ORIGIN_LABEL[access.origin] ?? "API"),
    });
  }

  // ---- trash -------------------------------------------------------------------------------

  /** Deleted pages: records soft-deleted in Quire, and pages whose last version in git deleted them. */
  trash(access: ContentAccess) {
    assertRight(access, "read");
    const ws = access.workspace.id;
    const { db } = this.deps;
    const items = new Map<string, { trash_id: string; page_id: string; path: string; title: string; deleted_at: string; deleted_by: string | null; source: "ledger" | "git" }>();
    const soft = db
      .query<{ id: string; path: string; title: string; deleted_at: string; updated_by_name: string | null }, [string, number]>(
        "SELECT id, path, title, deleted_at, updated_by_name FROM pages WHERE workspace_id = ? AND deleted_at IS NOT NULL ORDER BY deleted_at DESC LIMIT ?",
      )
      .all(ws, TRASH_MAX);
    for (const r of soft) {
      const path = r.path.startsWith("/") ? (this.lastPath(ws, r.id) ?? r.path) : r.path;
      items.set(r.id, { trash_id: r.id, page_id: r.id, path, title: r.title, deleted_at: r.deleted_at, deleted_by: r.updated_by_name, source: "ledger" });
    }
    // A page id whose newest version is a deletion and that no live record holds.
    const gone = db
      .query<VersionRow, [string, string, number]>(
        `SELECT v.* FROM page_versions v
         WHERE v.workspace_id = ? AND v.change = 'deleted' AND v.page_id IS NOT NULL
           AND NOT EXISTS (SELECT 1 FROM pages p WHERE p.id = v.page_id AND p.deleted_at IS NULL)
           AND NOT EXISTS (SELECT 1 FROM page_versions w WHERE w.workspace_id = ? AND w.page_id = v.page_id AND w.change != 'deleted' AND (w.at, w.rank) > (v.at, v.rank))
         ORDER BY v.at DESC, v.rank DESC LIMIT ?`,
      )
      .all(ws, ws, TRASH_MAX);
    for (const r of gone) {
      if (items.has(r.page_id!)) continue;
      items.set(r.page_id!, {
        trash_id: r.page_id!,
        page_id: r.page_id!,
        path: r.path,
        title: titleFromPath(r.path),
        deleted_at: new Date(r.at * 1000).toISOString(),
        deleted_by: r.author_name,
        source: "git",
      });
    }
    const vis = access.visibility;
    const shown = vis.restricted ? [...items.values()].filter((i) => vis.sees(i.path)) : [...items.values()];
    return { items: shown.sort((a, b) => b.deleted_at.localeCompare(a.deleted_at)) };
  }

  async restoreTrash(access: ContentAccess, body: unknown): Promise<PageJson> {
    const input = parseInput(trashRestoreInput, body);
    return this.restoreDeleted(access, input.trash_id, input.path);
  }

  /**
   * Brings a deleted page back with its id, from its last version in git: at `path` when given
   * (409 when taken), else at its old path, or beside it (`name-restored.md`) when that is taken.
   */
  async restoreDeleted(access: ContentAccess, trashId: string, rawPath?: string): Promise<PageJson> {
    assertRight(access, "create");
    const ws = access.workspace.id;
    const { db, ledger } = this.deps;
    const record = ledger.records.byId(trashId);
    if (record && record.workspace_id === ws && record.deleted_at === null) {
      // A live page hidden from the caller is no page of theirs: its id answers as an unknown one.
      if (!access.visibility.sees(record.path)) throw new NotFoundError("Nothing in the trash has this id");
      throw new ConflictError("This page is not deleted", undefined, { field: "trash_id" });
    }
    const last = db
      .query<VersionRow, [string, string]>("SELECT * FROM page_versions WHERE workspace_id = ? AND page_id = ? AND blob IS NOT NULL ORDER BY at DESC, rank DESC LIMIT 1")
      .get(ws, trashId);
    const mine = record && record.workspace_id === ws ? record : null;
    let bytes: Uint8Array | null = last ? await this.deps.index.git(ws).blob(last.blob!) : null;
    if (!bytes && mine) {
      // Never committed (auto-commit off): HEAD may still hold the file.
      const git = this.deps.index.git(ws);
      const head = await git.head();
      const commit = head ? await git.commit(head) : null;
      const blob = commit ? await git.blobIdAt(commit.tree, mine.path) : null;
      bytes = blob ? await git.blob(blob) : null;
    }
    if (!bytes || (!mine && !last)) throw new NotFoundError("Nothing in the trash has this id");
    const { text, valid_utf8 } = decode(bytes);
    if (!valid_utf8) throw new ValidationError("trash_id: the page's last version is not valid UTF-8 text", "trash_id");
    const oldPath = last?.path ?? mine!.path;
    if (!access.visibility.sees(oldPath)) throw new NotFoundError("Nothing in the trash has this id");
    let path: string;
    if (rawPath !== undefined) path = normalizePagePath(agentPagePath(rawPath), "path");
    else path = this.freePath(ws, oldPath);
    return ledger.restoreText(access, path, injectId(readPageFile(text, path), trashId), {
      pageId: trashId,
      chosenPath: rawPath !== undefined,
      message: `Restore ${path} from the trash via ${ORIGIN_LABEL[access.origin] ?? "API"}`,
    });
  }

  // ---- workspace changes -------------------------------------------------------------------

  changes(access: ContentAccess, query: unknown, apiBase: string) {
    assertRight(access, "read");
    const q = parseInput(changesQuery, query);
    const ws = access.workspace.id;
    let since: [number, number];
    if (/^[0-9a-f]{7,40}$/i.test(q.since)) {
      const c = this.deps.db
        .query<{ commit_id: string; rank: number }, [string, string]>("SELECT commit_id, rank FROM history_commits WHERE workspace_id = ? AND substr(commit_id, 1, length(?2)) = ?2 LIMIT 2")
        .all(ws, q.since.toLowerCase());
      if (c.length !== 1) throw new NotFoundError("Commit not found");
      const at = this.deps.db.query<{ at: number }, [string, string]>("SELECT MAX(at) AS at FROM page_versions WHERE workspace_id = ? AND commit_id = ?").get(ws, c[0]!.commit_id)?.at;
      since = [at ?? 0, c[0]!.rank];
    } else since = [Math.floor(Date.parse(q.since) / 1000), Number.MAX_SAFE_INTEGER];
    const after = decodeCursor(q.cursor, 3);
    const rows = this.deps.db
      .query<VersionRow, (string | number)[]>(
        `SELECT * FROM page_versions WHERE workspace_id = ? AND (at > ? OR (at = ? AND rank > ?))
         ${after ? "AND (at, rank, commit_id) < (?, ?, ?)" : ""}
         ORDER BY at DESC, rank DESC, commit_id DESC, path LIMIT ?`,
      )
      .all(ws, since[0], since[0], since[1], ...(after ? [Number(after[0]), Number(after[1]), after[2]!] : []), q.limit + 1);
    const more = rows.length > q.limit;
    const vis = access.visibility;
    const page = more ? rows.slice(0, q.limit) : rows;
    // Changes to hidden pages are left out (the cursor still follows the rows read).
    const shown = vis.restricted ? page.filter((r) => vis.sees(r.path) && (r.old_path === null || vis.sees(r.old_path))) : page;
    const people = this.members(ws, shown);
    const last = page[page.length - 1];
    return {
      items: shown.map((r) => ({
        commit: r.commit_id,
        page_id: r.page_id,
        path: r.path,
        old_path: r.old_path,
        change: ({ added: "created", modified: "edited", renamed: "moved", deleted: "deleted" } as const)[r.change],
        author: { name: r.author_name, email: r.author_email, user_id: people.get(r.author_email) ?? null },
        at: new Date(r.at * 1000).toISOString(),
        channel: r.channel,
        diff: r.change === "modified" || r.change === "renamed" ? this.changeDiff(ws, r, apiBase) : null,
      })),
      next_cursor: more && last ? encodeCursor([String(last.at), String(last.rank), last.commit_id]) : null,
    };
  }

  // ---- helpers -----------------------------------------------------------------------------

  /**
   * The API path of one change's own diff: the page's version before this commit → this commit
   * (what the change did, the reviewer's question), or null when the index holds no earlier version.
   */
  private changeDiff(ws: string, r: VersionRow, apiBase: string): string | null {
    const before = "(at, rank, commit_id) < (?, ?, ?) ORDER BY at DESC, rank DESC, commit_id DESC LIMIT 1";
    const previous =
      r.page_id !== null
        ? this.deps.db
            .query<{ commit_id: string; change: string }, (string | number)[]>(`SELECT commit_id, change FROM page_versions WHERE workspace_id = ? AND page_id = ? AND ${before}`)
            .get(ws, r.page_id, r.at, r.rank, r.commit_id)
        : this.deps.db
            .query<{ commit_id: string; change: string }, (string | number)[]>(`SELECT commit_id, change FROM page_versions WHERE workspace_id = ? AND path = ? AND page_id IS NULL AND ${before}`)
            .get(ws, r.path, r.at, r.rank, r.commit_id);
    if (!previous || previous.change === "deleted") return null;
    return `${apiBase}/history/diff?path=${encodeURIComponent(r.path)}&from=${previous.commit_id}&to=${r.commit_id}`;
  }

  /**
   * The page's rows: followed by page id (across renames), plus rows of files without an id at
   * the paths the page has had (a file pushed before Quire gave it one). Null: no such page.
   */
  private pageRows(ws: string, path: string, limit: number, after: string[] | null): VersionRow[] | null {
    const { db } = this.deps;
    const pageId = this.pageIdAt(ws, path);
    const cursor = after ? "AND (at, rank, commit_id) < (?, ?, ?)" : "";
    const cursorArgs = after ? [Number(after[0]), Number(after[1]), after[2]!] : [];
    if (pageId === null) {
      const rows = db
        .query<VersionRow, (string | number)[]>(`SELECT * FROM page_versions WHERE workspace_id = ? AND path = ? AND page_id IS NULL ${cursor} ORDER BY at DESC, rank DESC, commit_id DESC LIMIT ?`)
        .all(ws, path, ...cursorArgs, limit);
      if (rows.length === 0 && !after && !this.deps.ledger.records.live(ws, path)) return null;
      return rows;
    }
    return db
      .query<VersionRow, (string | number)[]>(
        `SELECT * FROM (
           SELECT * FROM page_versions WHERE workspace_id = ?1 AND page_id = ?2 ${cursor}
           UNION ALL
           SELECT * FROM page_versions WHERE workspace_id = ?1 AND page_id IS NULL
             AND path IN (SELECT DISTINCT path FROM page_versions WHERE workspace_id = ?1 AND page_id = ?2) ${cursor}
         ) ORDER BY at DESC, rank DESC, commit_id DESC LIMIT ?`,
      )
      .all(...numbered(ws, pageId, cursorArgs, limit));
  }

  /** The page's version at `commit` (a unique prefix), or 404 naming nothing else. */
  private versionOf(ws: string, path: string, commit: string): VersionRow {
    const { db } = this.deps;
    const pageId = this.pageIdAt(ws, path);
    const hi = commit.length === 40 ? commit : `${commit}g`;
    const candidates = db
      .query<VersionRow, [string, string, string]>("SELECT * FROM page_versions WHERE workspace_id = ? AND commit_id >= ? AND commit_id <= ? LIMIT 1000")
      .all(ws, commit, hi);
    let paths: Set<string> | null = null;
    const hits = candidates.filter((r) => {
      if (pageId === null) return r.page_id === null && r.path === path;
      if (r.page_id === pageId) return true;
      if (r.page_id !== null) return false;
      paths ??= new Set(db.query<{ path: string }, [string, string]>("SELECT DISTINCT path FROM page_versions WHERE workspace_id = ? AND page_id = ?").all(ws, pageId).map((x) => x.path));
      return paths.has(r.path);
    });
    if (new Set(hits.map((r) => r.commit_id)).size !== 1) throw new NotFoundError("Version not found");
    return hits[0]!;
  }

  private pageIdAt(ws: string, path: string): string | null {
    return (
      this.deps.ledger.records.live(ws, path)?.id ??
      this.deps.db.query<{ page_id: string | null }, [string, string]>("SELECT page_id FROM page_versions WHERE workspace_id = ? AND path = ? ORDER BY at DESC, rank DESC LIMIT 1").get(ws, path)?.page_id ??
      null
    );
  }

  /**
   * The commits of the local history the remote does not hold (not pushed yet, or removed from it
   * by a force-push); null when the workspace has no remote or it was never fetched, or the walk
   * was too long to answer. Computed once per pair of HEAD and remote commits.
   */
  private async notOnRemote(access: ContentAccess): Promise<Set<string> | null> {
    const ws = access.workspace;
    if (!ws.git_remote) return null;
    const git = this.deps.index.git(ws.id);
    const [head, remote] = await Promise.all([git.head(), git.resolve(trackingRef(ws.git_branch))]);
    if (!head || !remote) return null;
    const key = `${head}:${remote}`;
    const cached = this.reach.get(ws.id);
    if (cached?.key === key) return cached.local;
    const local = head === remote ? new Set<string>() : await localOnly((oid) => git.commit(oid), head, remote);
    this.reach.set(ws.id, { key, local });
    return local;
  }

  private present(ws: string, rows: VersionRow[], notOnRemote: Set<string> | null): VersionEntry[] {
    const people = this.members(ws, rows);
    return rows.map((r) => ({
      commit: r.commit_id,
      page_id: r.page_id,
      path: r.path,
      old_path: r.old_path,
      change: r.change,
      author: { name: r.author_name, email: r.author_email, user_id: people.get(r.author_email) ?? null },
      at: new Date(r.at * 1000).toISOString(),
      message: r.message,
      channel: r.channel,
      added: r.added,
      removed: r.removed,
      on_remote: notOnRemote === null ? null : !notOnRemote.has(r.commit_id),
    }));
  }

  /** Authors matched to people of the workspace by email (members, and its organisation's). */
  private members(ws: string, rows: Array<{ author_email: string }>): Map<string, string> {
    const emails = [...new Set(rows.map((r) => r.author_email))];
    const out = new Map<string, string>();
    if (emails.length === 0) return out;
    const found = this.deps.db
      .query<{ id: string; email: string }, string[]>(
        `SELECT u.id, lower(u.email) AS email FROM users u WHERE lower(u.email) IN (${emails.map(() => "?").join(",")})
           AND (u.id IN (SELECT user_id FROM workspace_members WHERE workspace_id = ?)
             OR u.id IN (SELECT m.user_id FROM org_members m JOIN workspaces w ON w.org_id = m.org_id WHERE w.id = ?))`,
      )
      .all(...emails, ws, ws);
    for (const f of found) out.set(f.email, f.id);
    return out;
  }

  private lastPath(ws: string, pageId: string): string | null {
    return this.deps.db.query<{ path: string }, [string, string]>("SELECT path FROM page_versions WHERE workspace_id = ? AND page_id = ? ORDER BY at DESC, rank DESC LIMIT 1").get(ws, pageId)?.path ?? null;
  }

  /** `path` when no page holds it, else `name-restored.md`, `name-restored-2.md`… */
  private freePath(ws: string, path: string): string {
    const taken = (p: string) => this.deps.ledger.records.live(ws, p) !== null || this.deps.ledger.readFile(ws, p) !== null;
    if (!taken(path)) return path;
    const stem = path.slice(0, -3);
    for (let n = 1; ; n++) {
      const candidate = `${stem}-restored${n === 1 ? "" : `-${n}`}.md`;
      if (!taken(candidate)) return candidate;
    }
  }
}

/** Arguments for the page query: ?1 workspace, ?2 page id, then the cursor twice, then the limit. */
function numbered(ws: string, pageId: string, cursor: Array<string | number>, limit: number): Array<string | number> {
  return [ws, pageId, ...cursor, ...cursor, limit];
}

function titleFromPath(path: string): string {
  const name = path.slice(path.lastIndexOf("/") + 1, -3);
  return name.replace(/[-_]+/g, " ").trim() || name;
}
