import { afterAll, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { join } from "node:path";
import type { AddressInfo } from "node:net";
import { SMTPServer } from "smtp-server";
import { openDatabase, migrate, type Db } from "../../src/db/database.ts";
import { EmailOutbox, type OutboxTiming } from "../../src/mail/email-outbox.ts";
import { silentLogger } from "../../src/core/log.ts";
import type { SmtpConfig } from "../../src/config.ts";
import { tempDir } from "../helpers/server.ts";

/**
 * The outbox against a real SMTP server on loopback that can refuse mail (a 451 at RCPT TO, as a
 * greylisting or overloaded relay does) and later accept it, over a real SQLite file. The backoff
 * is shortened so retries happen within the test.
 */
interface Relay {
  port: number;
  refusing: boolean;
  /** RCPT TO commands seen (each is one delivery attempt). */
  attempts: number;
  /** When each attempt arrived (ms). */
  times: number[];
  accepted: string[];
  close(): Promise<void>;
}
async function startRelay(refusing: boolean): Promise<Relay> {
  const relay = { port: 0, refusing, attempts: 0, times: [] as number[], accepted: [] as string[], close: async () => {} };
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS", "AUTH"],
    logger: false,
    onRcptTo(address, _session, callback) {
      relay.attempts++;
      relay.times.push(Date.now());
      if (relay.refusing) {
        const err = new Error("Try again later") as Error & { responseCode: number };
        err.responseCode = 451;
        return callback(err);
      }
      callback();
    },
    onData(stream, session, callback) {
      stream.on("data", () => {});
      stream.on("end", () => {
        relay.accepted.push(...session.envelope.rcptTo.map((r) => r.address));
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  relay.port = ((server as unknown as { server: { address(): AddressInfo } }).server.address()).port;
  relay.close = () => new Promise<void>((resolve) => server.close(() => resolve()));
  return relay;
}

const cleanups: Array<() => Promise<void> | void> = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c();
});

function database(dir: string): Db {
  const db = openDatabase(join(dir, "quire.db"));
  migrate(db);
  return db;
}
const smtpFor = (relay: Relay): SmtpConfig => ({ host: "127.0.0.1", port: relay.port, secure: false, from: "quire@example.test" });
/** Attempts after n failures wait 40 ms × 2^(n-1): 40, 80, 160, ... */
const backoffs: number[] = [];
const fast = (maxAttempts: number): OutboxTiming => ({
  maxAttempts,
  pollMs: 20,
  backoffMs: (attempts) => {
    backoffs.push(attempts);
    return 40 * 2 ** (attempts - 1);
  },
});
type Row = { status: string; attempts: number; next_attempt_at: number; last_error: string | null; sent_at: string | null };
const rowOf = (db: Db, id: string) =>
  db.query<Row, [string]>("SELECT status, attempts, next_attempt_at, last_error, sent_at FROM email_outbox WHERE id = ?").get(id)!;
async function until(check: () => boolean, timeoutMs = 5000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > end) throw new Error("condition not reached in time");
    await Bun.sleep(10);
  }
}
function setup(relay: Relay, timing: OutboxTiming, dir = tempDir("quire-outbox-")) {
  const db = database(dir);
  const outbox = new EmailOutbox(db, smtpFor(relay), silentLogger, timing);
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }), () => db.close(), () => outbox.stop());
  return { db, outbox, dir };
}

test("a refused message is retried with growing waits and delivered once the relay accepts", async () => {
  const relay = await startRelay(true);
  cleanups.push(() => relay.close());
  const { db, outbox } = setup(relay, fast(8));
  const id = outbox.enqueue({ to: "reader@example.test", subject: "Hello", text: "Body" })!;
  outbox.start();

  await until(() => relay.attempts === 2);
  relay.refusing = false;
  await until(() => rowOf(db, id).status === "sent");
  const sent = rowOf(db, id);
  expect(sent.last_error).toBeNull();
  expect(sent.sent_at).not.toBeNull();
  // Each retry waited its backoff (40 ms, then 80 ms; timers never fire early) before trying again.
  const [t1, t2, t3] = relay.times as [number, number, number];
  expect(t2 - t1).toBeGreaterThanOrEqual(40 - 2);
  expect(t3 - t2).toBeGreaterThanOrEqual(80 - 2);
  expect(sent.attempts).toBe(relay.attempts);
  expect(backoffs.slice(0, 2)).toEqual([1, 2]);
  expect(relay.accepted).toEqual(["reader@example.test"]);
  expect(backoffs.slice(0, 2)).toEqual([1, 2]);
  // Sent is final: it is not delivered again.
  await Bun.sleep(100);
  expect(relay.accepted).toHaveLength(1);
});

test("after the last attempt the message is failed for good and never retried", async () => {
  const relay = await startRelay(true);
  cleanups.push(() => relay.close());
  const { db, outbox } = setup(relay, fast(3));
  const id = outbox.enqueue({ to: "nobody@example.test", subject: "Lost", text: "Body" })!;
  outbox.kick();
  await until(() => rowOf(db, id).status === "failed");
  const failed = rowOf(db, id);
  expect(failed.attempts).toBe(3);
  expect(failed.sent_at).toBeNull();
  expect(failed.last_error).toContain("451");
  expect(relay.attempts).toBe(3);

  relay.refusing = false;
  await Bun.sleep(200);
  expect(relay.attempts).toBe(3);
  expect(relay.accepted).toEqual([]);
  expect(rowOf(db, id).status).toBe("failed");
});

test("mail queued before a restart is delivered after it: refused before, pending across it, never attempted", async () => {
  const relay = await startRelay(true);
  cleanups.push(() => relay.close());
  const dir = tempDir("quire-outbox-");
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));

  // First run: one message is refused once; another is queued but the process stops before sending it.
  let db = database(dir);
  let outbox = new EmailOutbox(db, smtpFor(relay), silentLogger, fast(8));
  const refused = outbox.enqueue({ to: "first@example.test", subject: "One", text: "Body" })!;
  outbox.kick();
  await until(() => rowOf(db, refused).attempts === 1);
  await outbox.stop();
  const triedBefore = rowOf(db, refused).attempts;
  expect(rowOf(db, refused).status).toBe("pending");
  const queued = outbox.enqueue({ to: "second@example.test", subject: "Two", text: "Body" })!;
  expect(rowOf(db, queued)).toMatchObject({ status: "pending", attempts: 0 });
  db.close();

  // Second run over the same database file, the relay accepting now.
  relay.refusing = false;
  db = database(dir);
  outbox = new EmailOutbox(db, smtpFor(relay), silentLogger, fast(8));
  cleanups.push(() => db.close(), () => outbox.stop());
  outbox.start();
  await until(() => rowOf(db, refused).status === "sent" && rowOf(db, queued).status === "sent");
  expect(rowOf(db, refused).attempts).toBe(triedBefore + 1);
  expect(rowOf(db, queued).attempts).toBe(1);
  expect(relay.accepted.sort()).toEqual(["first@example.test", "second@example.test"]);
});

test("the production schedule: 5 s after the first failure, doubling, capped at 30 minutes, 8 attempts", async () => {
  const { DEFAULT_OUTBOX_TIMING: t } = await import("../../src/mail/email-outbox.ts");
  expect(t.maxAttempts).toBe(8);
  expect([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 20].map((n) => t.backoffMs(n))).toEqual([
    5_000, 10_000, 20_000, 40_000, 80_000, 160_000, 320_000, 640_000, 1_280_000, 1_800_000, 1_800_000,
  ]);
});
