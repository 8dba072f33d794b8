import { existsSync, watch, type FSWatcher } from "node:fs";
import { join } from "node:path";
import type { Logger } from "../core/log.ts";
import { normalizePagePath } from "./paths.ts";
import type { ContentLedger } from "./ledger.ts";
import type { Reconciler } from "./reconcile.ts";

/**
 * Reconciliation after changes made outside Quire (an editor, a sync tool, a shell): one
 * recursive `fs.watch` per workspace folder. Changes are gathered for `debounceMs` after the last
 * one (at most `maxWaitMs` after the first, so a steady trickle still gets reconciled), then the
 * reconciler runs for that workspace through the workspace's single-writer queue.
 *
 * Ignored for pages: dot entries anywhere in the path (`.git/`, `.quire/`, the ledger's `.name.tmp`
 * files, editors' `.#locks`), the `assets/` folder (uploads are not pages), names that are neither
 * Markdown nor folder-like (swap and backup files: `page.md~`, `page.md.swp`), and the ledger's
 * own writes (the file still holds exactly what the ledger wrote, see OwnWrites).
 *
 * Every other file of the work tree (images under `assets/`, `.gitignore`, `.quire/` manifests, a
 * PDF beside a page) is not a page but still belongs in the workspace's history: those changes are
 * gathered on the same debounce and handed to `onFiles` listeners (git commits them, see
 * docs/decisions/git-commits.md §7). Only `.git/` and transient names (see `transientName`) are
 * left out here; which of the rest really changed, and what .gitignore says, is for the listener.
 */
interface FileWatcherOptions {
  ledger: ContentLedger;
  reconciler: Reconciler;
  log: Logger;
  debounceMs?: number;
  maxWaitMs?: number;
}

/** Told, after the debounce, of paths outside the pages that changed (relative, `/`-separated; may be folders). */
type FilesListener = (workspaceId: string, paths: string[]) => void;

interface Watched {
  watcher: FSWatcher;
  pending: Set<string>;
  /** Changed paths that are not pages, for the `onFiles` listeners. */
  files: Set<string>;
  timer: ReturnType<typeof setTimeout> | null;
  firstAt: number;
  running: Promise<void> | null;
}

export class FileWatcher {
  private readonly watched = new Map<string, Watched>();
  private readonly debounceMs: number;
  private readonly maxWaitMs: number;
  private closed = false;
  private readonly filesListeners: FilesListener[] = [];
  /** Passes started by the watcher (tests and the benchmark read it). */
  passes = 0;

  constructor(private readonly opts: FileWatcherOptions) {
    this.debounceMs = opts.debounceMs ?? 300;
    this.maxWaitMs = opts.maxWaitMs ?? 2_000;
  }

  /** Subscribes to changes of files that are not pages; returns the unsubscribe function. */
  onFiles(listener: FilesListener): () => void {
    this.filesListeners.push(listener);
    return () => {
      const at = this.filesListeners.indexOf(listener);
      if (at !== -1) this.filesListeners.splice(at, 1);
    };
  }

  /**
   * Starts watching a workspace's folder; watching twice is a no-op. A missing folder is not
   * created here (it may be an unmounted volume: the reconciler's safety stop reports it).
   */
  watch(workspaceId: string): void {
    if (this.closed || this.watched.has(workspaceId)) return;
    const dir = this.opts.ledger.dir(workspaceId);
    if (!existsSync(dir.root)) {
      this.opts.log.warn("workspace folder is missing; not watching it", { workspace_id: workspaceId });
      return;
    }
    let watcher: FSWatcher;
    try {
      watcher = watch(dir.root, { recursive: true }, (_event, filename) => this.changed(workspaceId, filename));
    } catch (error) {
      this.opts.log.warn("cannot watch workspace folder; changes outside Quire need `quire rebuild`", {
        workspace_id: workspaceId,
        error: String(error),
      });
      return;
    }
    watcher.on("error", (error) => {
      this.opts.log.warn("workspace folder watch failed", { workspace_id: workspaceId, error: String(error) });
      this.unwatch(workspaceId);
    });
    this.watched.set(workspaceId, { watcher, pending: new Set(), files: new Set(), timer: null, firstAt: 0, running: null });
  }

  /** Re-creates the watch (after something replaced the whole folder, e.g. a fresh clone). */
  rewatch(workspaceId: string): void {
    this.unwatch(workspaceId);
    this.watch(workspaceId);
  }

  /** Stops watching (a deleted workspace); the files stay where they are. */
  unwatch(workspaceId: string): void {
    const w = this.watched.get(workspaceId);
    if (!w) return;
    this.watched.delete(workspaceId);
    if (w.timer) clearTimeout(w.timer);
    w.watcher.close();
  }

  isWatching(workspaceId: string): boolean {
    return this.watched.has(workspaceId);
  }

