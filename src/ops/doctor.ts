/**
 * `quire doctor`: the eleven checks of docs/architecture.md §13, by name and in order, each `pass`, `warn` or `fail` with a
 * message and a hint. Read-only: the databases are opened read-only, files are only read, and a
 * running server is left alone (it may hold the lock; doctor never takes it). Messages name
 * counts, workspace ids and file names of the instance, never page text, so the same results go
 * into a diagnostics bundle.
 */
import type { Database } from "bun:sqlite";
import { accessSync, constants, existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { ConfigError, loadConfig, type Config } from "../config.ts";
import { migrations } from "../db/migrations/index.ts";
import { hashOf } from "../content/page-file.ts";
import { resolveWikiTarget } from "../content/links.ts";
import { linkRegions } from "../content/link-regions.ts";
import { listBackups } from "./backup.ts";
import { openReadOnly } from "../db/database.ts";
import { diskSpace } from "../core/storage-errors.ts";

export const CHECK_NAMES = [
  "config",
  "data_dir",
  "storage",
  "database",
  "analytics_db",
  "git",
  "workspace_dirs",
  "sync_state",
  "fs_db_consistency",
  "wikilinks",
  "backups",
] as const;
type CheckName = (typeof CHECK_NAMES)[number];
type CheckStatus = "pass" | "warn" | "fail";

export interface CheckResult {
  name: CheckName;
  status: CheckStatus;
  message: string;
  /** What to do about it (empty when the check passed). */
  hint: string;
}

export interface DoctorReport {
  ok: boolean;
  checks: CheckResult[];
  ms: number;
}

interface Workspace {
  id: string;
  slug: string;
  sync_status: string;
  git_remote: string | null;
}

interface Context {
  dataDir: string;
  env: Record<string, string | undefined>;
  config: Config | null;
  db: Database | null;
  workspaces: Workspace[];
  /** Relative .md paths per workspace on disk (read once, shared by the checks). */
  files: Map<string, string[]>;
  /** One read of every page file, shared by fs_db_consistency and wikilinks. */
  scan: FileScan | null;
  /** The time the checks judge ages by (the backups', an index lock's). */
  now: number;
}

interface FileScan {
  onlyDisk: number;
  onlyDb: number;
  changed: number;
  mismatched: string[];
  links: number;
  broken: number;
  brokenIn: string[];
}

const pass = (name: CheckName, message: string): CheckResult => ({ name, status: "pass", message, hint: "" });
const warn = (name: CheckName, message: string, hint: string): CheckResult => ({ name, status: "warn", message, hint });
const fail = (name: CheckName, message: string, hint: string): CheckResult => ({ name, status: "fail", message, hint });
const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;
const DAY_MS = 24 * 3600_000;

/** Runs every check; `env` and `which` are parameters so tests can take git off the PATH. */
export function runDoctor(
  dataDir: string,
  opts: { env?: Record<string, string | undefined>; which?: (cmd: string, o?: { PATH?: string }) => string | null; now?: number } = {},
): DoctorReport {
  const started = performance.now();
  const env = opts.env ?? process.env;
  const ctx: Context = { dataDir, env, config: null, db: null, workspaces: [], files: new Map(), scan: null, now: opts.now ?? Date.now() };
  const checks: CheckResult[] = [];
  try {
    checks.push(checkConfig(ctx));
    checks.push(checkDataDir(ctx));
    checks.push(checkStorage(ctx));
    checks.push(checkDatabase(ctx));
    checks.push(checkAnalytics(ctx));
    checks.push(checkGit(env, opts.which ?? ((cmd, o) => Bun.which(cmd, o))));
    checks.push(checkWorkspaceDirs(ctx));
    checks.push(checkSyncState(ctx));
    if (ctx.db) ctx.scan = scanFiles(ctx);
    checks.push(checkConsistency(ctx));
    checks.push(checkWikilinks(ctx));
    checks.push(checkBackups(ctx, ctx.now));
  } finally {
    ctx.db?.close();
  }
  return { ok: checks.every((c) => c.status !== "fail"), checks, ms: performance.now() - started };
}

function checkConfig(ctx: Context): CheckResult {
  try {
    ctx.config = loadConfig(ctx.env);
  } catch (error) {
    if (error instanceof ConfigError) {
      return fail("config", `${plural(error.problems.length, "problem")}: ${error.problems.join("; ")}`, "fix the environment variables named (README: Configuration)");
    }
    throw error;
  }
  const c = ctx.config;
  if (c.env === "production" && c.baseUrl.startsWith("http://") && !/\/\/(localhost|127\.0\.0\.1)[:/]?/.test(c.baseUrl + "/")) {
    return warn("config", `BASE_URL is plain http in production (${c.baseUrl})`, "serve over https (a reverse proxy) and set BASE_URL to the https address");
  }
  return pass("config", `valid (${c.env}, edition ${c.edition}${c.smtp ? ", email on" : ", no email"})`);
}

function checkDataDir(ctx: Context): CheckResult {
  const d = ctx.dataDir;
  if (!existsSync(d)) return fail("data_dir", `${d} does not exist`, "run `quire init` or `quire serve` to create it, or pass the right --data-dir");
  const st = statSync(d);
  if (!st.isDirectory()) return fail("data_dir", `${d} is not a directory`, "point --data-dir (or DATA_DIR) at a directory");
  try {
    accessSync(d, constants.R_OK | constants.W_OK | constants.X_OK);
  } catch {
    return fail("data_dir", `${d} is not readable and writable by this user`, "run Quire as the directory's owner, or fix its permissions");
  }
  if ((st.mode & 0o077) !== 0) {
    return warn("data_dir", `${d} can be read by other users (mode ${(st.mode & 0o777).toString(8)})`, `chmod 700 ${d}`);
  }
  return pass("data_dir", `${d} (mode 700)`);
}

/**
 * The data directory's filesystem: free space (warn under STORAGE_MIN_FREE_MB, fail when none is
 * left), inode use (warn past 90 %, fail when none is left) and whether it takes writes. `access`
 * says EROFS for a read-only mount without writing anything, so doctor stays read-only.
 */
function checkStorage(ctx: Context): CheckResult {
  const d = ctx.dataDir;
  if (!existsSync(d)) return warn("storage", "skipped: the data directory does not exist", "fix the data_dir check first");
  const space = diskSpace(d);
  if (!space) return warn("storage", `the free space of ${d}'s filesystem cannot be read`, "check the mount with `df -h` and `df -i`");
  const mb = (n: number) => `${Math.floor(n / (1024 * 1024))} MB`;
  const inodesUsed = space.totalInodes > 0 ? (space.totalInodes - space.freeInodes) / space.totalInodes : 0;
  const summary = `${mb(space.freeBytes)} free of ${mb(space.totalBytes)}, ${Math.round(inodesUsed * 100)} % of inodes used`;
  try {
    accessSync(d, constants.W_OK);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EROFS") {
      return fail("storage", `${d} is on a read-only filesystem (${summary}): every save answers 503`, "remount it read-write (a filesystem remounted read-only after errors needs fsck first)");
    }
  }
  const freeUp = "free space: old backups ({DATA_DIR}/backups), diagnostics bundles, logs, or grow the volume";
  if (space.freeBytes === 0 || (space.totalInodes > 0 && space.freeInodes === 0)) {
    return fail("storage", `the disk is full (${summary}): every save answers 507 INSUFFICIENT_STORAGE`, freeUp);
  }
  const minFree = (ctx.config?.storage.minFreeMb ?? 200) * 1024 * 1024;
  if (space.freeBytes < minFree) return warn("storage", `${summary}: under STORAGE_MIN_FREE_MB (${mb(minFree)})`, freeUp);
  if (inodesUsed > 0.9) return warn("storage", `${summary}: few inodes left`, "remove many small files no longer needed, or grow the volume");
  return pass("storage", summary);
}

