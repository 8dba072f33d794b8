/**
 * `bun bench/git.ts`: git sync against docs/architecture.md §11 ("git push → visible in the API after
 * webhook < 1 s on loopback"). A script, not a test; numbers vary by machine.
 *   1. webhook-triggered push → page readable through the API: an IDE clone pushes a new page to
 *      a smart-HTTP remote on loopback, a signed GitHub push webhook is sent, and the clock stops
 *      when the page is readable through the content API (p50/p95 over 20 pushes);
 *   2. commit cost per save: API save latency with git auto-commit on (workspace with a remote,
 *      and one with local history only) against the same workspace with auto-commit off;
 *   3. initial clone + index of a 1,000-file remote: workspace create (clone) and the time until
 *      all pages are listed and the last one is found by search.
 * A real `quire serve` child is measured (fast argon2 parameters: hashing is not what is timed).
 * Options: `bun bench/git.ts [push|save|clone ...]` runs only the named parts.
 */
import { startServer, ipFor, ms, percentile, printTable, type BenchServer, type Row } from "./harness.ts";
import { IdeClone, startGitHttpRemote, type GitHttpRemote } from "../test/helpers/git-remote.ts";
import { signGithub } from "../src/git/webhook-signature.ts";
import * as isogit from "isomorphic-git";
import http from "isomorphic-git/http/node";
import * as fs from "node:fs";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const PUSHES = 20;
const SAVES = 40;
const CLONE_FILES = 1000;

let ipCounter = 0;
const nextIp = () => ipFor(4000 + ++ipCounter);

interface User {
  token: string;
  ip: string;
}

async function api(server: BenchServer, path: string, init: { method?: string; body?: unknown; user?: User; ip?: string; headers?: Record<string, string>; raw?: string } = {}) {
  const headers: Record<string, string> = { "x-forwarded-for": init.ip ?? init.user?.ip ?? nextIp(), ...init.headers };
  if (init.user) headers.authorization = `Bearer ${init.user.token}`;
  let body: string | undefined = init.raw;
  if (init.body !== undefined) {
    body = JSON.stringify(init.body);
    headers["content-type"] = "application/json";
  }
  const res = await fetch(server.base + path, { method: init.method ?? "GET", headers, body });
  const text = await res.text();
  const parsed = text && res.headers.get("content-type")?.includes("json") ? JSON.parse(text) : text;
  return { status: res.status, body: parsed as any, headers: res.headers };
}

/** A fresh account: its own organization (so per-organization limits never mix parts) and starter workspace. */
async function register(server: BenchServer, label: string): Promise<User & { workspaceId: string; slug: string }> {
  const ip = nextIp();
  const reg = await api(server, "/api/auth/register", {
    method: "POST",
    ip,
    body: { name: `Bench ${label}`, email: `bench.${label}.${Date.now()}@example.test`, password: "a benchmark password", terms_accepted: true },
  });
  if (reg.status !== 201) throw new Error(`register failed: ${reg.status} ${JSON.stringify(reg.body)}`);
  const user = { token: reg.body.access_token as string, ip };
  const list = await api(server, "/api/v1/workspaces", { user });
  const ws = list.body.items[0];
  return { ...user, workspaceId: ws.id, slug: ws.slug };
}

async function createGitWorkspace(server: BenchServer, user: User, remote: GitHttpRemote, slug: string) {
  const t0 = performance.now();
  const res = await api(server, "/api/v1/workspaces", { method: "POST", user, body: { name: slug, slug, git_remote: remote.url, git_branch: remote.branch } });
  const elapsed = performance.now() - t0;
  if (res.status !== 201) throw new Error(`workspace create with a remote failed: ${res.status} ${JSON.stringify(res.body)}`);
  return { id: res.body.id as string, slug: res.body.slug as string, createMs: elapsed };
}

/** Waits until `check` returns true, polling every `everyMs`; returns the elapsed ms or throws after `timeoutMs`. */
async function until(check: () => Promise<boolean>, everyMs: number, timeoutMs: number, what: string): Promise<number> {
  const t0 = performance.now();
  for (;;) {
    if (await check()) return performance.now() - t0;
    if (performance.now() - t0 > timeoutMs) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await Bun.sleep(everyMs);
  }
}

