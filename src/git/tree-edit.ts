/**
 * Builds a commit's tree from the previous tree plus the changed entries, the way `git commit`
 * would after staging exactly those files, but without the index or the work tree: the blobs are
 * written from the bytes the caller already holds, only the trees on the changed paths are read
 * and rewritten, and everything else is shared with the previous commit by id.
 */
export interface TreeEntry {
  mode: string;
  path: string;
  oid: string;
  type: "blob" | "tree" | "commit";
}

/** A changed path: its new blob (and mode), or null when the file is gone. */
export type EntryChange = { oid: string; mode?: string } | null;

export interface TreeStore {
  readTree(oid: string): Promise<TreeEntry[]>;
  writeTree(entries: TreeEntry[]): Promise<string>;
}

const TREE_MODE = "040000";
const FILE_MODE = "100644";

/**
 * The id of the tree `base` becomes with `changes` (paths relative to it, `/`-separated) applied;
 * null when the result is empty (a folder whose last file went away disappears, as in git).
 * Unchanged trees keep their id, so nothing is written for them.
 */
export async function editTree(store: TreeStore, base: string | null, changes: Map<string, EntryChange>): Promise<string | null> {
  const entries = base ? [...(await store.readTree(base))] : [];
  const files = new Map<string, EntryChange>();
  const folders = new Map<string, Map<string, EntryChange>>();
  for (const [path, change] of changes) {
    const slash = path.indexOf("/");
    if (slash === -1) {
      files.set(path, change);
      continue;
    }
    const name = path.slice(0, slash);
    let sub = folders.get(name);
    if (!sub) folders.set(name, (sub = new Map()));
    sub.set(path.slice(slash + 1), change);
  }
  let changed = false;
  const indexOf = (name: string) => entries.findIndex((e) => e.path === name);
  for (const [name, change] of files) {
    const at = indexOf(name);
    const old = at === -1 ? null : entries[at]!;
    if (change === null) {
      if (old && old.type === "blob") {
        entries.splice(at, 1);
        changed = true;
      }
      continue;
    }
    // An executable bit survives an edit; anything else (a symlink replaced by a file) is a plain file.
    const mode = change.mode ?? (old?.mode === "100755" ? "100755" : FILE_MODE);
    if (old && old.oid === change.oid && old.mode === mode) continue;
    const entry: TreeEntry = { mode, path: name, oid: change.oid, type: "blob" };
    if (at === -1) entries.push(entry);
    else entries[at] = entry;
    changed = true;
  }
  for (const [name, sub] of folders) {
    const at = indexOf(name);
    const old = at === -1 ? null : entries[at]!;
    const before = old?.type === "tree" ? old.oid : null;
    const after = await editTree(store, before, sub);
    if (after === before) continue;
    if (at !== -1) entries.splice(at, 1);
    if (after !== null) entries.push({ mode: TREE_MODE, path: name, oid: after, type: "tree" });
    changed = true;
  }
  if (!changed) return base;
  if (entries.length === 0) return null;
  return store.writeTree(entries);
}