  /** Stops every watch and waits for passes already running. */
  async close(): Promise<void> {
    this.closed = true;
    const running = [...this.watched.values()].map((w) => w.running);
    for (const id of [...this.watched.keys()]) this.unwatch(id);
    await Promise.all(running);
  }

  private changed(workspaceId: string, filename: string | Buffer | null): void {
    const w = this.watched.get(workspaceId);
    if (!w) return;
    const rel = filename === null ? null : String(filename).replaceAll("\\", "/");
    const page = rel === null || relevant(rel);
    const file = rel === null || nonPageFile(rel);
    if (!page && !file) return;
    if (w.pending.size === 0 && w.files.size === 0 && w.timer === null) w.firstAt = Date.now();
    if (page) w.pending.add(rel ?? "");
    if (file && this.filesListeners.length > 0) w.files.add(rel ?? "");
    if (w.timer) clearTimeout(w.timer);
    const wait = Math.max(0, Math.min(this.debounceMs, w.firstAt + this.maxWaitMs - Date.now()));
    w.timer = setTimeout(() => this.flush(workspaceId), wait);
  }

  private flush(workspaceId: string): void {
    const w = this.watched.get(workspaceId);
    if (!w) return;
    w.timer = null;
    if (w.files.size > 0) {
      // Not pages: no reconcile to wait for, the listeners (git) decide what changed.
      const files = [...w.files];
      w.files.clear();
      for (const listener of this.filesListeners) {
        try {
          listener(workspaceId, files);
        } catch (error) {
          this.opts.log.error("handling files changed on disk failed", { workspace_id: workspaceId, error: String(error) });
        }
      }
    }
    if (w.pending.size === 0) return;
    if (w.running) {
      // A pass is under way: look again when it ends (it may already have seen these changes).
      w.timer = setTimeout(() => this.flush(workspaceId), this.debounceMs);
      return;
    }
    const paths = [...w.pending];
    w.pending.clear();
    const root = this.opts.ledger.dir(workspaceId).root;
    const own = this.opts.ledger.ownWrites;
    // "" stands for an event without a name: something changed, so look.
    const foreign = paths.filter((p) => p === "" || !own.isOwn(join(root, p)));
    if (foreign.length === 0 || !existsSync(root)) return;
    this.passes++;
    w.running = this.opts.reconciler
      .reconcile(workspaceId, { source: "filesystem" })
      .then((r) => {
        if (r.aborted || r.problems.length > 0) {
          this.opts.log.warn("reconcile after a change on disk reported problems", {
            workspace_id: workspaceId,
            aborted: r.aborted,
            problems: r.problems.map((p) => `${p.kind}: ${p.path ?? ""}`).slice(0, 10),
          });
        }
      })
      .catch((error) => this.opts.log.error("reconcile after a change on disk failed", { workspace_id: workspaceId, error: String(error) }))
      .finally(() => {
        w.running = null;
      });
  }
}

/** Whether a changed relative path can matter to the pages of a workspace. */
function relevant(rel: string): boolean {
  const parts = rel.split("/");
  if (parts.some((p) => p.startsWith("."))) return false;
  if (parts[0] === "assets") return false;
  const name = parts[parts.length - 1]!;
  // Markdown files, and folder-like names (a renamed or removed folder reports only its own name).
  return name.endsWith(".md") || !name.includes(".");
}

/**
 * Whether a changed relative path may be a file (or folder of files) that is not a page: anything
 * outside `.git/` except transient names and Markdown pages. Folder-like names count for both
 * (a folder may hold pages and images alike).
 */
function nonPageFile(rel: string): boolean {
  if (rel === "") return true;
  const parts = rel.split("/");
  if (parts.some((p) => p === ".git")) return false;
  const name = parts[parts.length - 1]!;
  if (transientName(name)) return false;
  return !isPagePath(rel);
}

/**
 * Whether the reconciler takes this path for a page (the same rules as its folder walk): a
 * Markdown file outside dot folders and `assets/` whose name is a valid page path. A Markdown
 * file it skips for its name ("Notes?.md") is an ordinary file for the history.
 */
export function isPagePath(rel: string): boolean {
  if (!relevant(rel) || !rel.endsWith(".md")) return false;
  try {
    return normalizePagePath(rel) === rel;
  } catch {
    return false;
  }
}

/**
 * Names that only ever exist for a moment or belong to one machine, never to the history: the
 * ledger's and our atomic writes' temporaries (`.name.<12 hex>.tmp`), editors' swap, lock and
 * backup files, and operating-system litter.
 */
export function transientName(name: string): boolean {
  return (
    /^\..+\.[0-9a-f]{12}\.tmp$/.test(name) ||
    /^\..*\.sw[a-p]$/.test(name) ||
    name.endsWith("~") ||
    name.startsWith(".#") ||
    (name.startsWith("#") && name.endsWith("#")) ||
    name === ".DS_Store" ||
    name === "Thumbs.db" ||
    name === "desktop.ini"
  );
}
