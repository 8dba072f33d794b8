import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { startSmtpServer, type SmtpTestServer } from "../helpers/smtp.ts";
import { Client } from "../helpers/client.ts";
import { errorOf, logIn, signUp, snapshot } from "./support.ts";

const BASE_URL = "http://docs.example.test";
let smtp: SmtpTestServer;
let server: TestServer;
beforeAll(async () => {
  smtp = await startSmtpServer();
  server = await startTestServer({ ...smtp.env, BASE_URL, QUIRE_LOGIN_LOCK_THRESHOLD: "2" });
});
afterAll(async () => {
  await server.close();
  await smtp.close();
});

const forgot = (email: string) => new Client(server.url).post("/api/auth/forgot-password", { email });
const reset = (token: string, new_password: string) => new Client(server.url).post("/api/auth/reset-password", { token, new_password });
const login = (email: string, password: string) => new Client(server.url).post("/api/auth/login", { email, password });
const tokenIn = (text: string): string => {
  const m = new RegExp(`${BASE_URL.replace(/\./g, "\\.")}/reset-password\\?token=([A-Za-z0-9_%-]+)`).exec(text);
  if (!m) throw new Error(`no reset link in: ${text}`);
  return decodeURIComponent(m[1]!);
};
/** The mail that arrived for `email`, once the outbox has also recorded it as sent. */
async function mailTo(email: string) {
  const mail = await smtp.waitFor((m) => m.to.includes(email), 5000);
  for (let i = 0; i < 100 && outboxPending(); i++) await Bun.sleep(10);
  return mail;
}
const outboxPending = () =>
  server.services.db.query<{ n: number }, []>("SELECT COUNT(*) AS n FROM email_outbox WHERE status = 'pending'").get()!.n > 0;

