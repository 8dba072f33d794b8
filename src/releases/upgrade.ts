import { existsSync, linkSync, readdirSync, renameSync, rmSync, unlinkSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { openReadOnly } from "../db/database.ts";
import { checksumFor } from "./checksums.ts";
import { ReleaseFetcher } from "./download.ts";
import { ReleaseError } from "./errors.ts";
import { releaseFileName, releasePlatform } from "./platform.ts";
import { compareVersions, normalizeVersion } from "./versions.ts";

export interface UpgradeSource {
  /** The release location: `<url>/<vX.Y.Z or latest>/` holds manifest.json, SHA256SUMS and the files. */
  releaseUrl: string;
  /** Whether the location may be on a private, loopback or link-local address. */
  allowPrivate: boolean;
}

/** What `quire upgrade` would do: from which version to which, and whether the data allows it. */
interface UpgradePlan {
  current: string;
  target: string;
  /** `latest` or the pinned version: the folder of the release location the files come from. */
  folder: string;
  file: string;
  /** The database schema the target writes (its manifest's `schema`), when the manifest names it. */
  targetSchema: number | null;
  /** The schema of the data directory's database, when there is one. */
  dataSchema: number | null;
  /** Newer, older or the same as the running version. */
  direction: "upgrade" | "downgrade" | "same";
}

/**
 * Reads the target release's manifest.json (the newest unless `to` pins one) and compares it with
 * the running version and the data directory's database schema. Nothing is downloaded or changed.
 */
export async function planUpgrade(
  source: UpgradeSource,
  opts: { current: string; to?: string; dataDir?: string; platform?: string },
): Promise<UpgradePlan> {
  const base = source.releaseUrl.replace(/\/+$/, "");
  if (!base) throw new ReleaseError("no release location: set QUIRE_RELEASE_URL");
  let folder = "latest";
  if (opts.to !== undefined) {
    const pinned = normalizeVersion(opts.to);
    if (!pinned) throw new ReleaseError(`--to must be a version like v1.2.3, not ${JSON.stringify(opts.to)}`);
    folder = pinned;
  }
  const fetcher = new ReleaseFetcher(source.allowPrivate);
  const text = await fetcher.text(`${base}/${folder}/manifest.json`);
  let manifest: { version?: unknown; schema?: unknown };
  try {
    manifest = JSON.parse(text);
  } catch {
    throw new ReleaseError(`${base}/${folder}/manifest.json is not JSON`);
  }
  const target = typeof manifest.version === "string" ? normalizeVersion(manifest.version) : undefined;
  if (!target) throw new ReleaseError(`${base}/${folder}/manifest.json names no version`);
  if (folder !== "latest" && target !== folder) {
    throw new ReleaseError(`${base}/${folder}/manifest.json is the manifest of ${target}, not ${folder}`);
  }
  const cmp = compareVersions(target, opts.current);
  return {
    current: opts.current,
    target,
    folder,
    file: releaseFileName(target, opts.platform ?? releasePlatform()),
    targetSchema: typeof manifest.schema === "number" && Number.isInteger(manifest.schema) ? manifest.schema : null,
    dataSchema: opts.dataDir ? databaseSchema(join(opts.dataDir, "quire.db")) : null,
    direction: cmp > 0 ? "upgrade" : cmp < 0 ? "downgrade" : "same",
  };
}

/**
 * Why the plan must not run, or null. Migrations only go forward: a version whose schema is older
 * than the data directory's could not open it (it refuses a newer database), so going back to it
 * is refused here, before anything is downloaded.
 */
export function refusal(plan: UpgradePlan): string | null {
  if (plan.dataSchema === null) return null;
  if (plan.targetSchema === null) {
    return plan.direction === "downgrade"
      ? `${plan.target}'s manifest does not say which database schema it writes, and this data directory is at schema ${plan.dataSchema}: ` +
          "refusing a downgrade that might meet a newer database (migrations only go forward)"
      : null;
  }
  if (plan.targetSchema < plan.dataSchema) {
    return (
      `${plan.target} knows database schema up to ${plan.targetSchema}, but this data directory is at schema ${plan.dataSchema}: ` +
      "migrations only go forward, so it could not open it. Stay on this version, or restore a backup made before the upgrade to go back."
    );
  }
  return null;
}

/** The newest migration recorded in a database, or null when there is no database yet. */
function databaseSchema(dbPath: string): number | null {
  if (!existsSync(dbPath)) return null;
  const db = openReadOnly(dbPath);
  try {
    const row = db.query<{ v: number | null }, []>("SELECT MAX(version) AS v FROM schema_migrations").get();
    return row?.v ?? null;
  } catch {
    return null; // a database without the table: nothing migrated yet
  } finally {
    db.close();
  }
}

/** The steps the replacement reports, in order (the test kills an upgrade between them). */
type UpgradeStep = "downloaded" | "verified" | "old-kept" | "swapped" | "answered";

/**
 * Downloads the plan's file beside `binary`, verifies it against the release's SHA256SUMS and its
 * own `--version`, and puts it in place of `binary` so that at every moment a working executable
 * answers at that path:
 *
 * 1. `.<name>.upgrade-<pid>` is written beside it (same file system) and flushed to disk;
 * 2. its SHA-256 must be the one SHA256SUMS lists for it, and it must say `quire <target>`;
 * 3. the running one is kept as `<name>.old`: a hard link on POSIX (the path never goes missing);
 *    on Windows, where a running executable cannot be replaced but can be renamed, a rename;
 * 4. the new one is renamed over the path (atomic on POSIX);
 * 5. the path must answer `--version` with the target, else `.old` goes back; then `.old` is removed
 *    (on Windows it stays until the next upgrade, the running process holding it open).
 *
 * A run killed at any step leaves either the old or the new executable at the path; what it left
 * beside it (`.upgrade-*`, `.old`) is cleared by the next upgrade.
 */
export async function replaceBinary(
  plan: UpgradePlan,
  source: UpgradeSource,
  binary: string,
  onStep: (step: UpgradeStep, detail: string) => void = () => {},
): Promise<{ sha256: string; size: number }> {
  const base = source.releaseUrl.replace(/\/+$/, "");
  const dir = dirname(binary);
  const name = basename(binary);
  const windows = process.platform === "win32";
  const old = `${binary}.old`;
  clearLeftovers(dir, name, old);

  const fetcher = new ReleaseFetcher(source.allowPrivate);
  const sums = await fetcher.text(`${base}/${plan.folder}/SHA256SUMS`);
  const want = checksumFor(sums, plan.file);
  if (!want) throw new ReleaseError(`SHA256SUMS of ${base}/${plan.folder}/ does not list ${plan.file} (a checksum file of another version?); nothing was changed`);

  const tmp = join(dir, `.${name}.upgrade-${process.pid}`);
  try {
    const got = await fetcher.toFile(`${base}/${plan.folder}/${plan.file}`, tmp);
    onStep("downloaded", tmp);
    if (got.sha256 !== want) {
      throw new ReleaseError(`checksum mismatch for ${plan.file}: SHA256SUMS says ${want}, the download is ${got.sha256}; nothing was changed`);
    }
    const said = await versionOf(tmp);
    if (said !== `quire ${plan.target}`) {
      throw new ReleaseError(`the downloaded ${plan.file} does not run as quire ${plan.target} (it said: ${said || "nothing"}); nothing was changed`);
    }
    onStep("verified", got.sha256);

    if (windows) renameSync(binary, old);
    else linkSync(binary, old);
    onStep("old-kept", old);
    renameSync(tmp, binary);
    onStep("swapped", binary);

    const now = await versionOf(binary);
    if (now !== `quire ${plan.target}`) {
      // Put the old one back: on POSIX a rename over the new one, atomic like the swap.
      renameSync(old, binary);
      throw new ReleaseError(`the new executable did not answer --version (it said: ${now || "nothing"}); the old one was put back`);
    }
    onStep("answered", now);
    if (!windows) unlinkSync(old);
    return got;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "EACCES" || code === "EPERM") {
      throw new ReleaseError(`cannot write in ${dir} (${code}): run quire upgrade as the user who may replace ${binary}; nothing was changed`);
    }
    throw error;
  } finally {
    rmSync(tmp, { force: true });
  }
}

/** What a killed earlier upgrade left beside the executable: its partial downloads and `.old`. */
function clearLeftovers(dir: string, name: string, old: string): void {
  const partial = new RegExp(`^\\.${name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}\\.upgrade-\\d+$`);
  for (const entry of readdirSync(dir)) if (partial.test(entry)) rmSync(join(dir, entry), { force: true });
  // The executable at the path works (each step keeps it so); an `.old` beside it is no longer needed.
  // On Windows it may still be running (a server started before the last upgrade): then it stays.
  try {
    if (existsSync(old)) rmSync(old, { force: true });
  } catch {}
}

/** What an executable prints for `--version` (trimmed), or "" when it does not run. */
async function versionOf(path: string): Promise<string> {
  try {
    const proc = Bun.spawn([path, "--version"], { stdout: "pipe", stderr: "pipe", stdin: "ignore" });
    const timer = setTimeout(() => proc.kill(), 30_000);
    const [out, code] = await Promise.all([new Response(proc.stdout).text(), proc.exited]);
    clearTimeout(timer);
    return code === 0 ? out.trim() : "";
  } catch {
    return "";
  }
}
