import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { Database } from "bun:sqlite";
import { join } from "node:path";
import { startTestServer, tempDir, silentLogger, type TestServer } from "../helpers/server.ts";
import { Client } from "../helpers/client.ts";
import { registerUser, type TestUser } from "../helpers/factories.ts";
import { Maintenance } from "../../src/ops/maintenance.ts";

const DAY = 24 * 3600_000;
let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

const db = () => server.services.db;
const count = (sql: string, ...params: Array<string | number>) =>
  db().query<{ n: number }, Array<string | number>>(`SELECT COUNT(*) AS n FROM ${sql}`).get(...params)!.n;
const iso = (ms: number) => new Date(ms).toISOString();

let seq = 0;
function insertReset(userId: string, expiresAt: number, usedAt: number | null): string {
  const hash = `reset-${++seq}-${Date.now()}`;
  db().query("INSERT INTO password_resets (token_hash, user_id, created_at, expires_at, used_at) VALUES (?, ?, ?, ?, ?)").run(hash, userId, expiresAt - 3600_000, expiresAt, usedAt);
  return hash;
}
function insertInvitation(workspaceId: string, status: string, expiresAt: number): string {
  const id = `inv-${++seq}-${Date.now()}`;
  db()
    .query(
      `INSERT INTO invitations (id, workspace_id, email, email_normalized, role, token_hash, status, created_at, expires_at, accepted_at)
       VALUES (?, ?, 'guest@example.test', 'guest@example.test', 'viewer', ?, ?, ?, ?, ?)`,
    )
    .run(id, workspaceId, `hash-${id}`, status, iso(expiresAt - 7 * DAY), iso(expiresAt), status === "accepted" ? iso(expiresAt - DAY) : null);
  return id;
}
function insertEmail(status: string, createdAt: number, sentAt: number | null): string {
  const id = `mail-${++seq}-${Date.now()}`;
  db()
    .query("INSERT INTO email_outbox (id, to_address, subject, text_body, status, next_attempt_at, created_at, sent_at) VALUES (?, 'a@example.test', 's', 't', ?, ?, ?, ?)")
    .run(id, status, createdAt, iso(createdAt), sentAt === null ? null : iso(sentAt));
  return id;
}
const exists = (table: string, key: string, value: string) => count(`${table} WHERE ${key} = ?`, value) === 1;

