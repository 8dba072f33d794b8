import { ConflictError, NotFoundError, ValidationError } from "../core/errors.ts";
import { decodeCursor, encodeCursor } from "../core/pagination.ts";
import type { ContentLedger } from "./ledger.ts";
import { linkedPaths } from "./links.ts";
import { titleFromPath } from "./page-file.ts";
import type { PageJson, PageRow } from "./page-records.ts";
import { sliceContent, type PageSlice } from "./page-slice.ts";
import { agentPagePath, normalizeFolderPath } from "./paths.ts";
import { assertRight, type ContentAccess } from "./rights.ts";
import type { EditPageInput, ListPagesInput, PageEdit, WritePageInput } from "./schemas.ts";
import { levelOf } from "./tree.ts";

/**
 * Page operations shaped for agents (the MCP tools), built on the ledger so every rule, hash check
 * and commit is the API's: paths as agents write them, reads cut into slices, an upsert, exact
 * find/replace edits, listings with cursors and a page's neighbourhood without bodies.
 */

/**
 * Applies exact-text replacements in order, each to the result of the previous one. A `find` that
 * occurs zero times or more than once is refused, naming the edit, and nothing is applied.
 */
function applyEdits(content: string, edits: PageEdit[]): string {
  let text = content;
  edits.forEach((edit, i) => {
    const first = text.indexOf(edit.find);
    if (first < 0) {
      throw new ValidationError(`edits[${i}].find: matches nothing in the page; read the page again and copy the text exactly`, `edits.${i}.find`);
    }
    let count = 1;
    for (let at = text.indexOf(edit.find, first + 1); at >= 0 && count < 1000; at = text.indexOf(edit.find, at + 1)) count++;
    if (count > 1) {
      throw new ValidationError(
        `edits[${i}].find: matches ${count >= 1000 ? "1000 or more" : count} times; include more of the surrounding text so it matches exactly once`,
        `edits.${i}.find`,
        { matches: count },
      );
    }
    text = text.slice(0, first) + edit.replace + text.slice(first + edit.find.length);
  });
  return text;
}

interface PageSummary {
  path: string;
  title: string;
  page_id: string;
  updated_at: string;
  publish: boolean;
}

const summary = (row: PageRow): PageSummary => ({
  path: row.path,
  title: row.title,
  page_id: row.id,
  updated_at: row.updated_at,
  publish: row.publish === 1,
});

const MAX_NEIGHBOURS = 50;

export class AgentPages {
  constructor(private readonly ledger: ContentLedger) {}

  read(access: ContentAccess, rawPath: string, offset: number, maxChars: number): PageSlice {
    return sliceContent(this.ledger.read(access, agentPagePath(rawPath)), offset, maxChars);
  }

  /** Creates the page, or replaces its body (and the metadata given) whatever changed meanwhile. */
  async write(access: ContentAccess, rawPath: string, input: WritePageInput): Promise<{ page: PageJson; created: boolean }> {
    const path = agentPagePath(rawPath);
    // Upsert is last-writer-wins by definition; a write landing between the read and the write is
    // simply read again (a few times at most, then reported).
    for (let attempt = 0; attempt < 3; attempt++) {
      const current = this.readOrNull(access, path);
      try {
        if (current === null) {
          const page = await this.ledger.create(access, path, {
            title: input.title ?? titleFromPath(path),
            body: input.body,
            description: input.description,
            tags: input.tags,
            publish: input.publish,
          });
          return { page, created: true };
        }
        const frontmatter = definedOnly({ title: input.title, description: input.description, tags: input.tags, publish: input.publish });
        const { page } = await this.ledger.update(access, path, { lastKnownHash: current.content_hash, body: input.body, frontmatter });
        return { page, created: false };
      } catch (error) {
        if (!(error instanceof ConflictError)) throw error;
      }
    }
    throw new ConflictError("The page keeps changing while being written; try again");
  }

  /** Optimistic update: the whole body, exact find/replace edits, and/or frontmatter keys. */
  async edit(access: ContentAccess, rawPath: string, input: EditPageInput): Promise<PageJson> {
    const path = agentPagePath(rawPath);
    let body = input.body;
    if (input.edits !== undefined) {
      const current = this.ledger.read(access, path);
      if (current.content_hash !== input.last_known_hash) throw staleHash(current, input.last_known_hash);
      body = applyEdits(current.content ?? "", input.edits);
    }
    // The ledger compares the hash again under the workspace's write lock: a web edit landing after
    // the read above makes this a conflict naming the new hash, never a lost edit.
    const { page } = await this.ledger.update(access, path, { lastKnownHash: input.last_known_hash, body, frontmatter: input.frontmatter });
    return page;
  }

