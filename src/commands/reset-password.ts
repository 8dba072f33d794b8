/**
 * `quire reset-password --email <e>`: prints a single-use reset link valid for one hour, for
 * instances without email. It opens the data directory's database directly, which is safe while
 * a server runs: it only adds a row, and SQLite serializes writers.
 */
import { defineCommand } from "citty";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { openDatabase, migrate } from "../db/database.ts";
import { Users } from "../identity/users.ts";
import { Sessions } from "../identity/sessions.ts";
import { ARGON2_DEFAULTS, createPasswordHasher } from "../identity/passwords.ts";
import { PasswordResets } from "../identity/password-resets.ts";
import { CommandError } from "./exit.ts";
import { dataDirArg, dataDirFrom } from "./shared.ts";

const DEFAULT_BASE_URL = "http://localhost:3000";

export const resetPasswordCommand = defineCommand({
  meta: { name: "reset-password", description: "Print a single-use password reset link (valid 1 hour)" },
  args: {
    email: { type: "string", required: true, valueHint: "email", description: "Email address of the account" },
    "base-url": {
      type: "string",
      valueHint: "url",
      description: `Public address of the instance, used in the link (default: $BASE_URL, else ${DEFAULT_BASE_URL})`,
    },
    json: { type: "boolean", description: "Print the link and its expiry as one JSON object" },
    ...dataDirArg,
  },
  run({ args }) {
    const baseUrl = chooseBaseUrl(args["base-url"], process.env.BASE_URL);
    const { path: dataDir } = dataDirFrom(args);
    const dbPath = join(dataDir, "quire.db");
    // Never create an empty database in a mistyped directory.
    if (!existsSync(dbPath)) throw new CommandError(`No Quire database in ${dataDir} (use --data-dir or DATA_DIR)`, 1);
    const db = openDatabase(dbPath);
    try {
      migrate(db);
      const resets = new PasswordResets({
        db,
        users: new Users(db),
        sessions: new Sessions(db),
        // Not used to issue a link; the service needs a hasher only to apply one.
        passwords: createPasswordHasher(ARGON2_DEFAULTS),
        baseUrl,
      });
      const issued = resets.issueForEmail(args.email);
      if (!issued) throw new CommandError(`No account has the email address ${JSON.stringify(args.email.trim())}`, 1);
      if (args.json) {
        process.stdout.write(JSON.stringify({ url: issued.url, expires_at: issued.expiresAt }) + "\n");
        return;
      }
      // The link alone on stdout, so `quire reset-password ... > link.txt` captures exactly it.
      process.stderr.write(`Password reset link for ${args.email.trim()} (single use, valid until ${issued.expiresAt}):\n`);
      process.stdout.write(`${issued.url}\n`);
    } finally {
      db.close();
    }
  },
});

/** --base-url > BASE_URL > http://localhost:3000; must be an http(s) URL. */
function chooseBaseUrl(flag: string | undefined, env: string | undefined): string {
  const raw = flag?.trim() || env?.trim() || DEFAULT_BASE_URL;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new CommandError(`--base-url / BASE_URL must be an http(s) URL (got "${raw}")`, 2);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new CommandError(`--base-url / BASE_URL must be an http(s) URL (got "${raw}")`, 2);
  }
  return raw.replace(/\/+$/, "");
}
