import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import type { PageRow } from "../../content/page-records.ts";
import { hashOf, readPageFile } from "../../content/page-file.ts";
import type { WorkspaceRow } from "../../workspaces/workspace-records.ts";
import { readSettings } from "../../access/workspace-settings.ts";
import { readManifests } from "../site/manifests.ts";
import { buildSiteModel, isPublished, type SiteModel } from "../site/model.ts";

/**
 * The preview's site model, read straight from the workspace's files (not from the page records,
 * which a server may not be running to keep up to date): every `.md` file outside hidden folders,
 * its frontmatter, its modification time. With `drafts`, unpublished pages are on the site too and
 * listed in `drafts` so the page can say so.
 */
interface FileModel {
  model: SiteModel;
  drafts: Set<string>;
}

const MAX_FILES = 20_000;

export function fileModel(ws: WorkspaceRow, root: string, opts: { drafts: boolean; sortOrder?: Map<string, number | null> }): FileModel | null {
  const rows: PageRow[] = [];
  const manifests = readManifests(root);
  const drafts = new Set<string>();
  const unreadable = new Set<string>();
  for (const path of markdownFiles(root)) {
    let text: string;
    let mtime: string;
    try {
      text = readFileSync(join(root, path), "utf8");
      mtime = statSync(join(root, path)).mtime.toISOString();
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") continue; // removed since the listing
      // Listed but unreadable (permissions, an I/O error): the page stays on the preview under its
      // file name, so the writer opens it and reads why (the render error page) instead of finding
      // it silently missing. Nothing of it can show: nothing of it was read.
      text = "";
      mtime = new Date(0).toISOString();
      unreadable.add(path);
    }
    const file = readPageFile(text, path);
    const row: PageRow = {
      id: file.meta.id ?? `file:${path}`,
      workspace_id: ws.id,
      path,
      title: file.meta.title,
      description: file.meta.description,
      tags: JSON.stringify(file.meta.tags),
      status: file.meta.status,
      publish: file.meta.publish ? 1 : 0,
      nav_order: file.meta.navOrder,
      sort_order: opts.sortOrder?.get(path) ?? null,
      content_hash: hashOf(text),
      frontmatter_hash: hashOf(file.split.block),
      created_by: null,
      updated_by: null,
      updated_by_name: null,
      created_at: mtime,
      updated_at: mtime,
      deleted_at: null,
      file_stat: null,
    };
    if (unreadable.has(path)) {
      row.publish = 1; // titled from its file name by readPageFile
    } else if (opts.drafts && !isPublished(row, manifests)) {
      drafts.add(path);
      row.publish = 1;
    }
    rows.push(row);
  }
  if (opts.drafts && manifests.publish) {
    // The overlay may take pages off the site; a drafts preview shows them anyway.
    for (const path of drafts) manifests.publish.set(path, true);
  }
  const settings = readSettings(ws);
  const model = buildSiteModel({
    workspace: ws,
    theme: settings.theme,
    visibility: settings.visibility,
    rows,
    manifests,
    versions: [],
    movedRedirects: new Map(),
  });
  return model ? { model, drafts } : null;
}

/** Workspace-relative paths of the Markdown files, skipping hidden files and folders (`.git/`, `.quire/`). */
function markdownFiles(root: string): string[] {
  const out: string[] = [];
  const walk = (dir: string, prefix: string) => {
    let entries;
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries.sort((a, b) => (a.name < b.name ? -1 : 1))) {
      if (e.name.startsWith(".") || out.length >= MAX_FILES) continue;
      const rel = prefix + e.name;
      if (e.isDirectory()) walk(join(dir, e.name), rel + "/");
      else if (e.isFile() && e.name.toLowerCase().endsWith(".md")) out.push(rel);
    }
  };
  walk(root, "");
  return out;
}