/** A live event stream for the user; resolves each `waitFor` with the first matching event. */
async function eventStream(server: BenchServer, user: User) {
  const r = await fetch(server.base + "/api/auth/ws-token", { method: "POST", headers: { authorization: `Bearer ${user.token}`, "x-forwarded-for": user.ip } });
  const cookie = r.headers.getSetCookie().map((c) => c.split(";")[0]).find((c) => c!.startsWith("quire_ws_token="));
  if (!cookie) throw new Error(`ws-token failed: ${r.status}`);
  const socket = new WebSocket(server.base.replace(/^http/, "ws") + "/ws", { headers: { cookie } } as unknown as string[]);
  const frames: Array<{ type: string; payload: any }> = [];
  const waiters = new Set<() => void>();
  socket.onmessage = (e) => {
    frames.push(JSON.parse(String(e.data)));
    for (const w of waiters) w();
  };
  await new Promise<void>((resolve, reject) => {
    socket.onopen = () => resolve();
    socket.onerror = () => reject(new Error("WebSocket refused"));
  });
  return {
    async waitFor(match: (f: { type: string; payload: any }) => boolean, from: number, timeoutMs: number): Promise<void> {
      const deadline = Date.now() + timeoutMs;
      while (!frames.slice(from).some(match)) {
        if (Date.now() > deadline) throw new Error("no matching event");
        await new Promise<void>((resolve) => {
          const done = () => {
            waiters.delete(done);
            clearTimeout(timer);
            resolve();
          };
          const timer = setTimeout(done, Math.max(1, deadline - Date.now()));
          waiters.add(done);
        });
      }
    },
    get count() {
      return frames.length;
    },
    close: () => socket.close(),
  };
}

/** Until the workspace reports `synced` on consecutive reads (its own pushes are out). */
async function settled(server: BenchServer, user: User, workspaceId: string): Promise<void> {
  let streak = 0;
  await until(
    async () => {
      const status = (await api(server, `/api/v1/workspaces/${workspaceId}`, { user })).body.sync_status;
      streak = status === "synced" ? streak + 1 : 0;
      return streak >= 3;
    },
    100,
    30_000,
    "sync_status synced",
  );
}

async function pushToApi(server: BenchServer): Promise<Row[]> {
  const remote = await startGitHttpRemote({ branch: "main" });
  const ide = await IdeClone.clone(remote.url);
  try {
    const user = await register(server, "push");
    const ws = await createGitWorkspace(server, user, remote, `push-${Date.now()}`);
    const settings = await api(server, `/api/v1/workspaces/${ws.id}/admin/settings`, { user });
    const secret: string = settings.body.webhook_secret;
    const stream = await eventStream(server, user);
    const samples: number[] = [];
    const pushMs: number[] = [];
    let reads = 0;
    for (let i = 0; i < PUSHES; i++) {
      const path = `bench/push-${i}.md`;
      // Rounds do not overlap: Quire has pushed what the previous import wrote (page ids), and the
      // developer pulls it before editing, as they would.
      await settled(server, user, ws.id);
      await ide.pull();
      ide.writeFile(path, `---\ntitle: Push ${i}\n---\n\n# Push ${i}\n\nWritten in the IDE.\n`);
      await ide.commit(`Add push ${i}`);
      const tp = performance.now();
      await ide.pushWithPull();
      pushMs.push(performance.now() - tp);
      const head = await ide.head();
      const body = JSON.stringify({ ref: "refs/heads/main", before: "0".repeat(40), after: head, commits: [{ id: head, added: [path], modified: [], removed: [] }] });
      const from = stream.count;
      // The clock starts when the push is on the remote and the hosting provider would call.
      const t0 = performance.now();
      const hook = await api(server, `/api/git/webhook/${ws.id}`, {
        method: "POST",
        raw: body,
        headers: { "content-type": "application/json", "x-github-event": "push", "x-hub-signature-256": signGithub(body, secret) },
      });
      if (hook.status !== 202) throw new Error(`webhook answered ${hook.status}: ${JSON.stringify(hook.body)}`);
      // Wait for the page event (cheap), then read through the API until it answers (per-org read limit: few reads).
      await stream.waitFor((f) => (f.type === "page-created" || f.type === "bulk-sync") && JSON.stringify(f.payload).includes(path), from, 10_000).catch(() => {});
      await until(
        async () => {
          reads++;
          const r = await api(server, `/api/v1/content/${ws.slug}/${path}`, { user });
          return r.status === 200 && String(r.body.body ?? r.body.content ?? "").includes(`Push ${i}`);
        },
        10,
        10_000,
        `page ${path}`,
      );
      samples.push(performance.now() - t0);
    }
    stream.close();
    return [
      { measure: `webhook → page readable p50 (${PUSHES} pushes)`, value: ms(percentile(samples, 50)), note: "budget < 1 s on loopback" },
      { measure: `webhook → page readable p95`, value: ms(percentile(samples, 95)), note: `max ${ms(Math.max(...samples))}; ${reads} API reads` },
      { measure: `git push from the IDE clone p50 (not in the above)`, value: ms(percentile(pushMs, 50)) },
    ];
  } finally {
    await ide.close();
    await remote.close();
  }
}