  list(access: ContentAccess, input: ListPagesInput): { items: PageSummary[]; next_cursor: string | null } {
    assertRight(access, "read");
    const folder = input.folder === undefined ? "" : normalizeFolderPath(input.folder, "folder");
    const after = decodeCursor(input.cursor, 1)?.[0] ?? null;
    const rows = this.rows(access)
      .filter((r) => folder === "" || r.path.startsWith(`${folder}/`))
      .filter((r) => after === null || r.path > after);
    const items = rows.slice(0, input.limit).map(summary);
    const more = rows.length > input.limit;
    return { items, next_cursor: more ? encodeCursor([items[items.length - 1]!.path]) : null };
  }

  /** The pages of a workspace with their metadata (no bodies), by path, in pages of `limit`. */
  manifest(access: ContentAccess, limit: number, cursor: string | undefined) {
    assertRight(access, "read");
    const after = decodeCursor(cursor, 1)?.[0] ?? null;
    const rows = this.rows(access).filter((r) => after === null || r.path > after);
    const items = rows.slice(0, limit).map((r) => ({ path: r.path, title: r.title, description: r.description, tags: tagsOf(r) }));
    return { pages: items, next_cursor: rows.length > limit ? encodeCursor([items[items.length - 1]!.path]) : null };
  }

  /** A page and its neighbourhood: parent (the folder's index page), siblings, links out and in. */
  context(access: ContentAccess, rawPath: string) {
    const page = this.ledger.read(access, agentPagePath(rawPath));
    const rows = this.rows(access);
    const byPath = new Map(rows.map((r) => [r.path, r]));
    const level = levelOf(page.path);
    const parentPath = level === "" ? (page.path === "index.md" ? null : "index.md") : `${level}/index.md`;
    const parent = parentPath !== null && parentPath !== page.path ? byPath.get(parentPath) ?? null : null;
    const siblings = rows.filter((r) => r.path !== page.path && levelOf(r.path) === level && r.path !== parentPath);
    const exists = (p: string) => byPath.has(p);
    const text = this.ledger.readFile(access.workspace.id, page.path)?.text ?? "";
    const linksOut = linkedPaths(text, page.path, exists).map((p) => {
      const row = byPath.get(p);
      return row ? { ...summary(row), exists: true } : { path: p, title: null, exists: false };
    });
    const stem = page.path.slice(page.path.lastIndexOf("/") + 1, -3);
    const linksIn: PageSummary[] = [];
    for (const row of rows) {
      if (row.path === page.path || linksIn.length >= MAX_NEIGHBOURS) continue;
      const other = this.ledger.readFile(access.workspace.id, row.path)?.text;
      if (other === undefined || !other.includes(stem)) continue;
      if (linkedPaths(other, row.path, exists).includes(page.path)) linksIn.push(summary(row));
    }
    const { content: _body, ...meta } = page;
    return {
      page: { path: meta.path, title: meta.title, page_id: meta.page_id, description: meta.description, tags: meta.tags, updated_at: meta.updated_at, publish: meta.publish, content_hash: meta.content_hash },
      parent: parent ? summary(parent) : null,
      siblings: siblings.slice(0, MAX_NEIGHBOURS).map(summary),
      siblings_total: siblings.length,
      links_out: linksOut.slice(0, MAX_NEIGHBOURS),
      links_in: linksIn,
    };
  }

  /** The pages the caller may see: a hidden page is in no list, neighbourhood or link count. */
  private rows(access: ContentAccess): PageRow[] {
    const vis = access.visibility;
    const rows = this.ledger.records.liveIn(access.workspace.id);
    return (vis.restricted ? rows.filter((r) => vis.sees(r.path)) : rows).sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  }

  private readOrNull(access: ContentAccess, path: string): PageJson | null {
    try {
      return this.ledger.read(access, path);
    } catch (error) {
      if (error instanceof NotFoundError) return null;
      throw error;
    }
  }
}

/** The conflict the ledger itself reports for a stale hash, with the current one to retry with. */
function staleHash(current: PageJson, yours: string): ConflictError {
  return new ConflictError("The page changed since you read it; read it again and retry", {
    current_hash: current.content_hash,
    your_hash: yours,
    modified_by: current.updated_by?.name ?? null,
    modified_at: current.updated_at,
  });
}

function definedOnly<T extends Record<string, unknown>>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}

function tagsOf(row: PageRow): string[] {
  try {
    const v = JSON.parse(row.tags);
    return Array.isArray(v) ? v.filter((t): t is string => typeof t === "string") : [];
  } catch {
    return [];
  }
}
