/**
 * Commit lag during a save burst: how far the git worker falls behind the saves it was handed.
 * `bun bench/commit-lag.ts [saves] [clients] [authors]` (defaults 1,100 / 20 / 1); also run as
 * part of `bun bench/crash.ts`.
 *
 * An in-process server (test parameters, a remote-less starter workspace) takes `saves` page
 * creations from `clients` concurrent connections signed in as `authors` members of one
 * organization. The API allows 60 writes a minute per organization, so the counters are emptied
 * every 25 requests (as `bench/http-core.ts` does): the burst measures the worker, not the limit.
 * A sampler asks the real `git` every ~25 ms how many of the burst's pages HEAD holds; lag =
 * saves acknowledged − pages committed at that moment. Also reported: the longest time a save
 * waited between its acknowledgement and the first sample that saw it committed, and the time the
 * worker needed after the last acknowledgement.
 */
import { startTestServer } from "../test/helpers/server.ts";
import { registerUser, type TestUser } from "../test/helpers/factories.ts";
import { ms, percentile, printTable, type Row } from "./harness.ts";

export interface LagResult {
  saves: number;
  acknowledged: number;
  commits: number;
  worstLag: number;
  p99LagMs: number;
  worstLagMs: number;
  drainMs: number;
  burstMs: number;
}

async function committedPaths(dir: string): Promise<Set<string>> {
  const proc = Bun.spawn(["git", "ls-tree", "-r", "--name-only", "HEAD", "burst/"], { cwd: dir, stdout: "pipe", stderr: "ignore", env: { ...process.env, GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: "/dev/null" } });
  const text = await new Response(proc.stdout).text();
  await proc.exited;
  return new Set(text.split("\n").filter(Boolean));
}

async function commitCount(dir: string): Promise<number> {
  const proc = Bun.spawn(["git", "rev-list", "--count", "HEAD"], { cwd: dir, stdout: "pipe", stderr: "ignore" });
  const text = await new Response(proc.stdout).text();
  await proc.exited;
  return Number(text.trim());
}

export async function measureLag(saves = 1100, clients = 20, authors = 1): Promise<LagResult> {
  const server = await startTestServer({});
  try {
    const owner = await registerUser(server.url, { name: "Burst Owner", email: `burst.owner.${Date.now()}@example.test` });
    const members: TestUser[] = [owner];
    for (let i = 1; i < authors; i++) {
      const m = await registerUser(server.url, { name: `Burst Author ${i}`, email: `burst.author${i}.${Date.now()}@example.test` });
      server.services.db
        .query("INSERT INTO workspace_members (workspace_id, user_id, role, joined_at) VALUES (?, ?, 'editor', ?)")
        .run(owner.workspaceId, m.id, new Date().toISOString());
      members.push(m);
    }
    const dir = server.services.ledger.dir(owner.workspaceId).root;
    await server.services.gitSync.idle();
    const commitsBefore = await commitCount(dir);
    const ackAt = new Map<string, number>();
    let acknowledged = 0;
    let sent = 0;
    let next = 0;
    let done = false;
    const lagSamples: number[] = [];
    const waitMs: number[] = [];
    const seen = new Set<string>();
    let worstLag = 0;
    const sampler = (async () => {
      while (!done || seen.size < acknowledged) {
        const acked = acknowledged;
        const committed = await committedPaths(dir);
        const now = performance.now();
        for (const p of committed) {
          if (seen.has(p)) continue;
          seen.add(p);
          const at = ackAt.get(p);
          if (at !== undefined) waitMs.push(now - at);
        }
        const lag = acked - committed.size;
        lagSamples.push(lag);
        worstLag = Math.max(worstLag, lag);
        await Bun.sleep(25);
      }
    })();
    const t0 = performance.now();
    await Promise.all(
      Array.from({ length: clients }, async (_, c) => {
        const member = members[c % members.length]!;
        for (;;) {
          const i = next++;
          if (i >= saves) return;
          if (++sent % 25 === 0) server.services.rateLimiter.reset();
          const path = `burst/save-${String(i).padStart(5, "0")}.md`;
          const r = await member.client.post(`/api/v1/content/${owner.workspaceSlug}/${path}`, { title: `Save ${i}`, body: `Burst save ${i} from client ${c}.\n` });
          if (r.status !== 201) throw new Error(`save ${i} answered ${r.status}: ${r.text}`);
          ackAt.set(path, performance.now());
          acknowledged++;
        }
      }),
    );
    const burstEnd = performance.now();
    done = true;
    await sampler;
    const drainMs = performance.now() - burstEnd;
    await server.services.gitSync.idle();
    const commits = (await commitCount(dir)) - commitsBefore;
    return { saves, acknowledged, commits, worstLag, p99LagMs: percentile(waitMs, 99), worstLagMs: Math.max(...waitMs), drainMs, burstMs: burstEnd - t0 };
  } finally {
    await server.close();
  }
}

export function lagRows(r: LagResult, label = ""): Row[] {
  return [
    { measure: `${label}saves acknowledged / commits made`, value: `${r.acknowledged} / ${r.commits}`, note: `burst ${ms(r.burstMs)}` },
    { measure: `${label}worst commit lag (saves acknowledged, not committed)`, value: String(r.worstLag) },
    { measure: `${label}ack → commit p99 / max`, value: `${ms(r.p99LagMs)} / ${ms(r.worstLagMs)}` },
    { measure: `${label}worker catch-up after the last ack`, value: ms(r.drainMs) },
  ];
}

if (import.meta.main) {
  const [saves, clients, authors] = process.argv.slice(2).map(Number);
  const r = await measureLag(saves || 1100, clients || 20, authors || 1);
  printTable(`Commit lag: ${r.saves} saves, ${clients || 20} clients, ${authors || 1} author(s), one workspace`, lagRows(r));
  process.exit(0);
}