describe("one maintenance run", () => {
  let user: TestUser;
  let expiredDevice: Client;
  let liveDevice: Client;
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    user = await registerUser(server.url);
    // Two more sign-ins: one session will have ended on its own, the other stays live.
    expiredDevice = new Client(server.url);
    liveDevice = new Client(server.url);
    for (const c of [expiredDevice, liveDevice]) {
      const r = await c.post("/api/auth/login", { email: user.email, password: user.password });
      expect(r.status).toBe(200);
      c.token = r.body.access_token;
    }
    // The live device refreshes once: its first refresh token is now used (kept for replay detection).
    expect((await liveDevice.post("/api/auth/refresh", {})).status).toBe(200);
    const sessions = db().query<{ id: string }, [string]>("SELECT id FROM sessions WHERE user_id = ? ORDER BY created_at, id").all(user.id);
    expect(sessions).toHaveLength(3);
    const currentOf = async (c: Client): Promise<string> =>
      (await c.get("/api/auth/sessions")).body.items.find((s: { current: boolean }) => s.current).id;
    ids.expiredSession = await currentOf(expiredDevice);
    const liveSession = await currentOf(liveDevice);
    db().query("UPDATE sessions SET expires_at = ? WHERE id = ?").run(Date.now() - 1000, ids.expiredSession!);
    // A refresh token of a live session past its own expiry (an old rotation).
    const registerSession = sessions.find((s) => s.id !== ids.expiredSession && s.id !== liveSession)!.id;
    db().query("INSERT INTO refresh_tokens (token_hash, session_id, user_id, used_at, expires_at) VALUES ('old-rotated', ?, ?, ?, ?)").run(registerSession, user.id, Date.now() - 8 * DAY, Date.now() - DAY);

    ids.resetLive = insertReset(user.id, Date.now() + 3600_000, null);
    ids.resetExpired = insertReset(user.id, Date.now() - 1000, null);
    ids.resetUsed = insertReset(user.id, Date.now() + 3000_000, Date.now() - 1000);

    ids.invLive = insertInvitation(user.workspaceId, "pending", Date.now() + DAY);
    ids.invRecentlyExpired = insertInvitation(user.workspaceId, "pending", Date.now() - 29 * DAY);
    ids.invLongExpired = insertInvitation(user.workspaceId, "pending", Date.now() - 31 * DAY);
    ids.invAccepted = insertInvitation(user.workspaceId, "accepted", Date.now() - 400 * DAY);
    ids.invRevoked = insertInvitation(user.workspaceId, "revoked", Date.now() - 400 * DAY);

    ids.mailPending = insertEmail("pending", Date.now() - 200 * DAY, null);
    ids.mailSentRecent = insertEmail("sent", Date.now() - 29 * DAY, Date.now() - 29 * DAY);
    ids.mailSentOld = insertEmail("sent", Date.now() - 31 * DAY, Date.now() - 31 * DAY);
    ids.mailFailedRecent = insertEmail("failed", Date.now() - 89 * DAY, null);
    ids.mailFailedOld = insertEmail("failed", Date.now() - 91 * DAY, null);
  });

  test("removes what can never be used again and nothing else", async () => {
    const refreshOfExpired = count("refresh_tokens WHERE session_id = ?", ids.expiredSession!);
    expect(refreshOfExpired).toBeGreaterThan(0);
    const usedLive = count("refresh_tokens WHERE user_id = ? AND used_at IS NOT NULL AND expires_at > ?", user.id, Date.now());
    expect(usedLive).toBeGreaterThan(0);

    const counts = server.services.maintenance.run();
    expect(counts.sessions).toBe(1);
    expect(counts.refresh_tokens).toBe(1); // the old rotation; the expired session's went with it
    expect(counts.password_resets).toBe(2);
    expect(counts.invitations).toBe(1);
    expect(counts.emails).toBe(2);

    // Sessions and refresh tokens.
    expect(count("sessions WHERE id = ?", ids.expiredSession!)).toBe(0);
    expect(count("refresh_tokens WHERE session_id = ?", ids.expiredSession!)).toBe(0);
    expect(count("refresh_tokens WHERE token_hash = 'old-rotated'")).toBe(0);
    expect(count("sessions WHERE user_id = ?", user.id)).toBe(2);
    expect(count("refresh_tokens WHERE user_id = ? AND used_at IS NOT NULL AND expires_at > ?", user.id, Date.now())).toBe(usedLive);
    // Reset links: only the live one stays.
    expect(exists("password_resets", "token_hash", ids.resetLive!)).toBe(true);
    expect(exists("password_resets", "token_hash", ids.resetExpired!)).toBe(false);
    expect(exists("password_resets", "token_hash", ids.resetUsed!)).toBe(false);
    // Invitations: expired over 30 days ago go; accepted and revoked ones are history.
    for (const k of ["invLive", "invRecentlyExpired", "invAccepted", "invRevoked"]) expect(exists("invitations", "id", ids[k]!)).toBe(true);
    expect(exists("invitations", "id", ids.invLongExpired!)).toBe(false);
    // Mail: sent kept 30 days, failed 90, pending always.
    for (const k of ["mailPending", "mailSentRecent", "mailFailedRecent"]) expect(exists("email_outbox", "id", ids[k]!)).toBe(true);
    expect(exists("email_outbox", "id", ids.mailSentOld!)).toBe(false);
    expect(exists("email_outbox", "id", ids.mailFailedOld!)).toBe(false);

    // The product agrees: the live device refreshes, the ended one cannot.
    expect((await liveDevice.post("/api/auth/refresh", {})).status).toBe(200);
    expect((await expiredDevice.post("/api/auth/refresh", {})).status).toBe(401);
    expect((await user.client.get("/api/auth/me")).status).toBe(200);
    // The recently expired invitation still reads as expired to the admin.
    const expired = await user.client.get(`/api/v1/workspaces/${user.workspaceId}/invitations?status=expired`);
    expect(expired.status).toBe(200);
    expect(expired.body.items.map((i: { id: string }) => i.id)).toEqual([ids.invRecentlyExpired]);

    // A second run finds nothing left to do.
    expect(server.services.maintenance.run()).toEqual({ sessions: 0, refresh_tokens: 0, password_resets: 0, invitations: 0, emails: 0, sign_in_challenges: 0 });
  });

  test("activity notes of sessions not seen for over a minute are dropped from memory", async () => {
    expect((await user.client.get("/api/auth/me")).status).toBe(200);
    const sessions = server.services.sessions;
    expect(sessions.touchedCount).toBeGreaterThan(0);
    const before = count("sessions");
    server.services.maintenance.run(Date.now() + 61_000);
    expect(sessions.touchedCount).toBe(0);
    expect(count("sessions")).toBe(before);
    // A request afterwards still works and notes its activity again.
    expect((await user.client.get("/api/auth/me")).status).toBe(200);
    expect(sessions.touchedCount).toBe(1);
  });
});

test("the job runs again every interval until stopped", async () => {
  const user = await registerUser(server.url);
  const job = new Maintenance({ db: db(), sessions: server.services.sessions, log: silentLogger, intervalMs: 30 });
  job.start();
  try {
    const first = insertReset(user.id, Date.now() - 1000, null);
    for (let i = 0; i < 100 && exists("password_resets", "token_hash", first); i++) await Bun.sleep(10);
    expect(exists("password_resets", "token_hash", first)).toBe(false);
    const second = insertReset(user.id, Date.now() - 1000, null);
    for (let i = 0; i < 100 && exists("password_resets", "token_hash", second); i++) await Bun.sleep(10);
    expect(exists("password_resets", "token_hash", second)).toBe(false);
  } finally {
    job.stop();
  }
  const third = insertReset(user.id, Date.now() - 1000, null);
  await Bun.sleep(100);
  expect(exists("password_resets", "token_hash", third)).toBe(true);
});

test("a server purges once as it starts", async () => {
  const dir = tempDir("quire-maint-");
  try {
    const first = await startTestServer({}, { dataDir: dir, keepDir: true });
    const user = await registerUser(first.url);
    await first.close();
    const raw = new Database(join(dir, "quire.db"));
    raw.query("UPDATE sessions SET expires_at = ? WHERE user_id = ?").run(Date.now() - 1000, user.id);
    raw.query("INSERT INTO password_resets (token_hash, user_id, created_at, expires_at) VALUES ('stale', ?, 0, 1)").run(user.id);
    raw.close();
    const second = await startTestServer({}, { dataDir: dir, keepDir: true });
    try {
      const left = (sql: string) => second.services.db.query<{ n: number }, []>(`SELECT COUNT(*) AS n FROM ${sql}`).get()!.n;
      expect(left("sessions")).toBe(0);
      expect(left("refresh_tokens")).toBe(0);
      expect(left("password_resets")).toBe(0);
      expect(left("users")).toBe(1);
    } finally {
      await second.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