function checkDatabase(ctx: Context): CheckResult {
  const path = join(ctx.dataDir, "quire.db");
  if (!existsSync(path)) return fail("database", "quire.db is missing", "run `quire init` (or start `quire serve`), or restore a backup (README: Backups)");
  let db: Database;
  try {
    db = openReadOnly(path, { busyTimeoutMs: 2000 });
    const result = db.query<{ quick_check: string }, []>("PRAGMA quick_check").all();
    if (result.length !== 1 || result[0]!.quick_check !== "ok") {
      db.close();
      return fail("database", `quire.db is damaged: ${result.slice(0, 3).map((r) => r.quick_check).join("; ")}`, "stop the server and restore the newest backup (README: Backups)");
    }
  } catch (error) {
    return fail("database", `quire.db cannot be read: ${(error as Error).message}`, "stop the server and restore the newest backup (README: Backups)");
  }
  ctx.db = db;
  let applied: number[] = [];
  try {
    applied = db.query<{ version: number }, []>("SELECT version FROM schema_migrations").all().map((r) => r.version);
    ctx.workspaces = db
      .query<Workspace, []>("SELECT id, slug, sync_status, git_remote FROM workspaces WHERE deleted_at IS NULL ORDER BY slug")
      .all();
  } catch (error) {
    ctx.db = null;
    db.close();
    return fail("database", `quire.db is not a Quire database (${(error as Error).message})`, "check --data-dir; restore a backup if this is the right directory");
  }
  const pending = migrations.filter((m) => !applied.includes(m.version)).length;
  const newer = applied.filter((v) => !migrations.some((m) => m.version === v)).length;
  if (newer > 0) return warn("database", `quire.db was written by a newer Quire (${plural(newer, "unknown migration")})`, "run the newer version of Quire");
  if (pending > 0) return warn("database", `${plural(pending, "migration")} not yet applied`, "start `quire serve` once: it applies them");
  return pass("database", `integrity ok, schema current, ${plural(ctx.workspaces.length, "workspace")}`);
}

