/**
 * `bun bench/crash.ts [kill|lag ...]`: what survives a SIGKILL, and how far the git worker lags.
 *   kill: 1,000 page writes from 20 clients (each its own account and workspace with a loopback
 *         remote, 50 writes over 5 pages) to a real `quire serve` child, killed with SIGKILL after
 *         10 %, 35 %, 60 % and 85 % of the writes were acknowledged, restarted on the same data
 *         directory; per kill point: sent, acknowledged, lost, torn, stale, uncommitted at the kill
 *         and after the restart (once the repair has run), missing on the remote, search misses.
 *   lag:  the worst commit lag during a 1,100-save burst into one workspace (bench/commit-lag.ts),
 *         one author and four authors.
 * A script, not a test (the small version is test/git/crash-recovery.test.ts).
 */
import { crashRun, type CrashRunResult } from "../test/helpers/crash-run.ts";
import { lagRows, measureLag } from "./commit-lag.ts";
import { ms, printTable, type Row } from "./harness.ts";

const CLIENTS = 20;
const WRITES = 50; // per client: 1,000 in all, under the API's 60 writes a minute per organization
const KILL_POINTS = [0.1, 0.35, 0.6, 0.85];

function killTable(results: Array<{ at: number; r: CrashRunResult }>): void {
  const head = ["kill point", "sent", "acknowledged", "lost", "torn", "stale", "uncommitted at kill", "uncommitted after restart", "missing on remote", "search misses", "recovery commits", "repaired in"];
  const rows = results.map(({ at, r }) => [
    `${Math.round(at * 100)} % (${Math.round(at * CLIENTS * WRITES)} acks)`,
    String(r.sent),
    String(r.acknowledged),
    String(r.lost),
    String(r.torn),
    String(r.stale),
    String(r.uncommittedAtKill),
    String(r.uncommittedAfterRestart),
    String(r.missingOnRemote),
    String(r.searchMisses),
    String(r.recoveryCommits),
    ms(r.settleMs),
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i]!)).join(" | ")} |`;
  console.log(`\nSIGKILL mid-burst: ${CLIENTS * WRITES} writes from ${CLIENTS} clients, restart on the same data directory\n`);
  console.log(line(head));
  console.log(`|${widths.map((w) => "-".repeat(w + 2)).join("|")}|`);
  for (const r of rows) console.log(line(r));
  for (const { at, r } of results) {
    const extra = [r.dirtyWorkTrees > 0 ? `${r.dirtyWorkTrees} work trees not clean: ${r.dirtyStatus.join(" / ")}` : "", r.hashMismatches > 0 ? `${r.hashMismatches} hash mismatches` : "", r.errorLogs.length > 0 ? `${r.errorLogs.length} error log lines: ${r.errorLogs[0]}` : ""].filter(Boolean);
    if (extra.length > 0) console.log(`  at ${Math.round(at * 100)} %: ${extra.join("; ")}`);
  }
}

const wanted = new Set(process.argv.slice(2));
const all = wanted.size === 0;
if (all || wanted.has("kill")) {
  const results: Array<{ at: number; r: CrashRunResult }> = [];
  for (const at of KILL_POINTS) {
    results.push({ at, r: await crashRun({ clients: CLIENTS, writesPerClient: WRITES, pagesPerClient: 5, killAfter: Math.round(at * CLIENTS * WRITES), settleMs: 90_000 }) });
  }
  killTable(results);
}
if (all || wanted.has("lag")) {
  const rows: Row[] = [];
  rows.push(...lagRows(await measureLag(1100, 20, 1), "1 author: "));
  rows.push(...lagRows(await measureLag(1100, 20, 4), "4 authors: "));
  printTable("Commit lag: 1,100 saves from 20 clients into one workspace", rows);
}
process.exit(0);
