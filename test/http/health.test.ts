import { expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { startTestServer, tempDir } from "../helpers/server.ts";
import { Client } from "../helpers/client.ts";
import { gitBinary, readinessChecks } from "../../src/ops/readiness.ts";
import { openDatabase, migrate } from "../../src/db/database.ts";

test("the instance id is stable across restarts of one data directory and differs between directories", async () => {
  const dir = tempDir();
  try {
    const first = await startTestServer({}, { dataDir: dir, keepDir: true });
    const a = await new Client(first.url).get("/api/health");
    await first.close();
    const second = await startTestServer({}, { dataDir: dir, keepDir: true });
    const b = await new Client(second.url).get("/api/health");
    await second.close();
    expect(a.body.instance_id).toMatch(/^[0-9A-HJKMNP-TV-Z]{26}$/);
    expect(b.body.instance_id).toBe(a.body.instance_id);

    const other = await startTestServer();
    const c = await new Client(other.url).get("/api/health");
    await other.close();
    expect(c.body.instance_id).not.toBe(a.body.instance_id);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("an unusable database makes /api/ready answer 503 not_ready while /api/health stays up", async () => {
  const server = await startTestServer();
  try {
    expect((await new Client(server.url).get("/api/ready")).status).toBe(200);
    server.services.db.close();
    const r = await new Client(server.url).get("/api/ready");
    expect(r.status).toBe(503);
    expect(r.body.status).toBe("not_ready");
    expect(r.body.checks.database.status).toBe("error");
    expect(r.body.checks.email_outbox.status).toBe("error");
    expect(r.text).not.toContain(server.dataDir);
    expect(r.headers.get("x-request-id")).toBeTruthy();
    expect((await new Client(server.url).get("/api/health")).status).toBe(200);
  } finally {
    await server.close();
  }
});

test("a missing git binary is a warning, not a failure", () => {
  const db = openDatabase(":memory:");
  migrate(db);
  expect(gitBinary("")).toBeNull();
  expect(gitBinary("/nonexistent-dir")).toBeNull();
  const r = readinessChecks(db, { findGit: () => gitBinary("") });
  expect(r.ready).toBe(true);
  expect(r.checks.git.status).toBe("warning");
  expect(r.checks.git.message).toContain("git");
  const present = readinessChecks(db, { findGit: () => "/usr/bin/git" });
  expect(present.checks.git).toEqual({ status: "ok" });
  db.close();
});

test("mail waiting over an hour turns the outbox check into a warning; readiness holds", () => {
  const db = openDatabase(":memory:");
  migrate(db);
  const now = Date.now();
  db.query(
    "INSERT INTO email_outbox (id, to_address, subject, text_body, status, next_attempt_at, created_at) VALUES ('m1', 'a@b.c', 's', 't', 'pending', ?, ?)",
  ).run(now - 2 * 3600_000, new Date(now).toISOString());
  const r = readinessChecks(db, { nowMs: now });
  expect(r.ready).toBe(true);
  expect(r.checks.email_outbox).toMatchObject({ status: "warning", pending: 1 });
  expect(readinessChecks(db, { nowMs: now - 2 * 3600_000 }).checks.email_outbox).toEqual({ status: "ok", pending: 1 });
  db.close();
});