async function saveLatency(server: BenchServer, user: User, slug: string, label: string): Promise<number[]> {
  const path = `bench/save-${label}.md`;
  const first = await api(server, `/api/v1/content/${slug}/${path}`, { method: "POST", user, body: { title: `Save ${label}`, body: "# Save\n\nfirst\n" } });
  if (first.status !== 201 && first.status !== 200) throw new Error(`save failed: ${first.status} ${JSON.stringify(first.body)}`);
  const samples: number[] = [];
  let hash: string = first.body.content_hash;
  // The API allows 60 writes a minute per organization: SAVES + 1 stays under it.
  for (let i = 0; i < SAVES; i++) {
    const t0 = performance.now();
    const r = await api(server, `/api/v1/content/${slug}/${path}`, { method: "PUT", user, body: { body: `# Save\n\nrevision ${i}\n`, last_known_hash: hash } });
    samples.push(performance.now() - t0);
    if (r.status !== 200) throw new Error(`save ${i} failed: ${r.status} ${JSON.stringify(r.body)}`);
    hash = r.body.content_hash;
  }
  return samples;
}

async function commitCost(server: BenchServer): Promise<Row[]> {
  const remote = await startGitHttpRemote({ branch: "main" });
  try {
    const withRemote = await register(server, "save-remote");
    const ws = await createGitWorkspace(server, withRemote, remote, `save-${Date.now()}`);
    const remoteOn = await saveLatency(server, withRemote, ws.slug, "remote");
    const local = await register(server, "save-local");
    const localOn = await saveLatency(server, local, local.slug, "local");
    const off = await register(server, "save-off");
    const put = await api(server, `/api/v1/workspaces/${off.workspaceId}/admin/settings`, { method: "PUT", user: off, body: { git_auto_commit: false } });
    if (put.status !== 200) throw new Error(`turning auto-commit off failed: ${put.status} ${JSON.stringify(put.body)}`);
    const offSamples = await saveLatency(server, off, off.slug, "off");
    // Let debounced pushes finish, then count what reached the remote.
    await Bun.sleep(1500);
    const pushed = (await remote.log("main", 1000)).filter((c) => c.subject.includes("bench/save-remote.md")).length;
    const p50 = (xs: number[]) => percentile(xs, 50);
    return [
      { measure: `save p50, auto-commit on, remote (${SAVES})`, value: ms(p50(remoteOn)), note: `p99 ${ms(percentile(remoteOn, 99))}; ${pushed} of ${SAVES + 1} commits on the remote after 1.5 s` },
      { measure: `save p50, auto-commit on, local history`, value: ms(p50(localOn)), note: `p99 ${ms(percentile(localOn, 99))}` },
      { measure: `save p50, auto-commit off`, value: ms(p50(offSamples)), note: `p99 ${ms(percentile(offSamples, 99))}; budget p50 < 5 ms, p99 < 20 ms` },
      { measure: "commit cost per save (p50 on − off)", value: ms(p50(remoteOn) - p50(offSamples)), note: `local history only: ${ms(p50(localOn) - p50(offSamples))}` },
    ];
  } finally {
    await remote.close();
  }
}