function checkAnalytics(ctx: Context): CheckResult {
  const path = join(ctx.dataDir, "analytics.db");
  if (!existsSync(path)) return warn("analytics_db", "analytics.db does not exist yet", "it is created when the server first records analytics; nothing to do");
  try {
    const db = openReadOnly(path, { busyTimeoutMs: 2000 });
    try {
      const result = db.query<{ quick_check: string }, []>("PRAGMA quick_check").all();
      if (result.length !== 1 || result[0]!.quick_check !== "ok") {
        return fail("analytics_db", "analytics.db is damaged", "stop the server and restore analytics.db from backups/, or delete it (analytics start again)");
      }
    } finally {
      db.close();
    }
  } catch (error) {
    return fail("analytics_db", `analytics.db cannot be read: ${(error as Error).message}`, "stop the server and restore analytics.db from backups/, or delete it");
  }
  return pass("analytics_db", "integrity ok");
}

function checkGit(env: Record<string, string | undefined>, which: (cmd: string, o?: { PATH?: string }) => string | null): CheckResult {
  const git = which("git", env.PATH !== undefined ? { PATH: env.PATH } : undefined);
  if (!git) {
    return warn("git", "the git command is not installed (or not on PATH)", "install git for SSH remotes and local-path remotes; HTTPS sync works without it");
  }
  const run = Bun.spawnSync([git, "--version"], { stdout: "pipe", stderr: "ignore", env: { PATH: env.PATH ?? "" } });
  if (run.exitCode !== 0) return warn("git", `${git} does not run`, "reinstall git");
  return pass("git", new TextDecoder().decode(run.stdout).trim());
}

const noDatabase = (name: CheckName) => warn(name, "skipped: the database could not be read", "fix the database check first");

