/**
 * `quire doctor --bundle`: `{DATA_DIR}/diagnostics-<timestamp>.zip` for a support request —
 * system facts, the check results, the configuration and the server's recent log lines. Never
 * page content, password hashes, tokens, API keys, the pepper or private keys: the configuration
 * goes through the logger's field redaction plus an explicit list, and every text that goes in
 * is scrubbed of anything shaped like a secret (and of email addresses) before it is zipped.
 */
import { rmSync, statfsSync, writeFileSync } from "node:fs";
import { arch, cpus, freemem, platform, release, totalmem } from "node:os";
import { join } from "node:path";
import { zipSync, strToU8 } from "fflate";
import type { Config } from "../config.ts";
import { redact } from "../core/log.ts";
import { requireFreeSpace } from "../core/storage-errors.ts";
import { BUILD_DATE, COMMIT, VERSION } from "../version.ts";
import { backupStamp } from "./backup.ts";
import type { DoctorReport } from "./doctor.ts";
import { recentLogLines } from "./log-file.ts";
import { readRunState } from "./runstate.ts";

/** Free space the bundle leaves behind it at least: the server still has to write. */
const BUNDLE_SPARE_BYTES = 1024 * 1024;

const SCRUBS: Array<[RegExp, string]> = [
  [/-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(-----END [A-Z ]*PRIVATE KEY-----|$)/g, "[private key]"],
  [/\b(quire|svc)_live_[0-9A-Za-z]+/g, "[api key]"],
  [/\b(sk|rk)_(live|test)_[0-9A-Za-z]+|\bwhsec_[0-9A-Za-z_]+/g, "[payment provider secret]"],
  [/\beyJ[0-9A-Za-z_-]+\.[0-9A-Za-z_-]+\.[0-9A-Za-z_-]*/g, "[jwt]"],
  [/\b(Bearer|Basic)\s+[^\s"',]+/gi, "$1 [redacted]"],
  [/\$argon2(id|i|d)\$[^\s"']+/g, "[password hash]"],
  [/\b[0-9a-fA-F]{32,}\b/g, "[hex secret]"],
  [/\b[0-9A-Za-z+_-]{40,}={0,2}/g, "[long token]"],
  // Base64 with slashes (salts, keys): a free-standing run of 32+ characters mixing digits, upper
  // and lower case. Runs that continue a name or a path (after '-', '.', '_' or '/') are left alone.
  [/(?<![A-Za-z0-9+/._-])(?=[A-Za-z0-9+/]*\d)(?=[A-Za-z0-9+/]*[A-Z])(?=[A-Za-z0-9+/]*[a-z])[A-Za-z0-9+/]{32,}={0,2}/g, "[base64 secret]"],
  [/(\/\/)[^/\s:@"']+:[^/\s@"']*@/g, "$1[credentials]@"],
  [/([?&](?:token|key|secret|password|code|access_token|refresh_token)=)[^&\s"']+/gi, "$1[redacted]"],
  [/[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}/g, "[email]"],
];

/** Removes anything shaped like a secret, a private key or an email address. */
export function scrub(text: string): string {
  let out = text;
  for (const [pattern, replacement] of SCRUBS) out = out.replace(pattern, replacement);
  return out;
}

/** The configuration with every secret value replaced; what is set stays visible. */
export function redactedConfig(config: Config | null): unknown {
  if (!config) return null;
  const copy = structuredClone(config) as Config & Record<string, unknown>;
  if (copy.apiKeyPepper) copy.apiKeyPepper = "[redacted]";
  if (copy.smtp) copy.smtp = { ...copy.smtp, ...(copy.smtp.pass ? { pass: "[redacted]" } : {}), ...(copy.smtp.user ? { user: "[redacted]" } : {}) };
  return redact(copy);
}

function systemInfo(dataDir: string, dataDirRule: string) {
  let disk: { free_bytes: number; total_bytes: number } | null = null;
  try {
    const s = statfsSync(dataDir);
    disk = { free_bytes: s.bavail * s.bsize, total_bytes: s.blocks * s.bsize };
  } catch {
    disk = null;
  }
  const rs = readRunState(dataDir);
  return {
    quire: { version: VERSION, commit: COMMIT, built: BUILD_DATE },
    bun: Bun.version,
    os: { platform: platform(), release: release(), arch: arch(), cpus: cpus().length, memory_bytes: totalmem(), free_memory_bytes: freemem() },
    data_dir: { path: dataDir, rule: dataDirRule, disk },
    // Who the run state names (a crash may have left it); the control token is never read.
    runstate: rs ? { pid: rs.pid, port: rs.port, version: rs.version, started_at: rs.started_at } : null,
    generated_at: new Date().toISOString(),
  };
}

/** Writes the bundle and returns its path. */
export function writeDiagnosticsBundle(opts: {
  dataDir: string;
  dataDirRule: string;
  report: DoctorReport;
  config: Config | null;
  now?: number;
}): string {
  const json = (v: unknown) => strToU8(scrub(JSON.stringify(v, null, 2)) + "\n");
  const logs = recentLogLines(opts.dataDir).map(scrub);
  const files = {
    "README.txt": strToU8(
      "Quire diagnostics. system.json: versions, OS, disk; checks.json: `quire doctor` results;\n" +
        "config.json: configuration with secrets redacted; logs.txt: the server's recent log lines,\n" +
        "secrets and email addresses scrubbed. No page content, password hashes, tokens or keys.\n",
    ),
    "system.json": json(systemInfo(opts.dataDir, opts.dataDirRule)),
    "checks.json": json({ ok: opts.report.ok, checks: opts.report.checks }),
    "config.json": json(redactedConfig(opts.config)),
    "logs.txt": strToU8(logs.length > 0 ? logs.join("\n") + "\n" : "(no server log file in the data directory yet)\n"),
  };
  const path = join(opts.dataDir, `diagnostics-${backupStamp(opts.now ?? Date.now())}.zip`);
  const zip = zipSync(files, { level: 6 });
  // The bundle is made in memory, so its size is known: refused before writing when the data
  // directory's disk cannot take it with room to spare (a bundle is asked for when things go
  // wrong, a full disk among them), and a write cut short leaves no truncated file.
  requireFreeSpace(opts.dataDir, zip.length + BUNDLE_SPARE_BYTES, "the diagnostics bundle");
  try {
    writeFileSync(path, zip, { mode: 0o600 });
  } catch (error) {
    rmSync(path, { force: true });
    throw error;
  }
  return path;
}
