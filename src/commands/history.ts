/**
 * `quire history -w <workspace id> <path> [--limit n] [--json]` and `quire restore -w <workspace
 * id> <path> --commit <commit> [--json]`: page history from the command line (docs/decisions/page-history.md),
 * through the same service as the API.
 *
 * Like `export` (docs/decisions/export-preview-quality.md): with no server running, the command takes the
 * single-writer lock — `history` reads whatever the index lacks from git first, `restore` builds
 * the services and waits for its commit; beside a running server `history` reads its database
 * read-only, and `restore` goes through the server's API with an API key (`--api-key` or
 * QUIRE_API_KEY), since only the server may write its data directory.
 */
import { OPEN } from "../access/restrictions/visibility.ts";
import { defineCommand } from "citty";
import { loadConfig } from "../config.ts";
import { AppError } from "../core/errors.ts";
import { isUlid } from "../core/ids.ts";
import { silentLogger } from "../core/log.ts";
import { openDatabase, openReadOnly, migrate, type Db } from "../db/database.ts";
import { EventBus } from "../core/event-bus.ts";
import { ContentLedger } from "../content/ledger.ts";
import type { ContentAccess } from "../content/rights.ts";
import { WorkspaceRecords, type WorkspaceRow } from "../workspaces/workspace-records.ts";
import { readRunState } from "../ops/runstate.ts";
import { HistoryService } from "../history/history-service.ts";
import { VersionIndex } from "../history/version-index.ts";
import type { VersionEntry } from "../history/schemas.ts";
import { CommandError } from "./exit.ts";
import { commandLogger, dataDirArg, existingDataDir } from "./shared.ts";

const workspaceArg = { type: "string", alias: "w", required: true, valueHint: "id", description: "Workspace id (ULID)" } as const;

export const historyCommand = defineCommand({
  meta: { name: "history", description: "List a page's versions (newest first, across renames)" },
  args: {
    workspace: workspaceArg,
    path: { type: "positional", required: true, description: "Page path, e.g. guides/setup.md" },
    limit: { type: "string", valueHint: "n", description: "How many versions (default 50, max 100)" },
    json: { type: "boolean", default: false, description: "Print the API's answer as JSON" },
    ...dataDirArg,
  },
  async run({ args }) {
    const page = await runHistory({ workspaceId: args.workspace, path: args.path, limit: args.limit, dataDir: args["data-dir"] });
    if (args.json) process.stdout.write(JSON.stringify(page) + "\n");
    else {
      for (const v of page.items) process.stdout.write(formatVersion(v) + "\n");
      if (page.items.length === 0) process.stdout.write("No versions recorded for this page.\n");
      if (!page.git) process.stdout.write("This workspace has no git history: versions come from git commits.\n");
    }
  },
});

export const restoreCommand = defineCommand({
  meta: { name: "restore", description: "Restore a version of a page as a new commit" },
  args: {
    workspace: workspaceArg,
    path: { type: "positional", required: true, description: "Page path" },
    commit: { type: "string", required: true, valueHint: "commit", description: "The version to restore (a commit id from quire history)" },
    "api-key": { type: "string", valueHint: "key", description: "Beside a running server: an API key (default: $QUIRE_API_KEY)" },
    json: { type: "boolean", default: false, description: "Print the restored page object as JSON" },
    ...dataDirArg,
  },
  async run({ args }) {
    const page = await runRestore({ workspaceId: args.workspace, path: args.path, commit: args.commit, apiKey: args["api-key"], dataDir: args["data-dir"] });
    if (args.json) process.stdout.write(JSON.stringify(page) + "\n");
    else process.stdout.write(`Restored ${page.path} to ${args.commit} (content_hash ${page.content_hash})\n`);
  },
});

function formatVersion(v: VersionEntry): string {
  const moved = v.old_path ? ` (moved from ${v.old_path})` : "";
  return `${v.commit.slice(0, 12)}  ${v.at}  ${v.channel.padEnd(8)} +${v.added} -${v.removed}  ${v.author.name} <${v.author.email}>  ${v.message.split("\n", 1)[0]}${moved}`;
}

/** The operator at the terminal: every right, acting as Quire itself. */
function operatorAccess(workspace: WorkspaceRow): ContentAccess {
  return { workspace, role: "admin", visibility: OPEN, actor: { id: null, name: "quire cli" }, origin: "API" };
}

function open(opts: { workspaceId: string; dataDir?: string | undefined }) {
  if (!isUlid(opts.workspaceId)) throw new CommandError(`--workspace must be a workspace id (ULID), got "${opts.workspaceId}"`, 2);
  return existingDataDir({ "data-dir": opts.dataDir });
}

function asCommandError(error: unknown): unknown {
  return error instanceof AppError ? new CommandError(error.message, 1) : error;
}

