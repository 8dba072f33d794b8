import { ulid } from "../core/ids.ts";
import type { PageRow } from "./page-records.ts";
import type { ReconcileProblem, ScannedFile } from "./reconcile-pass.ts";

/**
 * The second phase of a reconcile pass: each scanned file is given its record and the id it must
 * carry, in three tiers: 1. the frontmatter `id`; 2. the path; 3. the content hash against
 * records without a file (deleted in the last 24 h, or live ones whose file vanished: a file moved
 * outside Quire, recovered with its id). A file matched by none is a new page with a new id.
 * `records` are the workspace's live and recently deleted records; `idElsewhere` says whether an
 * id belongs to a page of another workspace. `unchanged` are the ids of records whose file the pass
 * left unread (at the record's path, carrying its id): they are taken, as that file would have
 * taken them in tier 1 (the file at the record's path keeps the id).
 */
export function matchFiles(
  scanned: ScannedFile[],
  records: PageRow[],
  problems: ReconcileProblem[],
  idElsewhere: (id: string) => boolean,
  unchanged: ReadonlySet<string> = new Set(),
): void {
  const claimed = new Set<string>(unchanged);
  const rest = matchById(scanned, records, problems, claimed, idElsewhere);
  const unmatched = matchByPath(rest, records, claimed);
  matchByContent(unmatched, records, claimed);
}

/**
 * Tier 1: frontmatter id. Among files sharing an id, the one at the record's path keeps it.
 * Returns the files left for the next tiers (no id, or one they may not keep).
 */
function matchById(scanned: ScannedFile[], records: PageRow[], problems: ReconcileProblem[], claimed: Set<string>, idElsewhere: (id: string) => boolean): ScannedFile[] {
  const byId = new Map(records.map((r) => [r.id, r]));
  const takenIds = new Set<string>(claimed);
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
    } else if (idElsewhere(id)) {
      // The id belongs to a page of another workspace (a copied file): this one gets its own.
      problems.push({ kind: "duplicate_id", path: s.path, message: `id ${id} belongs to another page; a new id was given` });
      rest.push(s);
    } else {
      s.id = id;
      s.tier = "new";
      takenIds.add(id);
    }
  }
  return rest;
}

/** Tier 2: path, for files without a usable id. Returns the files still unmatched. */
function matchByPath(rest: ScannedFile[], records: PageRow[], claimed: Set<string>): ScannedFile[] {
  const liveByPath = new Map(records.filter((r) => r.deleted_at === null).map((r) => [r.path, r]));
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
  return unmatched;
}

/** Tier 3: content hash against records that have no file (recently deleted or vanished); else a new page. */
function matchByContent(unmatched: ScannedFile[], records: PageRow[], claimed: Set<string>): void {
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

function rank(s: ScannedFile, byId: Map<string, PageRow>): number {
  const id = s.file.meta.id;
  return id !== null && byId.get(id)?.path === s.path ? 0 : 1;
}
