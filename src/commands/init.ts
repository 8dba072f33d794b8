/**
 * `quire init`: creates the data directory, the database and the signing key when absent, and a
 * workspace attached to the server-level default organization, then indexes the Markdown files
 * already in its folder. Refuses to run beside a running instance (the single-writer lock).
 */
import { defineCommand } from "citty";
import { join } from "node:path";
import { z } from "zod";
import { loadConfig } from "../config.ts";
import { ConflictError } from "../core/errors.ts";
import { silentLogger } from "../core/log.ts";
import { nowIso } from "../core/clock.ts";
import { displayName, parseInput, slug } from "../core/validate.ts";
import { openDatabase, migrate } from "../db/database.ts";
import { loadOrCreateSigningKey } from "../identity/signing-key.ts";
import { Organizations } from "../identity/organizations.ts";
import { WorkspaceRecords, type WorkspaceRow } from "../workspaces/workspace-records.ts";
import { EventBus } from "../realtime/event-bus.ts";
import { ContentLedger } from "../content/ledger.ts";
import { Reconciler, type ReconcileResult } from "../content/reconcile.ts";
import { acquireLock } from "../ops/instance-lock.ts";
import { CommandError } from "./exit.ts";
import { dataDirArg, dataDirFrom } from "./shared.ts";

const initInput = z.object({ name: displayName(100), slug });

export const initCommand = defineCommand({
  meta: { name: "init", description: "Create the data directory and a workspace, and index its Markdown files" },
  args: {
    "workspace-name": { type: "string", required: true, valueHint: "name", description: "Name of the workspace" },
    slug: { type: "string", required: true, valueHint: "slug", description: "URL name of the workspace (lowercase letters, digits, hyphens)" },
    "git-url": { type: "string", valueHint: "url", description: "Git remote to clone (not supported yet)" },
    branch: { type: "string", default: "main", valueHint: "branch", description: "Git branch" },
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
  if (opts.gitUrl !== undefined && opts.gitUrl !== "") {
    throw new CommandError("--git-url is not supported yet: git sync is still being built; run init without it and add the remote later", 1);
  }
  const input = parseInput(initInput, { name: opts.name, slug: opts.slug });
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
    const now = nowIso();
    const workspace = db.transaction(() => {
      const org = new Organizations(db).defaultOrganization(now);
      return workspaces.insert({ orgId: org.id, name: input.name, slug: input.slug, gitBranch: opts.branch ?? "main", createdBy: null, now });
    })();
    const bus = new EventBus();
    const ledger = new ContentLedger({ db, dataDir, bus, log: silentLogger });
    ledger.dir(workspace.id).ensure();
    const result = await new Reconciler({ db, ledger, bus, log: silentLogger }).reconcile(workspace.id);
    return { workspace, result, dataDir };
  } finally {
    db.close();
    lock.release();
  }
}
