/**
 * Killed mid-burst: a real `quire serve` takes page writes from four clients (each its own account
 * and workspace with a loopback remote) and is killed with SIGKILL while the git worker is still
 * behind; restarted on the same data directory, it must keep every promise an acknowledged save
 * made — the page holds it (or a later save that was in flight), whole, with the hash the save
 * returned, findable by search — and repair the history: what was not committed is committed
 * (a recovery commit) and pushed, and `git status` in each work tree is clean.
 */
import { expect, test } from "bun:test";
import { crashRun } from "../helpers/crash-run.ts";

test("SIGKILL mid-burst, restart: every acknowledged save on disk, committed, pushed and searchable", async () => {
  const r = await crashRun({ clients: 4, writesPerClient: 40, pagesPerClient: 5, killAfter: 70, settleMs: 25_000 });
  expect(r.acknowledged).toBeGreaterThanOrEqual(70);
  expect({
    lost: r.lost,
    torn: r.torn,
    stale: r.stale,
    hashMismatches: r.hashMismatches,
    searchMisses: r.searchMisses,
    uncommittedAfterRestart: r.uncommittedAfterRestart,
    missingOnRemote: r.missingOnRemote,
    dirtyStatus: r.dirtyStatus,
    errorLogs: r.errorLogs,
  }).toEqual({ lost: 0, torn: 0, stale: 0, hashMismatches: 0, searchMisses: 0, uncommittedAfterRestart: 0, missingOnRemote: 0, dirtyStatus: [], errorLogs: [] });
  // Saves the worker had not committed at the kill are what the recovery commits hold.
  if (r.uncommittedAtKill > 0) expect(r.recoveryCommits).toBeGreaterThan(0);
  console.log(`crash test: sent ${r.sent}, acknowledged ${r.acknowledged}, uncommitted at the kill ${r.uncommittedAtKill}, recovery commits ${r.recoveryCommits}, settled in ${Math.round(r.settleMs)} ms`);
}, 60_000);