function checkWorkspaceDirs(ctx: Context): CheckResult {
  if (!ctx.db) return noDatabase("workspace_dirs");
  const missing: string[] = [];
  const noGit: string[] = [];
  const locked: string[] = [];
  for (const ws of ctx.workspaces) {
    const dir = join(ctx.dataDir, "workspaces", ws.id);
    if (!existsSync(dir) || !statSync(dir).isDirectory()) {
      missing.push(ws.slug);
      continue;
    }
    if (!existsSync(join(dir, ".git"))) noGit.push(ws.slug);
    else if (indexLockAgeMs(dir, ctx.now) >= LONG_HELD_INDEX_LOCK_MS) locked.push(ws.slug);
    ctx.files.set(ws.id, markdownFiles(dir));
  }
  if (missing.length > 0) {
    return fail(
      "workspace_dirs",
      `${plural(missing.length, "workspace folder")} missing: ${missing.join(", ")}`,
      "restore workspaces/<id>/ from a copy or clone it again from its remote; the pages' records are kept until then",
    );
  }
  if (noGit.length > 0) {
    return warn("workspace_dirs", `${plural(noGit.length, "workspace")} without git history: ${noGit.join(", ")}`, "start the server: it initialises the repository");
  }
  if (locked.length > 0) {
    return warn(
      "workspace_dirs",
      `.git/index.lock held for over ${LONG_HELD_INDEX_LOCK_MS / 60_000} minutes in ${locked.join(", ")}: the git index is not kept up to date there`,
      "a git command is running in that folder (a commit waiting for its editor), or one was killed: finish it, or remove .git/index.lock if none is running",
    );
  }
  return pass("workspace_dirs", `${plural(ctx.workspaces.length, "workspace folder")} present, each a git work tree`);
}

/**
 * A git command holds `.git/index.lock` for moments; one held this long is an editor left open or
 * a command killed, and the server waits for it rather than remove it (docs/decisions/git-commits.md §15).
 */
const LONG_HELD_INDEX_LOCK_MS = 5 * 60_000;

/** How long the work tree's index lock has existed (0: none). */
function indexLockAgeMs(dir: string, now: number): number {
  try {
    return Math.max(0, now - statSync(join(dir, ".git", "index.lock")).mtimeMs);
  } catch {
    return 0;
  }
}

/** Relative paths of the Markdown files as the reconciler sees them (no dot entries, assets/ or symlinks). */
function markdownFiles(root: string, rel = ""): string[] {
  const out: string[] = [];
  let entries;
  try {
    entries = readdirSync(rel === "" ? root : join(root, rel), { withFileTypes: true });
  } catch {
    return out;
  }
  for (const e of entries) {
    if (e.name.startsWith(".") || e.isSymbolicLink()) continue;
    const path = rel === "" ? e.name : `${rel}/${e.name}`;
    if (e.isDirectory()) {
      if (!(rel === "" && e.name === "assets")) out.push(...markdownFiles(root, path));
    } else if (e.isFile() && e.name.endsWith(".md")) out.push(path);
  }
  return out;
}

function checkSyncState(ctx: Context): CheckResult {
  if (!ctx.db) return noDatabase("sync_state");
  const errors = ctx.workspaces.filter((w) => w.sync_status === "error").map((w) => w.slug);
  const conflicts = ctx.workspaces.filter((w) => w.sync_status === "conflict").map((w) => w.slug);
  const remotes = ctx.workspaces.filter((w) => w.git_remote).length;
  if (errors.length > 0) {
    return warn("sync_state", `git sync failing for ${errors.join(", ")}`, "see the workspace's git settings for the error; check the remote's address and access token");
  }
  if (conflicts.length > 0) {
    return warn("sync_state", `open sync conflicts in ${conflicts.join(", ")}`, "resolve them in the web app (the page's conflict banner) or through the conflicts API");
  }
  return pass("sync_state", remotes === 0 ? "no workspace syncs with a remote" : `${plural(remotes, "workspace")} in sync with its remote`);
}

