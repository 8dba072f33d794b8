/**
 * `quire doctor` as a real process: the eleven checks by name, with and without a running server,
 * on a missing or corrupt database, without git on PATH, with a workspace folder deleted; and a
 * diagnostics bundle that holds no page content, password hash, token, API key, pepper or key.
 */
import { afterAll, afterEach, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { appendFileSync, existsSync, readFileSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { unzipSync, strFromU8 } from "fflate";
import { tempDir } from "../helpers/server.ts";
import { registerUser } from "../helpers/factories.ts";
import { runCli, startServe, waitFor } from "../cli/spawn.ts";
import { CHECK_NAMES } from "../../src/ops/doctor.ts";

const dirs: string[] = [];
const procs: Array<{ kill(s?: number | NodeJS.Signals): void; exitCode: number | null }> = [];
function dir(): string {
  const d = tempDir("quire-doctor-");
  dirs.push(d);
  return d;
}
afterEach(() => {
  for (const p of procs.splice(0)) if (p.exitCode === null) p.kill("SIGKILL");
});
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

interface Check {
  name: string;
  status: "pass" | "warn" | "fail";
  message: string;
  hint: string;
}
async function doctor(dataDir: string, extra: string[] = [], env: Record<string, string | undefined> = {}) {
  const r = await runCli(["doctor", "--json", "--data-dir", dataDir, ...extra], { env });
  const body = JSON.parse(r.stdout) as { ok: boolean; checks: Check[]; bundle?: string };
  const by = Object.fromEntries(body.checks.map((c) => [c.name, c])) as Record<string, Check>;
  return { code: r.code, body, by };
}
/** A data directory made by `quire init`, with one workspace; returns its id. */
async function initialised(): Promise<{ dataDir: string; wsId: string }> {
  const dataDir = dir();
  const init = await runCli(["init", "--workspace-name", "Docs", "--slug", "docs", "--data-dir", dataDir]);
  expect(init.code).toBe(0);
  return { dataDir, wsId: /id ([0-9A-Z]{26})/.exec(init.stdout)![1]! };
}

test("a healthy instance: the eleven checks by name, in order, none failing; files changed on disk and a broken wikilink are warnings", async () => {
  const { dataDir, wsId } = await initialised();
  const first = await doctor(dataDir);
  expect(first.code).toBe(0);
  expect(first.body.checks.map((c) => c.name)).toEqual([...CHECK_NAMES]);
  expect(first.by.database!.status).toBe("pass");
  expect(first.by.analytics_db).toMatchObject({ status: "warn", hint: expect.any(String) });
  expect(first.by.backups!.status).toBe("warn");
  for (const c of first.body.checks) expect(["pass", "warn", "fail"]).toContain(c.status);

  writeFileSync(join(dataDir, "workspaces", wsId, "new.md"), "# New\n\nSee [[missing page]] and [[new]].\n\n```\n[[in a code block: not a link]]\n```\n");
  expect((await runCli(["backup", "--data-dir", dataDir])).code).toBe(0);
  const second = await doctor(dataDir);
  expect(second.code).toBe(0);
  expect(second.by.fs_db_consistency).toMatchObject({ status: "warn", message: expect.stringContaining("1 file without a record") });
  expect(second.by.wikilinks).toMatchObject({ status: "warn", message: expect.stringContaining("1 wikilink of 2 point at no page") });
  expect(second.by.backups!.status).toBe("pass");
  // Human output names every check too.
  const human = await runCli(["doctor", "--data-dir", dataDir]);
  for (const name of CHECK_NAMES) expect(human.stdout).toContain(name);
}, 60_000);

test("a missing database and a corrupt one fail (exit 1); so does a corrupt analytics.db", async () => {
  const empty = dir();
  const missing = await doctor(empty);
  expect(missing.code).toBe(1);
  expect(missing.by.database).toMatchObject({ status: "fail", message: "quire.db is missing" });

  const { dataDir } = await initialised();
  writeFileSync(join(dataDir, "analytics.db"), "this is not a database".repeat(200));
  const badAnalytics = await doctor(dataDir);
  expect(badAnalytics.code).toBe(1);
  expect(badAnalytics.by.analytics_db!.status).toBe("fail");
  rmSync(join(dataDir, "analytics.db"));

  // Damage the middle of the file (the header stays, the pages do not).
  const path = join(dataDir, "quire.db");
  const bytes = readFileSync(path);
  for (let i = 4096; i < bytes.length; i += 7) bytes[i] = (bytes[i]! + 97) & 255;
  writeFileSync(path, bytes);
  const corrupt = await doctor(dataDir);
  expect(corrupt.code).toBe(1);
  expect(corrupt.by.database!.status).toBe("fail");
  expect(corrupt.by.database!.hint).toContain("backup");
}, 60_000);

test("without git on PATH the git check warns (exit 0); an index lock held for minutes warns; a deleted workspace folder fails (exit 1)", async () => {
  const { dataDir, wsId } = await initialised();
  const emptyPath = dir();
  const noGit = await doctor(dataDir, [], { PATH: emptyPath });
  expect(noGit.code).toBe(0);
  expect(noGit.by.git).toMatchObject({ status: "warn", message: expect.stringContaining("not installed") });

  // A git command's index lock: a moment is normal; held for ten minutes (an editor left open, a
  // command killed) it is named, with what to do, and the server does not remove it.
  const lock = join(dataDir, "workspaces", wsId, ".git", "index.lock");
  writeFileSync(lock, "");
  expect((await doctor(dataDir)).by.workspace_dirs!.status).toBe("pass");
  const tenMinutesAgo = new Date(Date.now() - 10 * 60_000);
  utimesSync(lock, tenMinutesAgo, tenMinutesAgo);
  const held = await doctor(dataDir);
  expect(held.code).toBe(0);
  expect(held.by.workspace_dirs).toMatchObject({ status: "warn", message: expect.stringContaining("index.lock held for over 5 minutes in docs") });
  expect(held.by.workspace_dirs!.hint).toContain("remove .git/index.lock if none is running");
  rmSync(lock);

  rmSync(join(dataDir, "workspaces", wsId), { recursive: true });
  const gone = await doctor(dataDir);
  expect(gone.code).toBe(1);
  expect(gone.by.workspace_dirs).toMatchObject({ status: "fail", message: expect.stringContaining("docs") });
}, 60_000);

test("beside a running server, doctor reads only; --bundle holds no page content, hash, token, key, pepper or private key", async () => {
  const dataDir = dir();
  const s = await startServe(dataDir);
  procs.push(s.proc);
  const user = await registerUser(s.base);
  const secretText = "Page body nobody outside may read 7f3a";
  expect((await user.client.post(`/api/v1/content/${user.workspaceSlug}/private`, { title: "Private", body: secretText + "\n" })).status).toBe(201);
  const key = await user.client.post("/api/v1/api-keys", { name: "ci", scopes: ["read"] });
  expect(key.status).toBe(201);
  const apiKey: string = key.body.key;
  // A request that carries the key (and a share-link-like secret) through the log.
  await fetch(`${s.base}/api/v1/workspaces?token=${apiKey}`, { headers: { authorization: `Bearer ${apiKey}` } });
  // The log file is written in batches (about once a second): wait for the keyed request's line,
  // the last one logged, so every line before it is there too.
  const logPath = join(dataDir, "logs", "quire.log");
  await waitFor(() => existsSync(logPath) && readFileSync(logPath, "utf8").includes('"key_id":'));
  // Lines a careless call site could have written: the bundle must scrub them anyway.
  const db = new Database(join(dataDir, "quire.db"), { readonly: true });
  const hash = db.query<{ password_hash: string }, []>("SELECT password_hash FROM users").get()!.password_hash;
  db.close();
  appendFileSync(logPath, JSON.stringify({ msg: "careless", note: `Bearer ${user.accessToken} ${apiKey} ${hash} ${user.email}` }) + "\n");

  const result = await doctor(dataDir, ["--bundle"]);
  expect(result.code).toBe(0);
  expect((await fetch(`${s.base}/api/health`)).status).toBe(200); // the server ran on, untouched
  const bundle = result.body.bundle!;
  expect(bundle).toMatch(/diagnostics-\d{8}T\d{6}Z\.zip$/);
  const files = unzipSync(readFileSync(bundle));
  expect(Object.keys(files).sort()).toEqual(["README.txt", "checks.json", "config.json", "logs.txt", "system.json"]);
  const all = Object.values(files).map((f) => strFromU8(f)).join("\n");
  expect(strFromU8(files["logs.txt"]!)).toContain('"msg":"request"');
  expect(JSON.parse(strFromU8(files["checks.json"]!)).checks).toHaveLength(11);

  const secrets = [
    secretText,
    hash,
    hash.split("$").pop()!,
    apiKey,
    apiKey.slice(11),
    user.accessToken,
    user.password,
    user.email,
    readFileSync(join(dataDir, "api-key-pepper"), "utf8").trim(),
    readFileSync(join(dataDir, "control.token"), "utf8").trim(),
    ...readFileSync(join(dataDir, "jwt-private.pem"), "utf8").split("\n").filter((l) => l.length > 20 && !l.startsWith("-----")),
  ];
  for (const secret of secrets) expect(all).not.toContain(secret);
  expect(all).toContain("[api key]");
  s.proc.kill("SIGTERM");
  expect(await s.exited).toBe(0);
}, 60_000);

test("scrub removes every shape of secret and keeps paths and ids readable", async () => {
  const { scrub } = await import("../../src/ops/diagnostics-bundle.ts");
  const secrets = [
    "$argon2id$v=19$m=65536,t=3,p=2$lPhmX25COmr1TE9Lx/qrUw$eiKw6fJQkrNL6X/2EGz2/YUU5yrbLMLxqFE4IwjYcTk",
    "quire_live_4f9XbQ2kLm8Zt1Rv7Yc3Hn6Ws0Pa5Ue2Dg9Jk",
    "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiIwMUgifQ.c2lnbmF0dXJlLXBhcnQ",
    "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
    "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcw\nggSjAgEAAoIBAQC7\n-----END PRIVATE KEY-----",
    "ada@example.com",
    "https://user:hunter2@git.example.com/repo.git",
    "/api/share?token=abc123",
  ];
  for (const secret of secrets) {
    const out = scrub(`before ${secret} after`);
    expect(out).toStartWith("before ");
    expect(out).toEndWith(" after");
    expect(out).not.toContain(secret.includes("hunter2") ? "hunter2" : secret.includes("abc123") ? "abc123" : secret);
  }
  const path = "/tmp/quire-doctor-vG2s43/workspaces/01M8ACJS5Q9WDCPGE5TRHM4MJN/docs";
  expect(scrub(path)).toBe(path);
}, 60_000);
