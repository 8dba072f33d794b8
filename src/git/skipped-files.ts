import type { Logger } from "../core/log.ts";
import { MAX_DISK_FILE_BYTES, outsideHistory, type SkippedFile } from "./disk-files.ts";
import type { Repo } from "./repo.ts";

/**
 * Files other than pages that the history leaves out (too large, symlinks), per workspace, as
 * last seen. Every path that commits what a status walk found goes through `withinLimits`, so a
 * merge or a repair never commits by surprise what the disk-file commits skipped, and each
 * skipped file is logged once rather than on every walk.
 */
export class SkippedFiles {
  /** Per workspace: path → what was logged. */
  private readonly files = new Map<string, Map<string, SkippedFile>>();

  constructor(private readonly log: Logger) {}

  list(workspaceId: string): SkippedFile[] {
    return [...(this.files.get(workspaceId)?.values() ?? [])];
  }

  /**
   * A status walk's paths without the files the history leaves out. Files the pull itself wrote
   * (`pulled`) are the remote's and always go in.
   */
  withinLimits(workspaceId: string, repo: Repo, dirty: string[], pulled: Set<string>): string[] {
    const skipped: SkippedFile[] = [];
    const kept = dirty.filter((path) => {
      const out = pulled.has(path) ? null : outsideHistory(repo.dir, path);
      if (out) skipped.push(out);
      return out === null;
    });
    if (skipped.length > 0) this.note(workspaceId, skipped, []);
    return kept;
  }

  /** Logs a skipped file once (until it changes size); forgets files committed or gone since. */
  note(workspaceId: string, skipped: SkippedFile[], committed: string[]): void {
    let known = this.files.get(workspaceId);
    if (!known) this.files.set(workspaceId, (known = new Map()));
    for (const path of committed) known.delete(path);
    for (const file of skipped) {
      const before = known.get(file.path);
      known.set(file.path, file);
      if (before && before.size === file.size && before.reason === file.reason) continue;
      const why = file.reason === "too_large" ? `larger than the ${MAX_DISK_FILE_BYTES / (1024 * 1024)} MB limit` : file.reason === "symlink" ? "a symbolic link (never followed)" : "not a regular file";
      this.log.warn(`file on disk not committed: ${why}`, { workspace_id: workspaceId, path: file.path, size: file.size });
    }
  }
}
