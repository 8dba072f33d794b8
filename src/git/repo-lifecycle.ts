import { existsSync, mkdirSync, readdirSync, renameSync, rmdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { randomBase62 } from "../core/ids.ts";
import type { WorkspaceRow } from "../workspaces/workspace-records.ts";
import type { StagedFolder } from "../access/workspace-service.ts";
import { cloneInto } from "./clone.ts";
import { parseRemote } from "./remote-url.ts";
import { SYSTEM_AUTHOR, type Repo } from "./repo.ts";
import type { SkippedFiles } from "./skipped-files.ts";
import type { SyncContext } from "./sync-context.ts";
import type { Transport } from "./transport.ts";

/** Under `{DATA_DIR}/workspaces/`: clones of workspaces being created (never a ULID, so never a workspace). */
const STAGING_DIR = ".cloning";
/** In a clone's `.git/` until its workspace row is known to be committed. */
const CLONE_MARKER = "quire-create-pending";

/**
 * How a workspace's repository comes to exist: cloned from its remote before the workspace row
 * does (staged, then moved into place), or initialised in the work tree, committing the pages
 * already there. Also the clean-up of a creation a crash interrupted.
 */
export class RepoLifecycle {
  constructor(
    private readonly ctx: SyncContext,
    private readonly transport: Transport,
    private readonly skipped: SkippedFiles,
  ) {}

  /**
   * Clones a remote into a staging folder next to the workspace folders (same file system, so
   * the move into place is a rename) before the workspace row exists; the workspace service
   * moves it into place inside the row's transaction. A marker in `.git/` says "row not known to
   * be committed" until `done`; `cleanStaging` at start removes what a crash left. A failed clone
   * removes its folder (cloneInto) and throws the ValidationError that says why.
   */
  async prepareClone(remote: { url: string; branch: string; token: string | null }): Promise<StagedFolder> {
    const { dataDir, config, ledger } = this.ctx.deps;
    const staging = join(dataDir, "workspaces", STAGING_DIR);
    mkdirSync(staging, { recursive: true, mode: 0o700 });
    const tmp = join(staging, randomBase62(16));
    // The staging folder exists only while a clone is in flight (another may still use it).
    const tidy = () => {
      try {
        rmdirSync(staging);
      } catch {
        // not empty, or gone already
      }
    };
    try {
      await cloneInto({ dir: tmp, remote: remote.url, token: remote.token, branch: remote.branch, transport: this.transport, allowPrivate: config.git.allowPrivate });
      writeFileSync(join(tmp, ".git", CLONE_MARKER), "");
    } catch (error) {
      rmSync(tmp, { recursive: true, force: true });
      tidy();
      throw error;
    }
    let at = tmp;
    return {
      place: (workspaceId) => {
        const dest = ledger.dir(workspaceId).root;
        renameSync(tmp, dest);
        at = dest;
        tidy();
      },
      discard: () => {
        rmSync(at, { recursive: true, force: true });
        tidy();
      },
      done: () => rmSync(join(at, ".git", CLONE_MARKER), { force: true }),
    };
  }

  /**
   * After a crash mid-create: staging folders are removed; a workspace folder still marked is
   * removed when its row was never committed, else only the marker goes.
   */
  cleanStaging(): void {
    const root = join(this.ctx.deps.dataDir, "workspaces");
    rmSync(join(root, STAGING_DIR), { recursive: true, force: true });
    let names: string[];
    try {
      names = readdirSync(root);
    } catch {
      return;
    }
    const exists = this.ctx.deps.db.query<{ id: string }, [string]>("SELECT id FROM workspaces WHERE id = ?");
    for (const name of names) {
      if (!existsSync(join(root, name, ".git", CLONE_MARKER))) continue;
      if (exists.get(name)) rmSync(join(root, name, ".git", CLONE_MARKER), { force: true });
      else {
        rmSync(join(root, name), { recursive: true, force: true });
        this.ctx.deps.log.warn("removed the folder of a workspace whose creation did not finish", { folder: name });
      }
    }
  }

  /**
   * Local history for a workspace that has none yet (every workspace is a work tree), committing
   * the pages already there. Reads the work tree: run it with `withTree`.
   */
  async ensureRepo(ws: WorkspaceRow): Promise<Repo> {
    const repo = this.ctx.repo(ws.id);
    if (repo.exists()) return repo;
    this.requireFolder(ws.id);
    await repo.init(ws.git_branch);
    if (ws.git_remote) await repo.setRemote(parseRemote(ws.git_remote).url);
    const dirty = this.skipped.withinLimits(ws.id, repo, await repo.dirtyPaths(), new Set());
    if (dirty.length > 0) await repo.commitPaths(dirty, "Initial commit of existing pages via Quire", SYSTEM_AUTHOR);
    return repo;
  }

  /**
   * A repository for a workspace whose first write comes before any git set-up (the starter
   * workspace of a registration): init only; the writes that follow commit themselves.
   */
  async initRepo(ws: WorkspaceRow, repo: Repo): Promise<void> {
    if (repo.exists()) return;
    this.requireFolder(ws.id);
    await repo.init(ws.git_branch);
    if (ws.git_remote) await repo.setRemote(parseRemote(ws.git_remote).url);
  }

  /**
   * Git never creates a workspace folder: a missing one may be an unmounted volume, and an empty
   * repository in its place would hide that from the reconciler's safety stop.
   */
  private requireFolder(workspaceId: string): void {
    const root = this.ctx.deps.ledger.dir(workspaceId).root;
    if (!existsSync(root)) throw new Error(`workspace folder is missing: ${root}`);
  }
}
