/**
 * `quire init`: creates the data directory, the database and the signing key when absent, and a
 * workspace attached to the server-level default organization, then indexes the Markdown files
 * already in its folder. Refuses to run beside a running instance (the single-writer lock).
 */
import { Restrictions } from "../access/restrictions/restrictions-service.ts";
import { defineCommand } from "citty";
import { join } from "node:path";
import { loadConfig } from "../config.ts";
import { isAbsolute } from "node:path";
import { ConflictError, ValidationError } from "../core/errors.ts";
import { gitRemoteProblem } from "../workspaces/git-remote.ts";
import { GitSync } from "../git/sync-service.ts";
import { Repo, SYSTEM_AUTHOR } from "../git/repo.ts";
import { silentLogger } from "../core/log.ts";
import { nowIso } from "../core/clock.ts";
import { parseInput } from "../core/validate.ts";
import { initWorkspaceInput } from "../workspaces/workspace-schemas.ts";
import { openDatabase, migrate } from "../db/database.ts";
import { loadOrCreateSigningKey } from "../identity/signing-key.ts";
import { Organizations } from "../identity/organizations.ts";
import { Users } from "../identity/users.ts";
import { WorkspaceRecords, type WorkspaceRow } from "../workspaces/workspace-records.ts";
import { WorkspaceService } from "../access/workspace-service.ts";
import { Permissions } from "../access/permissions.ts";
import { EventBus } from "../core/event-bus.ts";
import { ContentLedger } from "../content/ledger.ts";
import { Reconciler, type ReconcileResult } from "../content/reconcile.ts";
import { acquireLock } from "../ops/instance-lock.ts";
import { CommandError } from "./exit.ts";
import { dataDirArg, dataDirFrom } from "./shared.ts";

export const initCommand = defineCommand({
  meta: { name: "init", description: "Create the data directory and a workspace, and index its Markdown files" },
  args: {
    "workspace-name": { type: "string", required: true, valueHint: "name", description: "Name of the workspace" },
    slug: { type: "string", required: true, valueHint: "slug", description: "URL name of the workspace (lowercase letters, digits, hyphens)" },
    "git-url": { type: "string", valueHint: "url", description: "Git remote to clone (HTTPS or SSH URL, or a local path)" },
    branch: { type: "string", default: "main", valueHint: "branch", description: "Git branch" },
    json: { type: "boolean", description: "Print the workspace and what was indexed as one JSON object" },
    ...dataDirArg,
  },
  async run({ args }) {
    const { workspace, result, dataDir } = await initWorkspace({
      name: args["workspace-name"],
      slug: args.slug,
      gitUrl: args["git-url"],
      branch: args.branch,
      dataDir: args["data-dir"],
    });
    if (args.json) {
      const { inserted, problems } = result;
      process.stdout.write(JSON.stringify({ workspace: { id: workspace.id, name: workspace.name, slug: workspace.slug }, data_dir: dataDir, inserted, problems }) + "\n");
      return;
    }
    process.stdout.write(
      `Created workspace "${workspace.name}" (slug ${workspace.slug}, id ${workspace.id}) in ${dataDir}\n` +
        `Indexed ${result.inserted} page(s) from ${join(dataDir, "workspaces", workspace.id)}\n`,
    );
    for (const p of result.problems) process.stdout.write(`  problem: ${p.path ?? ""} ${p.message}\n`);
  },
});

export async function initWorkspace(opts: {
  name: string;
  slug: string;
  gitUrl?: string | undefined;
  branch?: string | undefined;
  dataDir?: string | undefined;
}): Promise<{ workspace: WorkspaceRow; result: ReconcileResult; dataDir: string }> {
  const gitUrl = opts.gitUrl !== undefined && opts.gitUrl !== "" ? opts.gitUrl : null;
  const input = parseInput(initWorkspaceInput, { name: opts.name, slug: opts.slug, branch: opts.branch ?? "main" });
  // The operator may name a local path (absolute); the API never accepts one.
  if (gitUrl !== null && !isAbsolute(gitUrl)) {
    const problem = gitRemoteProblem(gitUrl);
    if (problem) throw new ValidationError(`--git-url ${problem}`, "git_url");
  }
  const config = loadConfig(process.env);
  const { path: dataDir } = dataDirFrom({ "data-dir": opts.dataDir });
  const lock = acquireLock(dataDir);
  const db = openDatabase(join(dataDir, "quire.db"));
  try {
    migrate(db);
    await loadOrCreateSigningKey(config.jwtKeyPath ?? join(dataDir, "jwt-private.pem"));
    const workspaces = new WorkspaceRecords(db);
    if (workspaces.slugTaken(input.slug)) {
      throw new ConflictError(`A workspace with the slug "${input.slug}" already exists`, undefined, { field: "slug" });
    }
    const bus = new EventBus();
    const ledger = new ContentLedger({ db, dataDir, bus, log: silentLogger });
    const reconciler = new Reconciler({ db, ledger, bus, log: silentLogger });
    // The workspace service creates the row, in the default organization; from a remote, git
    // sync clones it first (a failed clone leaves no workspace behind: no row, no folder).
    const gitSync = new GitSync({ db, config, dataDir, log: silentLogger, ledger, reconciler, bus, workspaces, users: new Users(db) });
    const permissions = new Permissions(db, workspaces);
    const restrictions = new Restrictions({ db, permissions, users: new Users(db) });
    const workspaceService = new WorkspaceService({ db, records: workspaces, permissions, restrictions });
    workspaceService.prepareRemote = (remote) => gitSync.prepareClone(remote);
    let workspace: WorkspaceRow;
    try {
      workspace = await workspaceService.createForOperator({
        name: input.name,
        slug: input.slug,
        git_remote: gitUrl,
        git_branch: input.branch,
        orgId: (now) => new Organizations(db).defaultOrganization(now).id,
      });
    } catch (error) {
      if (gitUrl === null || error instanceof ConflictError) throw error;
      throw new CommandError((error as Error).message.replace(/^git_remote: /, "--git-url: "), 1);
    }
    const dir = ledger.dir(workspace.id).root;
    if (gitUrl === null) ledger.dir(workspace.id).ensure();
    const result = await reconciler.reconcile(workspace.id);
    // Every workspace is a git work tree; the files as indexed (ids added) are its next commit.
    const repo = new Repo(dir);
    if (!repo.exists()) await repo.init(input.branch);
    const dirty = await repo.dirtyPaths();
    if (dirty.length > 0) await repo.commitPaths(dirty, gitUrl ? "Add page ids via Quire" : "Initial commit via Quire", SYSTEM_AUTHOR);
    if (gitUrl !== null) {
      const status = dirty.length > 0 ? "ahead" : "synced"; // the server pushes what is ahead on its first sync
      workspaces.update(workspace.id, { sync_status: status }, nowIso());
    }
    return { workspace: workspaces.byId(workspace.id) ?? workspace, result, dataDir };
  } finally {
    db.close();
    lock.release();
  }
}