const WIKILINK = /\[\[([^\[\]|#\n]+?)(#[^\[\]|\n]*)?(\|[^\[\]\n]*)?\]\]/g;

/**
 * Reads every page file once: its hash against its record, and its wikilinks against the files
 * present. Links are matched on the raw text first; only a file with a link that points nowhere
 * is read the way the ledger reads it (marked's lexer: code blocks and spans hold no links), so a
 * workspace whose links resolve costs no Markdown parsing at all.
 */
function scanFiles(ctx: Context): FileScan {
  const scan: FileScan = { onlyDisk: 0, onlyDb: 0, changed: 0, mismatched: [], links: 0, broken: 0, brokenIn: [] };
  const records = ctx.db!.query<{ path: string; content_hash: string }, [string]>(
    "SELECT path, content_hash FROM pages WHERE workspace_id = ? AND deleted_at IS NULL",
  );
  for (const ws of ctx.workspaces) {
    const files = ctx.files.get(ws.id);
    if (!files) continue; // its folder is missing: workspace_dirs reports it
    const dir = join(ctx.dataDir, "workspaces", ws.id);
    const present = new Set(files);
    const known = new Map(records.all(ws.id).map((r) => [r.path, r.content_hash]));
    const differences = scan.onlyDisk + scan.onlyDb + scan.changed;
    let broken = 0;
    for (const path of files) {
      let text: string;
      try {
        text = readFileSync(join(dir, path), "utf8");
      } catch {
        continue; // removed while we looked
      }
      const hash = known.get(path);
      if (hash === undefined) scan.onlyDisk++;
      else if (hashOf(text) !== hash) scan.changed++;
      known.delete(path);
      if (!text.includes("[[")) continue;
      const count = (t: string) => {
        let links = 0;
        let missing = 0;
        for (const m of t.matchAll(WIKILINK)) {
          links++;
          const target = resolveWikiTarget(m[1]!, path, (p) => present.has(p));
          if (target === null || !present.has(target)) missing++;
        }
        return { links, missing };
      };
      let found = count(text);
      if (found.missing > 0) found = count(linkRegions(text).view);
      scan.links += found.links;
      broken += found.missing;
    }
    scan.onlyDb += known.size;
    if (scan.onlyDisk + scan.onlyDb + scan.changed > differences) scan.mismatched.push(ws.slug);
    if (broken > 0) scan.brokenIn.push(ws.slug);
    scan.broken += broken;
  }
  return scan;
}

function checkConsistency(ctx: Context): CheckResult {
  const scan = ctx.scan;
  if (!scan) return noDatabase("fs_db_consistency");
  if (scan.mismatched.length === 0) return pass("fs_db_consistency", "every page file matches its record");
  const parts = [
    scan.onlyDisk && `${plural(scan.onlyDisk, "file")} without a record`,
    scan.onlyDb && `${plural(scan.onlyDb, "record")} without a file`,
    scan.changed && `${plural(scan.changed, "file")} changed since indexed`,
  ].filter(Boolean);
  return warn(
    "fs_db_consistency",
    `${parts.join(", ")} (in ${scan.mismatched.join(", ")})`,
    "a running server reconciles changes on its own; otherwise run `quire rebuild -w <workspace-id>`",
  );
}

function checkWikilinks(ctx: Context): CheckResult {
  const scan = ctx.scan;
  if (!scan) return noDatabase("wikilinks");
  if (scan.broken > 0) {
    return warn(
      "wikilinks",
      `${plural(scan.broken, "wikilink")} of ${scan.links} point at no page (in ${scan.brokenIn.join(", ")})`,
      "create the missing pages or fix the links; the editor shows broken links",
    );
  }
  return pass("wikilinks", scan.links === 0 ? "no wikilinks" : `all ${plural(scan.links, "wikilink")} resolve`);
}

function checkBackups(ctx: Context, now: number): CheckResult {
  const enabled = ctx.config?.backup.enabled ?? true;
  const newest = listBackups(ctx.dataDir).find((b) => b.database === "quire");
  if (!newest) {
    return enabled
      ? warn("backups", "no backup yet", "run `quire backup` now; a running server makes one a day")
      : warn("backups", "backups are off (BACKUP_ENABLED=false) and none exists", "set BACKUP_ENABLED=true or run `quire backup` from a scheduler");
  }
  const ageH = Math.floor((now - newest.at) / 3600_000);
  if (now - newest.at > 2 * DAY_MS) {
    return warn("backups", `the newest backup is ${Math.floor(ageH / 24)} days old (${newest.name})`, "run `quire backup`; check that the server runs with BACKUP_ENABLED=true");
  }
  return pass("backups", `newest ${newest.name} (${ageH} h old)`);
}