describe("forgot-password with SMTP configured", () => {
  test("emails a one-hour link to an existing account; an unknown address gets the same 200 and no email", async () => {
    const u = await signUp(server.url);
    const known = await forgot(u.email);
    const unknownAddress = `nobody.${Date.now()}@example.test`;
    const unknown = await forgot(unknownAddress);
    expect(known.status).toBe(200);
    expect(unknown.status).toBe(200);
    expect(known.body).toEqual(unknown.body);
    expect(known.text).not.toContain(u.id);

    const mail = await mailTo(u.email);
    expect(mail.subject).toContain("Reset");
    expect(mail.from).toBe("quire@example.test");
    const token = tokenIn(mail.text);
    expect(tokenIn(mail.html)).toBe(token);

    // Stored as SHA-256 only, expiring in one hour, unused; the mail went through the outbox.
    const rows = server.services.db.query<any, [string]>("SELECT * FROM password_resets WHERE user_id = ?").all(u.id);
    expect(rows).toHaveLength(1);
    expect(rows[0].token_hash).toBe(new Bun.CryptoHasher("sha256").update(token).digest("hex"));
    expect(rows[0].expires_at - rows[0].created_at).toBe(3600_000);
    expect(rows[0].used_at).toBeNull();
    const outbox = server.services.db.query<any, [string]>("SELECT status FROM email_outbox WHERE to_address = ?").all(u.email);
    expect(outbox).toEqual([{ status: "sent" }]);

    // Nothing for the unknown address: no row, no mail.
    expect(server.services.db.query("SELECT COUNT(*) AS n FROM email_outbox WHERE to_address = ?").get(unknownAddress)).toEqual({ n: 0 });
    await Bun.sleep(100);
    expect(smtp.messages.some((m) => m.to.includes(unknownAddress))).toBe(false);
    // The link never reaches the logs.
    expect(server.logs.join("\n")).not.toContain(token);
  });

  test("the mail goes to the address on the account, whatever case or spacing was typed", async () => {
    const u = await signUp(server.url);
    expect((await forgot(`  ${u.email.toUpperCase()}  `)).status).toBe(200);
    const mail = await mailTo(u.email);
    expect(mail.envelopeTo).toEqual([u.email]);
    expect(mail.to).toEqual([u.email]);
  });

  test("the token sets the new password, clears the lockout and revokes every session", async () => {
    const u = await signUp(server.url);
    const laptop = await logIn(server.url, u.email, u.password, "Laptop");
    // Lock the account (threshold 2).
    await login(u.email, "wrong");
    await login(u.email, "wrong again");
    expect((await login(u.email, u.password)).status).toBe(401);

    await forgot(u.email);
    const token = tokenIn((await mailTo(u.email)).text);
    const r = await reset(token, "a brand new secret");
    expect(r.status).toBe(200);
    expect(typeof r.body.message).toBe("string");

    const row = server.services.db.query<any, [string]>("SELECT failed_logins, locked_until, password_hash FROM users WHERE id = ?").get(u.id);
    expect(row.failed_logins).toBe(0);
    expect(row.locked_until).toBeNull();
    expect(row.password_hash).toStartWith("$argon2id$");
    expect(server.services.db.query("SELECT COUNT(*) AS n FROM sessions WHERE user_id = ?").get(u.id)).toEqual({ n: 0 });
    errorOf(await laptop.client.get("/api/auth/me"), 401, "UNAUTHORIZED");
    errorOf(await u.client.get("/api/auth/me"), 401, "UNAUTHORIZED");
    errorOf(await new Client(server.url).post("/api/auth/refresh", { refresh_token: laptop.refreshToken }), 401, "UNAUTHORIZED");

    errorOf(await login(u.email, u.password), 401, "UNAUTHORIZED");
    expect((await login(u.email, "a brand new secret")).status).toBe(200);
  });

  test("a token works once; a second use is 400 on the token and changes nothing", async () => {
    const u = await signUp(server.url);
    await forgot(u.email);
    const token = tokenIn((await mailTo(u.email)).text);
    expect((await reset(token, "first new password")).status).toBe(200);
    const used = server.services.db.query<any, [string]>("SELECT used_at FROM password_resets WHERE user_id = ?").get(u.id);
    expect(used.used_at).toBeGreaterThan(0);

    const before = snapshot(server.services.db);
    const again = await reset(token, "second new password");
    expect(errorOf(again, 400, "VALIDATION_ERROR").details.field).toBe("token");
    expect(snapshot(server.services.db)).toBe(before);
    expect((await login(u.email, "first new password")).status).toBe(200);
  });

  test("two concurrent uses of one token: exactly one succeeds", async () => {
    const u = await signUp(server.url);
    await forgot(u.email);
    const token = tokenIn((await mailTo(u.email)).text);
    const results = await Promise.all([reset(token, "password number one"), reset(token, "password number two")]);
    expect(results.map((r) => r.status).sort()).toEqual([200, 400]);
    const winner = results[0]!.status === 200 ? "password number one" : "password number two";
    expect((await login(u.email, winner)).status).toBe(200);
  });

  test("an expired token is refused and the password stays", async () => {
    const u = await signUp(server.url);
    await forgot(u.email);
    const token = tokenIn((await mailTo(u.email)).text);
    // An hour has passed.
    server.services.db.query("UPDATE password_resets SET expires_at = ? WHERE user_id = ?").run(Date.now() - 1, u.id);
    const before = snapshot(server.services.db);
    const r = await reset(token, "too late for this");
    expect(errorOf(r, 400, "VALIDATION_ERROR").details.field).toBe("token");
    expect(snapshot(server.services.db)).toBe(before);
    expect((await login(u.email, u.password)).status).toBe(200);
  });

  test("a bad token and a bad new password are 400 and do not use up a good token", async () => {
    const u = await signUp(server.url);
    await forgot(u.email);
    const token = tokenIn((await mailTo(u.email)).text);
    const before = snapshot(server.services.db);
    expect(errorOf(await reset("not-a-real-token", "whatever password"), 400, "VALIDATION_ERROR").details.field).toBe("token");
    expect(errorOf(await reset(token.slice(0, -1) + (token.endsWith("A") ? "B" : "A"), "whatever password"), 400, "VALIDATION_ERROR").details.field).toBe(
      "token",
    );
    expect(errorOf(await reset(token, "short"), 400, "VALIDATION_ERROR").details.field).toBe("new_password");
    expect(errorOf(await reset(token, "x".repeat(1025)), 400, "VALIDATION_ERROR").details.field).toBe("new_password");
    expect(snapshot(server.services.db)).toBe(before);
    // Exactly 8 characters is fine, and the token still works.
    expect((await reset(token, "12345678")).status).toBe(200);
    expect((await login(u.email, "12345678")).status).toBe(200);
  });

  test("using one link kills the other links sent to the same account", async () => {
    const u = await signUp(server.url);
    await forgot(u.email);
    await forgot(u.email);
    await smtp.waitFor(() => smtp.messages.filter((m) => m.to.includes(u.email)).length === 2);
    const [a, b] = smtp.messages.filter((m) => m.to.includes(u.email)).map((m) => tokenIn(m.text));
    expect(a).not.toBe(b);
    expect((await reset(b!, "the newest password")).status).toBe(200);
    expect(errorOf(await reset(a!, "an older link's password"), 400, "VALIDATION_ERROR").details.field).toBe("token");
  });

  test("changing the password while signed in kills every link mailed before the change", async () => {
    const u = await signUp(server.url);
    await forgot(u.email);
    const token = tokenIn((await mailTo(u.email)).text);
    const changed = await u.client.post("/api/auth/change-password", { current_password: u.password, new_password: "changed while signed in" });
    expect(changed.status).toBe(200);
    const rows = server.services.db.query<{ used_at: number | null }, [string]>("SELECT used_at FROM password_resets WHERE user_id = ?").all(u.id);
    expect(rows).toHaveLength(1);
    expect(rows[0]!.used_at).toBeNumber();

    // The old link no longer sets a password; the changed one stays.
    expect(errorOf(await reset(token, "set through an old link"), 400, "VALIDATION_ERROR").details.field).toBe("token");
    expect((await login(u.email, "set through an old link")).status).toBe(401);
    expect((await login(u.email, "changed while signed in")).status).toBe(200);
    // A link asked for after the change works as usual.
    await forgot(u.email);
    await smtp.waitFor(() => smtp.messages.filter((m) => m.to.includes(u.email)).length === 2);
    const fresh = tokenIn(smtp.messages.filter((m) => m.to.includes(u.email))[1]!.text);
    expect((await reset(fresh, "set through a new link")).status).toBe(200);
  });

  test("one account gets at most five live links, however many addresses ask", async () => {
    const u = await signUp(server.url);
    for (let i = 0; i < 7; i++) expect((await forgot(u.email)).status).toBe(200);
    expect(server.services.db.query("SELECT COUNT(*) AS n FROM password_resets WHERE user_id = ?").get(u.id)).toEqual({ n: 5 });
    expect(server.services.db.query("SELECT COUNT(*) AS n FROM email_outbox WHERE to_address = ?").get(u.email)).toEqual({ n: 5 });
  });

  test("forgot/reset are limited to 5 per 15 minutes per address", async () => {
    const c = new Client(server.url);
    for (let i = 0; i < 5; i++) expect((await c.post("/api/auth/forgot-password", { email: `x${i}@example.test` })).status).toBe(200);
    const r = await c.post("/api/auth/reset-password", { token: "t", new_password: "whatever password" });
    errorOf(r, 429, "RATE_LIMITED");
    expect(r.headers.get("x-ratelimit-limit")).toBe("5");
    expect(Number(r.headers.get("retry-after"))).toBeGreaterThan(800);
  });
});

describe("forgot-password without email", () => {
  test("answers the same 200 but creates no token, queues nothing and logs no link", async () => {
    const bare = await startTestServer({ BASE_URL });
    try {
      const u = await signUp(bare.url);
      const before = snapshot(bare.services.db);
      const known = await new Client(bare.url).post("/api/auth/forgot-password", { email: u.email });
      const unknown = await new Client(bare.url).post("/api/auth/forgot-password", { email: "nobody@example.test" });
      expect(known.status).toBe(200);
      expect(known.body).toEqual(unknown.body);
      expect(snapshot(bare.services.db)).toBe(before);
      expect(bare.logs.join("\n")).not.toMatch(/reset-password\?token|password_reset|reset link/i);
    } finally {
      await bare.close();
    }
  });
});
