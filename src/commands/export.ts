/**
 * `quire export -w <workspace id> [-o file] [--base-url url] [--threads n] [--json]`: the workspace's published
 * site as a static ZIP (docs/architecture.md §9), made by the same service as GET /api/v1/workspaces/:id/export.
 *
 * An export only reads the data directory, so it runs with or without a server
 * (docs/decisions/export-preview-quality.md): with none running it takes the single-writer lock for its duration
 * (so a server starting meanwhile waits for a consistent data directory, and migrations may run);
 * beside a running server it opens the database read-only (SQLite's WAL lets readers and the
 * server's writer work side by side) and reads the page files, which the server only ever replaces
 * by atomic renames. Either way it writes nothing but the ZIP, which must lie outside the data
 * directory.
 */
import { Users } from "../identity/users.ts";
import { Restrictions } from "../access/restrictions/restrictions-service.ts";
import { defineCommand } from "citty";
import { dirname, resolve, sep } from "node:path";
import { ValidationError } from "../core/errors.ts";
import { isUlid } from "../core/ids.ts";
import { silentLogger } from "../core/log.ts";
import { requireFreeSpace } from "../core/storage-errors.ts";
import { parseInput } from "../core/validate.ts";
import { openDatabase, openReadOnly, migrate, type Db } from "../db/database.ts";
import { migrations } from "../db/migrations/index.ts";
import { Permissions } from "../access/permissions.ts";
import { EventBus } from "../core/event-bus.ts";
import { ContentLedger } from "../content/ledger.ts";
import { WorkspaceRecords } from "../workspaces/workspace-records.ts";
import { exportInput } from "../publish/schemas.ts";
import { SiteExporter } from "../publish/export/exporter.ts";
import { ExportService } from "../publish/export/export-service.ts";
import { siteSourceOf, storeModelProvider } from "../publish/export/site-source.ts";
import { CommandError } from "./exit.ts";
import { dataDirArg, existingDataDir } from "./shared.ts";

export const exportCommand = defineCommand({
  meta: { name: "export", description: "Export a workspace's published site as a static ZIP (works from file:// and any static host)" },
  args: {
    workspace: { type: "string", alias: "w", required: true, valueHint: "id", description: "Workspace id (ULID)" },
    output: { type: "string", alias: "o", valueHint: "file", description: "ZIP file to write (default: <site-slug>-export.zip)" },
    "base-url": { type: "string", valueHint: "url", description: "Address the site will be published at (sitemap.xml, canonical links)" },
    threads: { type: "string", valueHint: "n", description: "Worker threads rendering pages beside the main one (default 0; for machines with idle cores)" },
    json: { type: "boolean", default: false, description: "Print {file, pages, bytes, ms} as JSON" },
    ...dataDirArg,
  },
  async run({ args }) {
    const result = await runExport({
      workspaceId: args.workspace,
      output: args.output,
      baseUrl: args["base-url"],
      dataDir: args["data-dir"],
      threads: args.threads,
      progress: !args.json && process.stderr.isTTY === true,
    });
    if (args.json) process.stdout.write(JSON.stringify(result) + "\n");
    else process.stdout.write(`Exported ${result.pages} page(s) to ${result.file} (${formatBytes(result.bytes)}) in ${result.ms} ms\n`);
  },
});

export async function runExport(opts: {
  workspaceId: string;
  output?: string | undefined;
  baseUrl?: string | undefined;
  dataDir?: string | undefined;
  threads?: string | undefined;
  progress?: boolean;
}): Promise<{ file: string; pages: number; bytes: number; ms: number }> {
  if (!isUlid(opts.workspaceId)) throw new CommandError(`--workspace must be a workspace id (ULID), got "${opts.workspaceId}"`, 2);
  const threads = opts.threads === undefined ? undefined : Number(opts.threads);
  if (threads !== undefined && !(Number.isInteger(threads) && threads >= 0 && threads <= 64)) {
    throw new CommandError(`--threads must be a whole number from 0 to 64, got "${opts.threads}"`, 2);
  }
  let baseUrl: string | null = null;
  try {
    baseUrl = parseInput(exportInput, opts.baseUrl === undefined ? {} : { base_url: opts.baseUrl }).base_url ?? null;
  } catch (error) {
    if (error instanceof ValidationError) throw new CommandError(`--base-url ${error.message.replace(/^base_url: /, "")}`, 2);
    throw error;
  }
  const { dataDir, dbPath, lock } = existingDataDir({ "data-dir": opts.dataDir });
  const db = lock ? openDatabase(dbPath) : openReadOnly(dbPath);
  try {
    if (lock) migrate(db);
    else requireCurrentSchema(db);
    const workspaces = new WorkspaceRecords(db);
    const workspace = workspaces.byId(opts.workspaceId);
    if (!workspace) throw new CommandError(`No workspace with id ${opts.workspaceId} in ${dataDir}`, 1);
    const output = resolve(opts.output ?? ExportService.filenameOf(workspace));
    if (output === resolve(dataDir) || output.startsWith(resolve(dataDir) + sep)) {
      throw new CommandError(`--output must be outside the data directory (${dataDir})`, 2);
    }
    const ledger = new ContentLedger({ db, dataDir, bus: new EventBus(), log: silentLogger });
    const exporter = new SiteExporter({ ledger, site: siteSourceOf(storeModelProvider({ db, ledger, restrictions: new Restrictions({ db, permissions: new Permissions(db, workspaces), users: new Users(db) }) }), workspaces) });
    // An export that would fill the disk is refused before it starts (docs/decisions/storage.md §6).
    requireFreeSpace(dirname(output), exporter.expectedBytes(workspace.id), "the export");
    const service = new ExportService({ permissions: new Permissions(db, workspaces), exporter, baseUrl: "" });
    const progress = opts.progress ? progressLine() : null;
    let result;
    try {
      result = await service.toFile(workspace.id, output, { baseUrl, threads, onProgress: progress?.update });
    } finally {
      progress?.done();
    }
    const { workerPages, ...summary } = result;
    // Workers asked for and none started (the same ZIP, made on this thread): said, not hidden.
    if (threads && summary.pages > 0 && workerPages === 0) {
      process.stderr.write("warning: no worker thread could start; every page was rendered on the main thread (the ZIP is the same)\n");
    }
    return summary;
  } finally {
    db.close();
    lock?.release();
  }
}

/** Beside a running server nothing may be migrated: its schema must already be the one this build knows. */
function requireCurrentSchema(db: Db): void {
  let applied = 0;
  try {
    applied = db.query<{ v: number | null }, []>("SELECT MAX(version) AS v FROM schema_migrations").get()?.v ?? 0;
  } catch {
    applied = 0;
  }
  const known = Math.max(...migrations.map((m) => m.version));
  if (applied < known) {
    throw new CommandError(
      "A running Quire server holds this data directory with an older database schema; stop it (quire stop) and run the export again, or export through its API",
      1,
    );
  }
}

/** A progress line on the terminal, redrawn at most ten times a second. */
function progressLine() {
  let last = 0;
  return {
    update(done: number, total: number) {
      const now = Date.now();
      if (now - last < 100 && done !== total) return;
      last = now;
      process.stderr.write(`\rExporting… ${done}/${total} pages`);
    },
    done() {
      if (last > 0) process.stderr.write("\r\x1b[K");
    },
  };
}

function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}
