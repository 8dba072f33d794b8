/**
 * A hostile crash run against a real `quire serve` child: clients write pages (each client signed
 * in as its own account, into its own workspace cloned from its own loopback remote), the server
 * is killed with SIGKILL once a given number of saves were acknowledged, restarted on the same
 * data directory, and everything an acknowledged save promised is checked: the page holds it (or
 * a later version that was in flight), whole, findable by search, committed, and on the remote.
 * Used by test/git/crash-recovery.test.ts (small) and bench/crash.ts (1,000 writes, four kill points).
 */
import { createHash } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "./client.ts";
import { git, startGitHttpRemote, tryGit, type GitHttpRemote } from "./git-remote.ts";
import { startServe, type ServeProcess } from "../cli/spawn.ts";

export interface CrashRunOptions {
  clients: number;
  writesPerClient: number;
  pagesPerClient: number;
  /** SIGKILL once this many saves (over all clients) were acknowledged. */
  killAfter: number;
  /** How long to wait after the restart for the history to be repaired and pushed. */
  settleMs?: number;
}

export interface CrashRunResult {
  sent: number;
  acknowledged: number;
  /** Acknowledged saves whose page is gone after the restart. */
  lost: number;
  /** Pages whose file is not one of the versions sent (a partial write). */
  torn: number;
  /** Pages holding a version older than their last acknowledged save. */
  stale: number;
  /** Pages whose last acknowledged version HEAD did not hold when the server was killed. */
  uncommittedAtKill: number;
  /** Pages whose file differs from HEAD once the restarted server has settled. */
  uncommittedAfterRestart: number;
  /** Pages whose file the remote does not hold once the restarted server has settled. */
  missingOnRemote: number;
  /** Pages whose last version search does not find. */
  searchMisses: number;
  /** Pages whose content hash through the API is not the file's. */
  hashMismatches: number;
  /** Recovery commits made after the restart (all workspaces). */
  recoveryCommits: number;
  /** Workspaces whose `git status` is not clean once settled. */
  dirtyWorkTrees: number;
  /** `git status --porcelain` of the dirty ones. */
  dirtyStatus: string[];
  /** `level=error` lines the restarted server logged. */
  errorLogs: string[];
  /** Time from the restart to every workspace settled (ms). */
  settleMs: number;
}

interface Version {
  text: string | null; // null: unknown (in flight when killed)
  token: string;
  hash: string | null;
  acked: boolean;
}

interface ClientState {
  client: Client;
  ws: { id: string; slug: string };
  remote: GitHttpRemote;
  versions: Map<string, Version[]>;
}

const sha256 = (text: string) => `sha256:${createHash("sha256").update(text, "utf8").digest("hex")}`;
const ENV = { GIT_ALLOWLIST_PRIVATE: "true", LOG_LEVEL: "info" };

