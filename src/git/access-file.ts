import { mkdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import type { Logger } from "../core/log.ts";
import { writeFileAtomic } from "../content/atomic-write.ts";
import type { ContentLedger } from "../content/ledger.ts";
import type { WorkspaceRecords } from "../workspaces/workspace-records.ts";
import { ACCESS_FILE } from "../access/restrictions/access-file.ts";
import type { AccessFileHooks } from "../access/restrictions/restrictions-service.ts";
import type { GitSync } from "./sync-service.ts";

/**
 * The work tree's side of restricted folders (docs/decisions/restricted-folders.md): reading
 * `.quire/access.yaml`, writing it as the workspace's single writer and committing it through
 * the git worker as the admin who changed the rules (when the workspace commits automatically).
 */
export function accessFileHooks(deps: { ledger: ContentLedger; gitSync: GitSync; workspaces: WorkspaceRecords; log: Logger }): AccessFileHooks {
  const { ledger, gitSync, workspaces, log } = deps;
  const fileOf = (workspaceId: string) => join(ledger.dir(workspaceId).root, ACCESS_FILE);
  return {
    read(workspaceId) {
      try {
        return readFileSync(fileOf(workspaceId), "utf8");
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
        throw error;
      }
    },
    async write(workspaceId, text, author) {
      const commit = await ledger.exclusive(workspaceId, () => {
        const abs = fileOf(workspaceId);
        const data = text();
        mkdirSync(dirname(abs), { recursive: true, mode: 0o700 });
        ledger.ownWrites.note(abs, data);
        writeFileAtomic(abs, data);
        if (workspaces.byId(workspaceId)?.git_auto_commit !== 1) return null;
        // Queued while the writer is held, awaited after it is let go (a wrapped promise is not awaited here).
        return { pending: gitSync.commitFiles(workspaceId, [{ path: ACCESS_FILE, data }], `Update ${ACCESS_FILE} via Quire`, { name: author.name || "Quire", email: author.email }) };
      });
      // The rules are in force already; a commit that fails is retried with the next one and reported.
      const oid = await commit?.pending.catch((error) => {
        log.error("commit of .quire/access.yaml failed", { workspace_id: workspaceId, error: String(error) });
        return null;
      });
      if (oid && workspaces.byId(workspaceId)?.git_remote) gitSync.schedulePush(workspaceId);
    },
    exists(workspaceId, path) {
      return path.endsWith("/") ? ledger.records.anyLiveUnder(workspaceId, path) : ledger.records.live(workspaceId, path) !== null;
    },
  };
}
