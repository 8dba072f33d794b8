/**
 * `quire rebuild -w <id> [--search]`: reconciles a workspace's files with its page records (three
 * tiers: frontmatter id, path, content hash) and prints the counts; `--search` also rebuilds the
 * search index. Refuses to run beside a running instance (it would change what the server holds).
 */
import { Users } from "../identity/users.ts";
import { Restrictions } from "../access/restrictions/restrictions-service.ts";
import { defineCommand } from "citty";
import { join } from "node:path";
import { loadConfig } from "../config.ts";
import { isUlid } from "../core/ids.ts";
import { silentLogger } from "../core/log.ts";
import { openDatabase, migrate } from "../db/database.ts";
import { WorkspaceRecords } from "../workspaces/workspace-records.ts";
import { Permissions } from "../access/permissions.ts";
import { EventBus } from "../core/event-bus.ts";
import { ContentLedger } from "../content/ledger.ts";
import { Reconciler, type ReconcileResult } from "../content/reconcile.ts";
import { SearchService } from "../search/search-service.ts";
import { acquireLock } from "../ops/instance-lock.ts";
import { CommandError } from "./exit.ts";
import { dataDirArg, dataDirFrom } from "./shared.ts";

export const rebuildCommand = defineCommand({
  meta: { name: "rebuild", description: "Reconcile a workspace's files with the database (and optionally rebuild search)" },
  args: {
    workspace: { type: "string", alias: "w", required: true, valueHint: "id", description: "Workspace id (ULID)" },
    search: { type: "boolean", default: false, description: "Also rebuild the search index" },
    json: { type: "boolean", description: "Print the counts as one JSON object" },
    ...dataDirArg,
  },
  async run({ args }) {
    const { result, searchPages } = await rebuildWorkspace({ workspaceId: args.workspace, search: args.search, dataDir: args["data-dir"] });
    if (args.json) {
      const { inserted, updated, orphaned, recovered, problems } = result;
      process.stdout.write(JSON.stringify({ inserted, updated, orphaned, recovered, search_pages: searchPages, problems }) + "\n");
      return;
    }
    process.stdout.write(
      `inserted: ${result.inserted}\nupdated: ${result.updated}\norphaned: ${result.orphaned}\nrecovered: ${result.recovered}\n` +
        (searchPages !== null ? `search: ${searchPages} page(s) indexed\n` : ""),
    );
    for (const p of result.problems) process.stdout.write(`problem: ${p.kind} ${p.path ?? ""} ${p.message}\n`);
  },
});

export async function rebuildWorkspace(opts: {
  workspaceId: string;
  search?: boolean;
  dataDir?: string | undefined;
}): Promise<{ result: ReconcileResult; searchPages: number | null }> {
  if (!isUlid(opts.workspaceId)) throw new CommandError(`--workspace must be a workspace id (ULID), got "${opts.workspaceId}"`, 2);
  loadConfig(process.env);
  const { path: dataDir } = dataDirFrom({ "data-dir": opts.dataDir });
  const lock = acquireLock(dataDir);
  const db = openDatabase(join(dataDir, "quire.db"));
  try {
    migrate(db);
    const workspaces = new WorkspaceRecords(db);
    if (!workspaces.byId(opts.workspaceId)) throw new CommandError(`No workspace with id ${opts.workspaceId} in ${dataDir}`, 1);
    const bus = new EventBus();
    const ledger = new ContentLedger({ db, dataDir, bus, log: silentLogger });
    const result = await new Reconciler({ db, ledger, bus, log: silentLogger }).reconcile(opts.workspaceId);
    if (result.aborted) {
      throw new CommandError(`Reconciliation stopped, nothing was changed: ${result.problems[0]?.message ?? "unknown reason"}`, 1);
    }
    let searchPages: number | null = null;
    if (opts.search) {
      const search = new SearchService({ db, dataDir, bus, permissions: new Permissions(db, workspaces), restrictions: new Restrictions({ db, permissions: new Permissions(db, workspaces), users: new Users(db) }), workspaces, log: silentLogger });
      searchPages = search.rebuild(opts.workspaceId).pages;
    }
    return { result, searchPages };
  } finally {
    db.close();
    lock.release();
  }
}