export async function crashRun(opts: CrashRunOptions): Promise<CrashRunResult> {
  const dataDir = mkdtempSync(join(tmpdir(), "quire-crash-"));
  const remotes: GitHttpRemote[] = [];
  let serve: ServeProcess | null = null;
  try {
    serve = await startServe(dataDir, { env: ENV });
    const states: ClientState[] = [];
    for (let c = 0; c < opts.clients; c++) {
      const remote = await startGitHttpRemote({ branch: "main" });
      remotes.push(remote);
      const client = new Client(serve.base);
      const reg = await client.post("/api/auth/register", { name: `Writer ${c}`, email: `writer${c}.${Date.now()}@example.test`, password: "correct horse battery staple", terms_accepted: true });
      if (reg.status !== 201) throw new Error(`register ${reg.status}: ${reg.text}`);
      client.token = reg.body.access_token;
      const ws = await client.post("/api/v1/workspaces", { name: `Crash ${c}`, slug: `crash-${c}`, git_remote: remote.url, git_branch: "main" });
      if (ws.status !== 201) throw new Error(`workspace ${ws.status}: ${ws.text}`);
      states.push({ client, ws: { id: ws.body.id, slug: ws.body.slug }, remote, versions: new Map() });
    }

    let sent = 0;
    let acknowledged = 0;
    let killed = false;
    const victim = serve;
    const kill = () => {
      if (killed) return;
      killed = true;
      victim.proc.kill("SIGKILL");
    };
    await Promise.all(
      states.map(async (st, c) => {
        for (let i = 0; i < opts.writesPerClient && !killed; i++) {
          const path = `crash/page-${i % opts.pagesPerClient}.md`;
          const list = st.versions.get(path) ?? [];
          st.versions.set(path, list);
          const token = `zq${c}w${i}q`;
          const body = `Client ${c}, write ${i}: ${token}.\n\n${"Some steady text. ".repeat(20)}\n`;
          const last = [...list].reverse().find((v) => v.acked);
          const version: Version = { text: null, token, hash: null, acked: false };
          list.push(version);
          sent++;
          let r;
          try {
            r = last
              ? await st.client.put(`/api/v1/content/${st.ws.slug}/${path}`, { body, lastKnownHash: last.hash })
              : await st.client.post(`/api/v1/content/${st.ws.slug}/${path}`, { title: `Page ${i % opts.pagesPerClient}`, body });
          } catch {
            return; // the connection died with the server: in flight, not acknowledged
          }
          if (r.status !== 200 && r.status !== 201) throw new Error(`write answered ${r.status}: ${r.text}`);
          version.acked = true;
          version.hash = r.body.content_hash;
          acknowledged++;
          if (acknowledged >= opts.killAfter) kill();
        }
      }),
    );
    kill();
    await victim.exited;

    // What HEAD held at the kill, for each page's last acknowledged version.
    let uncommittedAtKill = 0;
    for (const st of states) {
      const dir = join(dataDir, "workspaces", st.ws.id);
      for (const [path, list] of st.versions) {
        const last = [...list].reverse().find((v) => v.acked);
        if (!last) continue;
        const head = await tryGit(["show", `HEAD:${path}`], { cwd: dir });
        if (head.code !== 0 || sha256(head.stdout) !== last.hash) uncommittedAtKill++;
      }
    }

    const restartedAt = performance.now();
    serve = await startServe(dataDir, { env: ENV });
    const restarted = serve;
    for (const st of states) {
      const again = new Client(restarted.base, st.client.ip);
      again.token = st.client.token;
      st.client = again;
    }
    // Settled: marker gone, status clean, the remote at HEAD — for every workspace.
    const deadline = Date.now() + (opts.settleMs ?? 30_000);
    for (const st of states) {
      const dir = join(dataDir, "workspaces", st.ws.id);
      for (;;) {
        const pending = existsSync(join(dir, ".git", "quire-pending"));
        const status = (await tryGit(["status", "--porcelain"], { cwd: dir })).stdout.trim();
        const local = (await tryGit(["rev-parse", "HEAD"], { cwd: dir })).stdout.trim();
        if (!pending && status === "" && (await st.remote.head()) === local) break;
        if (Date.now() > deadline) break;
        await Bun.sleep(100);
      }
    }
    const settleMs = performance.now() - restartedAt;

    let lost = 0;
    let torn = 0;
    let stale = 0;
    let uncommittedAfterRestart = 0;
    let missingOnRemote = 0;
    let searchMisses = 0;
    let hashMismatches = 0;
    let recoveryCommits = 0;
    let dirtyWorkTrees = 0;
    const dirtyStatus: string[] = [];
    for (const st of states) {
      const dir = join(dataDir, "workspaces", st.ws.id);
      const status = (await tryGit(["status", "--porcelain"], { cwd: dir })).stdout.trim();
      if (status !== "") {
        dirtyWorkTrees++;
        dirtyStatus.push(status);
      }
      recoveryCommits += (await git(["log", "--format=%s"], { cwd: dir })).split("\n").filter((s) => s.startsWith("Recover ")).length;
      for (const [path, list] of st.versions) {
        const lastAcked = list.findLastIndex((v) => v.acked);
        if (lastAcked === -1) continue;
        const abs = join(dir, path);
        if (!existsSync(abs)) {
          lost += list.filter((v) => v.acked).length;
          continue;
        }
        const text = readFileSync(abs, "utf8");
        const at = list.findIndex((v) => text.includes(`: ${v.token}.\n`) && /^---\nid: [0-9A-Z]{26}\n/.test(text) && text.endsWith(" \n"));
        if (at === -1) torn++;
        else if (at < lastAcked) stale++;
        const head = await tryGit(["show", `HEAD:${path}`], { cwd: dir });
        if (head.code !== 0 || head.stdout !== text) uncommittedAfterRestart++;
        if ((await st.remote.show(path)) !== text) missingOnRemote++;
        const page = await st.client.get(`/api/v1/content/${st.ws.slug}/${path}`);
        if (page.status !== 200 || page.body.content_hash !== sha256(text)) hashMismatches++;
        const token = at === -1 ? list[lastAcked]!.token : list[at]!.token;
        const found = await st.client.get(`/api/v1/workspaces/${st.ws.id}/search?q=${token}`);
        if (found.status !== 200 || !(found.body.items ?? []).some((h: { path?: string }) => h.path === path)) searchMisses++;
      }
    }
    const errorLogs = restarted
      .stderr()
      .split("\n")
      .filter((l) => l.includes('"level":"error"'));
    return {
      sent,
      acknowledged,
      lost,
      torn,
      stale,
      uncommittedAtKill,
      uncommittedAfterRestart,
      missingOnRemote,
      searchMisses,
      hashMismatches,
      recoveryCommits,
      dirtyWorkTrees,
      dirtyStatus,
      errorLogs,
      settleMs,
    };
  } finally {
    if (serve) {
      serve.proc.kill("SIGTERM");
      await serve.exited;
    }
    for (const r of remotes) await r.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