export async function runHistory(opts: { workspaceId: string; path: string; limit?: string | undefined; dataDir?: string | undefined }) {
  const limit = opts.limit === undefined ? 50 : Number(opts.limit);
  if (!(Number.isInteger(limit) && limit >= 1 && limit <= 100)) throw new CommandError(`--limit must be a whole number from 1 to 100, got "${opts.limit}"`, 2);
  const { dataDir, dbPath, lock } = open(opts);
  const db: Db = lock ? openDatabase(dbPath) : openReadOnly(dbPath);
  try {
    if (lock) migrate(db);
    const workspace = new WorkspaceRecords(db).byId(opts.workspaceId);
    if (!workspace) throw new CommandError(`No workspace with id ${opts.workspaceId} in ${dataDir}`, 1);
    const ledger = new ContentLedger({ db, dataDir, bus: new EventBus(), log: silentLogger });
    const index = new VersionIndex({ db, log: silentLogger, workTree: (id) => ledger.dir(id).root });
    if (lock) {
      // Alone: what git has and the index lacks is read first (a backfill the first time).
      await index.catchUp(workspace.id);
      await index.idle(workspace.id);
    }
    try {
      return await new HistoryService({ db, ledger, index }).versions(operatorAccess(workspace), opts.path, limit);
    } catch (error) {
      throw asCommandError(error);
    }
  } finally {
    db.close();
    lock?.release();
  }
}

export async function runRestore(opts: { workspaceId: string; path: string; commit: string; apiKey?: string | undefined; dataDir?: string | undefined }) {
  if (!/^[0-9a-f]{7,40}$/i.test(opts.commit)) throw new CommandError(`--commit must be a commit id (7 to 40 hex digits), got "${opts.commit}"`, 2);
  const { dataDir, lock } = open(opts);
  if (!lock) return restoreThroughServer(dataDir, opts);
  const config = loadConfig(process.env);
  const log = commandLogger(config, { command: "restore" });
  const { buildServices } = await import("../services.ts");
  let services;
  try {
    services = await buildServices({ config, dataDir, log });
  } catch (error) {
    lock.release();
    throw error;
  }
  try {
    const workspace = services.workspaces.byId(opts.workspaceId);
    if (!workspace) throw new CommandError(`No workspace with id ${opts.workspaceId} in ${dataDir}`, 1);
    const access = operatorAccess(workspace);
    await services.versionIndex.catchUp(workspace.id);
    await services.versionIndex.idle(workspace.id);
    try {
      const current = services.ledger.read(access, opts.path);
      const page = await services.history.restoreVersion(access, opts.path, opts.commit.toLowerCase(), current.content_hash);
      await services.gitSync.idle();
      return page;
    } catch (error) {
      throw asCommandError(error);
    }
  } finally {
    await services.closeAll();
    lock.release();
  }
}

/** Beside a running server: its API does the restore (the current hash read first, as a client would). */
async function restoreThroughServer(dataDir: string, opts: { workspaceId: string; path: string; commit: string; apiKey?: string | undefined }) {
  const key = (opts.apiKey ?? process.env.QUIRE_API_KEY ?? "").trim();
  const state = readRunState(dataDir);
  if (state === null || key === "") {
    throw new CommandError("A Quire server is running on this data directory: pass --api-key (or set QUIRE_API_KEY) to restore through it, or stop it first", 1);
  }
  const base = `http://127.0.0.1:${state.port}/api/v1`;
  const headers = { authorization: `Bearer ${key}`, "content-type": "application/json" };
  const ws = await (await fetch(`${base}/workspaces/${opts.workspaceId}`, { headers })).json().catch(() => null);
  const slug = (ws as { slug?: string } | null)?.slug;
  if (!slug) throw new CommandError(`No workspace with id ${opts.workspaceId} reachable with this key`, 1);
  const page = await fetch(`${base}/content/${slug}/${opts.path.replace(/^\//, "").split("/").map(encodeURIComponent).join("/")}`, { headers });
  const current = (await page.json()) as { content_hash?: string; message?: string };
  if (!page.ok || !current.content_hash) throw new CommandError(current.message ?? `could not read ${opts.path} (${page.status})`, 1);
  const res = await fetch(`${base}/workspaces/${opts.workspaceId}/history/restore`, {
    method: "POST",
    headers,
    body: JSON.stringify({ path: opts.path, commit: opts.commit.toLowerCase(), last_known_hash: current.content_hash }),
  });
  // The API's error shape: {error: "<CODE>", message}.
  const body = (await res.json()) as { path: string; content_hash: string; message?: string };
  if (!res.ok) throw new CommandError(body.message ?? `restore failed (${res.status})`, 1);
  return body;
}
