import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { Client } from "../helpers/client.ts";
import { errorOf, signUp, snapshot, type Registered } from "./support.ts";

let server: TestServer;
let existing: Registered;
beforeAll(async () => {
  server = await startTestServer();
  existing = await signUp(server.url);
});
afterAll(() => server.close());

const BIG = "x".repeat(100_000);
const CONTROL_NAMES = ["Eve\u0000", "Eve\u0007bell", "two\nlines", "tab\there", "\u202Eevil.exe", "left\u2066isolate", "del\u007f", "c1\u0085"];
const CONTROL_EMAILS = ["eve\u0000@example.test", "\u202Eeve@example.test", "eve@example.test\u202E", "eve\n@example.test", "eve@exa mple.test"];

interface Case {
  label: string;
  body: unknown;
  status: number;
  code: string;
  field?: string;
}

/** Sends each case from a fresh address (so rate limits stay out of the way) and checks the answer. */
async function check(path: string, cases: Case[]) {
  for (const c of cases) {
    const r = await new Client(server.url).post(path, c.body);
    try {
      const body = errorOf(r, c.status, c.code);
      if (c.field !== undefined) expect(body.details?.field).toBe(c.field);
      // No stack traces, paths or echoes of huge input.
      expect(r.text).not.toMatch(/node_modules|\/src\/|at [A-Za-z]+ \(/);
      expect(r.text.length).toBeLessThan(2000);
    } catch (error) {
      throw new Error(`${path} ${c.label}: ${(error as Error).message}`);
    }
  }
}

const reg = (over: Record<string, unknown>) => ({
  name: "Valid Name",
  email: `valid.${Math.random().toString(36).slice(2)}@example.test`,
  password: "long enough password",
  terms_accepted: true,
  ...over,
});
const without = (key: string) => {
  const b: Record<string, unknown> = reg({});
  delete b[key];
  return b;
};

describe("register rejects bad input and creates nothing", () => {
  test("missing, extra and mistyped fields; 100 KB strings; control and bidi characters", async () => {
    const before = snapshot(server.services.db);
    const v = (label: string, body: unknown, field?: string): Case => ({ label, body, status: 400, code: "VALIDATION_ERROR", ...(field ? { field } : {}) });
    await check("/api/auth/register", [
      v("empty object", {}, "name"),
      v("no name", without("name"), "name"),
      v("no email", without("email"), "email"),
      v("no password", without("password"), "password"),
      v("no terms", without("terms_accepted"), "terms_accepted"),
      v("extra is_platform_owner", reg({ is_platform_owner: true }), "is_platform_owner"),
      v("extra email_verified", reg({ email_verified: true }), "email_verified"),
      v("extra role", reg({ role: "super_admin" }), "role"),
      v("extra id", reg({ id: "01ARZ3NDEKTSV4RRFFQ69G5FAV" }), "id"),
      v("name number", reg({ name: 42 }), "name"),
      v("name object", reg({ name: { first: "a" } }), "name"),
      v("email array", reg({ email: ["a@example.test"] }), "email"),
      v("email null", reg({ email: null }), "email"),
      v("password number", reg({ password: 12345678 }), "password"),
      v("password array", reg({ password: ["long enough password"] }), "password"),
      v("terms string", reg({ terms_accepted: "true" }), "terms_accepted"),
      v("100 KB name", reg({ name: BIG }), "name"),
      v("101 character name", reg({ name: "n".repeat(101) }), "name"),
      v("blank name", reg({ name: "   " }), "name"),
      v("100 KB email", reg({ email: `${BIG}@example.test` }), "email"),
      v("100 KB password", reg({ password: BIG }), "password"),
      ...CONTROL_NAMES.map((name) => v(`name ${JSON.stringify(name)}`, reg({ name }), "name")),
      ...CONTROL_EMAILS.map((email) => v(`email ${JSON.stringify(email)}`, reg({ email }), "email")),
      v("email without domain", reg({ email: "eve@" }), "email"),
      v("email without at", reg({ email: "eve.example.test" }), "email"),
      v("SQL in email", reg({ email: "x' OR '1'='1" }), "email"),
      v("JSON array body", [reg({})]),
      v("JSON string body", "register me"),
      v("JSON number body", 42),
    ]);
    // Duplicate of an existing account in another guise is a conflict, not a new row.
    await check("/api/auth/register", [{ label: "duplicate", body: reg({ email: ` ${existing.email.toUpperCase()}` }), status: 409, code: "CONFLICT", field: "email" }]);
    expect(snapshot(server.services.db)).toBe(before);
  });

  test("malformed JSON and non-JSON bodies are 400 VALIDATION_ERROR", async () => {
    const before = snapshot(server.services.db);
    for (const [body, type] of [
      ['{"name": "Eve", "email":', "application/json"],
      ["{'name': 'Eve'}", "application/json"],
      ["", "application/json"],
      ["name=Eve&email=eve@example.test&password=long+enough+password&terms_accepted=true", "application/x-www-form-urlencoded"],
      ["just some text", "text/plain"],
    ] as const) {
      const r = await new Client(server.url).request("POST", "/api/auth/register", { body, headers: { "content-type": type } });
      errorOf(r, 400, "VALIDATION_ERROR");
    }
    expect(snapshot(server.services.db)).toBe(before);
  });

  test("unicode names and addresses, SQL-looking and HTML-looking text are stored exactly as given", async () => {
    for (const [name, email] of [
      ["Zoë Ångström-山田 🚀", `zoë.${Date.now()}@例え.jp`],
      ["Robert'); DROP TABLE users;--", `admin'--${Date.now()}@example.test`],
      ["<script>alert(1)</script>", `o'brien+tag.${Date.now()}@example.test`],
      ["مرحبا بالعالم", `plain.${Date.now()}@example.test`],
    ]) {
      const c = new Client(server.url);
      const r = await c.post("/api/auth/register", reg({ name, email }));
      expect(r.status).toBe(201);
      expect(r.body.user.name).toBe(name);
      const row = server.services.db.query<any, [string]>("SELECT name, email FROM users WHERE id = ?").get(r.body.user.id);
      expect(row).toEqual({ name, email });
      const login = await new Client(server.url).post("/api/auth/login", { email, password: "long enough password" });
      expect(login.status).toBe(200);
    }
    // The users table is intact.
    expect(server.services.db.query<{ n: number }, []>("SELECT COUNT(*) AS n FROM users").get()!.n).toBeGreaterThan(4);
  });
});

describe("login, refresh, forgot and reset reject bad input and change nothing", () => {
  test("login", async () => {
    const before = snapshot(server.services.db);
    await check("/api/auth/login", [
      { label: "empty", body: {}, status: 400, code: "VALIDATION_ERROR", field: "email" },
      { label: "no password", body: { email: existing.email }, status: 400, code: "VALIDATION_ERROR", field: "password" },
      { label: "email number", body: { email: 1, password: "x" }, status: 400, code: "VALIDATION_ERROR", field: "email" },
      { label: "password null", body: { email: existing.email, password: null }, status: 400, code: "VALIDATION_ERROR", field: "password" },
      { label: "password object", body: { email: existing.email, password: { $ne: "" } }, status: 400, code: "VALIDATION_ERROR", field: "password" },
      { label: "extra field", body: { email: existing.email, password: existing.password, admin: true }, status: 400, code: "VALIDATION_ERROR", field: "admin" },
      { label: "100 KB email", body: { email: BIG, password: "x" }, status: 400, code: "VALIDATION_ERROR", field: "email" },
      { label: "100 KB password", body: { email: existing.email, password: BIG }, status: 400, code: "VALIDATION_ERROR", field: "password" },
      { label: "array body", body: [existing.email, existing.password], status: 400, code: "VALIDATION_ERROR" },
      { label: "SQL email", body: { email: "' OR '1'='1", password: "' OR '1'='1" }, status: 401, code: "UNAUTHORIZED" },
      { label: "SQL email comment", body: { email: `${existing.email}'--`, password: "anything" }, status: 401, code: "UNAUTHORIZED" },
      { label: "control chars", body: { email: `${existing.email}\u0000`, password: existing.password }, status: 401, code: "UNAUTHORIZED" },
    ]);
    expect(snapshot(server.services.db)).toBe(before);
    // A SQL-looking password against a real account is just a wrong password.
    errorOf(await new Client(server.url).post("/api/auth/login", { email: existing.email, password: "' OR 1=1 --" }), 401, "UNAUTHORIZED");
    server.services.db.query("UPDATE users SET failed_logins = 0 WHERE id = ?").run(existing.id);
  });

  test("refresh", async () => {
    const before = snapshot(server.services.db);
    await check("/api/auth/refresh", [
      { label: "number", body: { refresh_token: 123 }, status: 400, code: "VALIDATION_ERROR", field: "refresh_token" },
      { label: "empty string", body: { refresh_token: "" }, status: 400, code: "VALIDATION_ERROR", field: "refresh_token" },
      { label: "100 KB", body: { refresh_token: BIG }, status: 400, code: "VALIDATION_ERROR", field: "refresh_token" },
      { label: "extra", body: { refresh_token: "abc", user_id: existing.id }, status: 400, code: "VALIDATION_ERROR", field: "user_id" },
      { label: "SQL", body: { refresh_token: "' OR 1=1 --" }, status: 401, code: "UNAUTHORIZED" },
      { label: "unicode", body: { refresh_token: "\u202E🔑" }, status: 401, code: "UNAUTHORIZED" },
    ]);
    expect(snapshot(server.services.db)).toBe(before);
  });

  test("forgot-password", async () => {
    const before = snapshot(server.services.db);
    await check("/api/auth/forgot-password", [
      { label: "empty", body: {}, status: 400, code: "VALIDATION_ERROR", field: "email" },
      { label: "number", body: { email: 5 }, status: 400, code: "VALIDATION_ERROR", field: "email" },
      { label: "100 KB", body: { email: BIG }, status: 400, code: "VALIDATION_ERROR", field: "email" },
      { label: "extra", body: { email: existing.email, redirect: "https://evil.example" }, status: 400, code: "VALIDATION_ERROR", field: "redirect" },
    ]);
    // Strange but well-typed addresses get the ordinary answer.
    for (const email of ["' OR 1=1 --", "\u202Eeve@example.test", "not-an-email"]) {
      expect((await new Client(server.url).post("/api/auth/forgot-password", { email })).status).toBe(200);
    }
    expect(snapshot(server.services.db)).toBe(before);
  });

  test("reset-password", async () => {
    const before = snapshot(server.services.db);
    await check("/api/auth/reset-password", [
      { label: "empty", body: {}, status: 400, code: "VALIDATION_ERROR", field: "token" },
      { label: "no new_password", body: { token: "abc" }, status: 400, code: "VALIDATION_ERROR", field: "new_password" },
      { label: "token number", body: { token: 7, new_password: "long enough password" }, status: 400, code: "VALIDATION_ERROR", field: "token" },
      { label: "password number", body: { token: "abc", new_password: 12345678 }, status: 400, code: "VALIDATION_ERROR", field: "new_password" },
      { label: "100 KB token", body: { token: BIG, new_password: "long enough password" }, status: 400, code: "VALIDATION_ERROR", field: "token" },
      { label: "100 KB password", body: { token: "abc", new_password: BIG }, status: 400, code: "VALIDATION_ERROR", field: "new_password" },
      { label: "extra", body: { token: "abc", new_password: "long enough password", email: existing.email }, status: 400, code: "VALIDATION_ERROR", field: "email" },
      { label: "SQL token", body: { token: "' OR 1=1 --", new_password: "long enough password" }, status: 400, code: "VALIDATION_ERROR", field: "token" },
    ]);
    expect(snapshot(server.services.db)).toBe(before);
  });
});
