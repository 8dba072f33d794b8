/**
 * `quire backup`: one online backup now of quire.db (and analytics.db when present) into
 * `{DATA_DIR}/backups/` (src/ops/backup.ts). Safe while a server runs: it only reads the
 * databases, through SQLite, and adds files to backups/. Exit 0 done; 1 failed (no database).
 */
import { defineCommand } from "citty";
import { backupNow, NoDatabaseError } from "../ops/backup.ts";
import { CommandError } from "./exit.ts";
import { dataDirArg, dataDirFrom } from "./shared.ts";

export const backupCommand = defineCommand({
  meta: {
    name: "backup",
    description: "Make a consistent copy of quire.db and analytics.db in <data-dir>/backups now (safe while the server runs)",
  },
  args: {
    json: { type: "boolean", description: "Print the files made as one JSON object" },
    ...dataDirArg,
  },
  run({ args }) {
    const { path: dataDir } = dataDirFrom(args);
    let result;
    try {
      result = backupNow(dataDir);
    } catch (error) {
      if (error instanceof NoDatabaseError) throw new CommandError(error.message, 1);
      throw error;
    }
    if (args.json) {
      process.stdout.write(JSON.stringify({ stamp: result.stamp, files: result.files, ms: Math.round(result.ms) }) + "\n");
      return;
    }
    for (const f of result.files) process.stdout.write(`${f.path} (${f.bytes} bytes)\n`);
  },
});
