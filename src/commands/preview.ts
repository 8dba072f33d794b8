/**
 * `quire preview -w <workspace> [-p 4000] [--drafts]`: a local server on 127.0.0.1 showing the
 * workspace's site as it will be published, rendered from the files on disk and reloading the open
 * tab when a file changes. It only reads (the database read-only, the files), so it runs with or
 * without a `quire serve` on the same data directory.
 */
import { defineCommand } from "citty";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { loadConfig } from "../config.ts";
import { isUlid } from "../core/ids.ts";
import type { WorkspaceRow } from "../workspaces/workspace-records.ts";
import { startPreview } from "../publish/preview/preview-server.ts";
import { CommandError } from "./exit.ts";
import { dataDirArg, dataDirFrom } from "./shared.ts";
import { openReadOnly } from "../db/database.ts";

export const previewCommand = defineCommand({
  meta: { name: "preview", description: "Serve a workspace's site locally, rendered from its files, reloading on every change" },
  args: {
    workspace: { type: "string", alias: "w", required: true, valueHint: "id|slug", description: "Workspace id (ULID) or slug" },
    port: { type: "string", alias: "p", default: "4000", valueHint: "port", description: "Port on 127.0.0.1 (0 picks a free one)" },
    drafts: { type: "boolean", default: false, description: "Also show unpublished pages, marked as drafts" },
    ...dataDirArg,
  },
  async run({ args }) {
    const port = Number(args.port);
    if (!/^\d+$/.test(String(args.port)) || port > 65535) throw new CommandError(`--port must be a number from 0 to 65535, got "${args.port}"`, 2);
    loadConfig(process.env);
    const { path: dataDir } = dataDirFrom({ "data-dir": args["data-dir"] });
    const dbPath = join(dataDir, "quire.db");
    if (!existsSync(dbPath)) throw new CommandError(`No Quire database in ${dataDir} (run \`quire init\` or \`quire serve\` first)`, 1);
    const db = openReadOnly(dbPath);
    const ref = args.workspace;
    const ws = db
      .query<WorkspaceRow, [string]>(`SELECT * FROM workspaces WHERE ${isUlid(ref) ? "id" : "slug"} = ? AND deleted_at IS NULL`)
      .get(ref);
    if (!ws) {
      db.close();
      throw new CommandError(`No workspace "${ref}" in ${dataDir}`, 1);
    }
    let preview;
    try {
      preview = await startPreview({ db, dataDir, workspaceId: ws.id, port, drafts: args.drafts });
    } catch (error) {
      db.close();
      const code = (error as NodeJS.ErrnoException).code;
      throw new CommandError(code === "EADDRINUSE" ? `Port ${port} is in use; pick another with --port` : `Could not start the preview: ${(error as Error).message}`, 1);
    }
    process.stdout.write(`Previewing "${ws.name}" at ${preview.url}${args.drafts ? " (drafts shown)" : ""} — Ctrl-C to stop\n`);
    await new Promise<void>((resolve) => {
      const stop = () => resolve();
      process.once("SIGINT", stop);
      process.once("SIGTERM", stop);
    });
    await preview.stop();
    db.close();
  },
});
