import { readFileSync } from "node:fs";
import type { ContentLedger } from "./ledger.ts";

/** An upload named in a page: `…/uploads/{name}` (the editor's links) or `assets/{name}` (relative links). */
const REFERENCE = /(?:\/uploads\/|(?:^|[^A-Za-z0-9_-])assets\/)([A-Za-z0-9][A-Za-z0-9._-]{0,199})/g;

/**
 * Which pages name each upload, for restricted folders (docs/decisions/restricted-folders.md): an
 * upload only restricted pages use is as hidden as they are. Built from the page files when a
 * reader with restrictions first asks, kept until the records change; a workspace without rules
 * never builds it.
 */
export class UploadReferences {
  private readonly kept = new Map<string, { mark: string; refs: Map<string, string[]> }>();

  constructor(private readonly ledger: ContentLedger) {}

  pagesNaming(workspaceId: string, filename: string): string[] {
    const mark = this.ledger.records.changeMark();
    let entry = this.kept.get(workspaceId);
    if (entry?.mark !== mark) {
      entry = { mark, refs: this.build(workspaceId) };
      this.kept.set(workspaceId, entry);
    }
    return entry.refs.get(filename) ?? [];
  }

  private build(workspaceId: string): Map<string, string[]> {
    const refs = new Map<string, string[]>();
    const dir = this.ledger.dir(workspaceId);
    for (const row of this.ledger.records.liveIn(workspaceId)) {
      let text: string;
      try {
        text = readFileSync(dir.resolveInside(row.path), "utf8");
      } catch {
        continue;
      }
      for (const m of text.matchAll(REFERENCE)) {
        const list = refs.get(m[1]!) ?? [];
        if (!list.includes(row.path)) list.push(row.path);
        refs.set(m[1]!, list);
      }
    }
    return refs;
  }
}