async function initialClone(server: BenchServer): Promise<Row[]> {
  const files: Record<string, string> = {};
  for (let i = 0; i < CLONE_FILES; i++) {
    const folder = `section-${String(i % 20).padStart(2, "0")}`;
    files[`${folder}/page-${String(i).padStart(4, "0")}.md`] =
      `---\ntitle: Page ${i}\ntags: [bench, s${i % 20}]\n---\n\n# Page ${i}\n\nSome prose about topic ${i}, with a [link](../section-00/page-0000.md) and a list:\n\n- alpha ${i}\n- beta\n- gamma\n\nmarker${i}word\n`;
  }
  const remote = await startGitHttpRemote({ branch: "main", files });
  try {
    const user = await register(server, "clone");
    const t0 = performance.now();
    const ws = await createGitWorkspace(server, user, remote, `clone-${Date.now()}`);
    const listed = await until(
      async () => (await api(server, `/api/v1/workspaces/${ws.id}`, { user })).body.page_count >= CLONE_FILES,
      20,
      120_000,
      `${CLONE_FILES} pages`,
    );
    const last = `marker${CLONE_FILES - 1}word`;
    const searchable = await until(
      async () => ((await api(server, `/api/v1/workspaces/${ws.id}/search?q=${last}`, { user })).body.items ?? []).length > 0,
      250,
      120_000,
      "the last page in search",
    );
    const total = performance.now() - t0;
    // Reference: the git command cloning the same remote over the same loopback HTTP (after Quire's clone warmed the caches).
    const tc = performance.now();
    const c = await IdeClone.clone(remote.url);
    const cliMs = performance.now() - tc;
    await c.close();
    // And isomorphic-git alone (the engine for HTTPS remotes), in this process, to tell transfer from indexing.
    const isoDir = mkdtempSync(join(tmpdir(), "quire-bench-iso-"));
    const ti = performance.now();
    await isogit.clone({ fs, http, dir: isoDir, url: remote.url, ref: "main", singleBranch: true, depth: 1 });
    const isoMs = performance.now() - ti;
    rmSync(isoDir, { recursive: true, force: true });
    return [
      { measure: `reference: git CLI clone of the same remote`, value: ms(cliMs) },
      { measure: `reference: isomorphic-git clone (depth 1, in-process)`, value: ms(isoMs) },
      { measure: `workspace create with clone of ${CLONE_FILES} files`, value: ms(ws.createMs), note: "201 answered" },
      { measure: `… until all ${CLONE_FILES} pages are listed`, value: ms(ws.createMs + listed), note: "reconcile budget < 1 s for 1,000 files" },
      { measure: `… until the last page is found by search`, value: ms(total), note: `${ms(searchable)} after listing` },
    ];
  } finally {
    await remote.close();
  }
}

const PARTS: Array<{ name: string; run: (s: BenchServer) => Promise<Row[]> }> = [
  { name: "push", run: pushToApi },
  { name: "save", run: commitCost },
  { name: "clone", run: initialClone },
];

async function main() {
  const only = Bun.argv.slice(2);
  const server = await startServer({
    QUIRE_ENV: "test",
    ARGON2_MEMORY: "1024",
    ARGON2_TIME: "1",
    ARGON2_THREADS: "1",
    TRUST_PROXY: "true",
    // The remotes are on loopback.
    GIT_ALLOWLIST_PRIVATE: "true",
    LOG_LEVEL: "error",
  });
  const rows: Row[] = [];
  try {
    for (const part of PARTS) {
      if (only.length > 0 && !only.includes(part.name)) continue;
      try {
        rows.push(...(await part.run(server)));
      } catch (error) {
        rows.push({ measure: `${part.name}: failed`, value: "n/a", note: error instanceof Error ? error.message : String(error) });
      }
    }
  } finally {
    await server.stop();
  }
  printTable(`Quire git benchmark — ${new Date().toISOString()}, ${navigator.hardwareConcurrency} CPUs, Bun ${Bun.version}, ${(await gitVersion()).trim()}`, rows);
}

async function gitVersion(): Promise<string> {
  const p = Bun.spawn(["git", "--version"], { stdout: "pipe" });
  return new Response(p.stdout).text();
}

await main();
