import { afterAll, describe, expect, test } from "bun:test";
import { ConfigError, loadConfig } from "../src/config.ts";
import { startTestServer, tempDir, TEST_ENV, type TestServer } from "./helpers/server.ts";
import { Client } from "./helpers/client.ts";
import { errorOf, signUp } from "./identity/support.ts";
import { runCli } from "./cli/spawn.ts";
import { existsSync, rmSync } from "node:fs";
import { join } from "node:path";

/** The problems loadConfig reports for `env`, or [] when it accepts it. */
function problemsOf(env: Record<string, string>): string[] {
  try {
    loadConfig(env);
    return [];
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    return error.problems;
  }
}

const servers: TestServer[] = [];
const dirs: string[] = [];
afterAll(async () => {
  for (const s of servers) await s.close();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe("argon2 parameters", () => {
  test("less than 8 KiB of memory per thread is refused at start-up (argon2 would fail every hash)", () => {
    expect(problemsOf({ ARGON2_MEMORY: "8", ARGON2_THREADS: "2" })).toEqual([
      "ARGON2_MEMORY must be at least 8 KiB per thread (8 × ARGON2_THREADS = 16; got 8)",
    ]);
    expect(problemsOf({ ARGON2_MEMORY: "511", ARGON2_THREADS: "64" })).toHaveLength(1);
    // The default thread count (2) counts too.
    expect(problemsOf({ ARGON2_MEMORY: "15" })).toHaveLength(1);
    expect(problemsOf({ ARGON2_MEMORY: "8", ARGON2_THREADS: "1" })).toEqual([]);
    expect(problemsOf({ ARGON2_MEMORY: "512", ARGON2_THREADS: "64" })).toEqual([]);
  });

  test("the other argon2 limits: memory from 8 KiB to 4 GiB, 1 to 100 passes, 1 to 64 threads", () => {
    expect(problemsOf({ ARGON2_MEMORY: "7", ARGON2_THREADS: "1" })).toEqual(['ARGON2_MEMORY must be an integer from 8 to 4194304 (got "7")']);
    expect(problemsOf({ ARGON2_MEMORY: "4194305" })).toEqual(['ARGON2_MEMORY must be an integer from 8 to 4194304 (got "4194305")']);
    expect(problemsOf({ ARGON2_TIME: "0" })).toEqual(['ARGON2_TIME must be an integer from 1 to 100 (got "0")']);
    expect(problemsOf({ ARGON2_THREADS: "0" })).toEqual(['ARGON2_THREADS must be an integer from 1 to 64 (got "0")']);
    expect(problemsOf({ ARGON2_THREADS: "65" })).toEqual(['ARGON2_THREADS must be an integer from 1 to 64 (got "65")']);
  });

  test("at the smallest accepted memory for two threads, registering and signing in work", async () => {
    const s = await startTestServer({ ARGON2_MEMORY: "16", ARGON2_THREADS: "2" });
    servers.push(s);
    const u = await signUp(s.url);
    const r = await new Client(s.url).post("/api/auth/login", { email: u.email, password: u.password });
    expect(r.status).toBe(200);
    expect(s.services.db.query<{ password_hash: string }, [string]>("SELECT password_hash FROM users WHERE id = ?").get(u.id)!.password_hash).toMatch(
      /^\$argon2id\$v=19\$m=16,t=1,p=2\$/,
    );
  });
});

describe("API key pepper", () => {
  test("a short pepper is reported under the variable it came from", () => {
    expect(problemsOf({ QUIRE_API_KEY_PEPPER: "short" })).toEqual(["QUIRE_API_KEY_PEPPER must be at least 16 characters"]);
    expect(problemsOf({ API_KEY_PEPPER: "short" })).toEqual(["API_KEY_PEPPER must be at least 16 characters"]);
    // API_KEY_PEPPER wins when both are set.
    expect(problemsOf({ API_KEY_PEPPER: "short", QUIRE_API_KEY_PEPPER: "long enough pepper value" })).toEqual([
      "API_KEY_PEPPER must be at least 16 characters",
    ]);
    expect(loadConfig({ API_KEY_PEPPER: "long enough pepper value", QUIRE_API_KEY_PEPPER: "short" }).apiKeyPepper).toBe("long enough pepper value");
    expect(loadConfig({ QUIRE_API_KEY_PEPPER: "long enough pepper value" }).apiKeyPepper).toBe("long enough pepper value");
  });
});

describe("start-up validation", () => {
  const bad = {
    QUIRE_LOGIN_LOCK_THRESHOLD: "0",
    QUIRE_LOGIN_LOCK_DURATION_SEC: "0",
    TRUST_PROXY: "sometimes",
    BASE_URL: "ftp://docs.example.test",
    SMTP_HOST: "mail.example.test",
  };
  const expected = [
    'BASE_URL must be an http(s) URL (got "ftp://docs.example.test")',
    'TRUST_PROXY must be true, false or a hop count from 0 to 10 (got "sometimes")',
    "SMTP_FROM is required when SMTP_HOST is set",
    `QUIRE_LOGIN_LOCK_THRESHOLD must be an integer from 1 to ${Number.MAX_SAFE_INTEGER} (got "0")`,
    `QUIRE_LOGIN_LOCK_DURATION_SEC must be an integer from 1 to ${Number.MAX_SAFE_INTEGER} (got "0")`,
  ];

  test("every invalid value is listed at once", () => {
    expect(problemsOf(bad).sort()).toEqual([...expected].sort());
    expect(problemsOf({ BASE_URL: "not a url" })).toEqual(['BASE_URL must be an http(s) URL (got "not a url")']);
    expect(problemsOf({ TRUST_PROXY: "11" })).toHaveLength(1);
    expect(problemsOf({ QUIRE_LOGIN_LOCK_THRESHOLD: "-1" })).toHaveLength(1);
  });

  test("serve refuses to start with exit 2, naming every problem, and creates nothing", async () => {
    const dir = tempDir("quire-config-");
    dirs.push(dir);
    const r = await runCli(["serve", "--port", "0", "--data-dir", dir], { env: bad });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe("");
    for (const problem of expected) expect(r.stderr).toContain(problem);
    expect(existsSync(join(dir, "quire.db"))).toBe(false);
  });
});

describe("login lockout defaults", () => {
  test("without overrides: 5 attempts, then locked for 900 seconds; the 6th attempt, right password included, is refused", async () => {
    expect(loadConfig({}).loginLock).toEqual({ threshold: 5, durationSec: 900 });
    const s = await startTestServer({});
    servers.push(s);
    expect(s.config.loginLock).toEqual({ threshold: 5, durationSec: 900 });
    expect(TEST_ENV.QUIRE_LOGIN_LOCK_THRESHOLD).toBeUndefined();
    const u = await signUp(s.url);
    const row = () =>
      s.services.db.query<{ failed_logins: number; locked_until: number | null }, [string]>(
        "SELECT failed_logins, locked_until FROM users WHERE id = ?",
      ).get(u.id)!;
    for (let i = 1; i <= 4; i++) {
      errorOf(await new Client(s.url).post("/api/auth/login", { email: u.email, password: "wrong password" }), 401, "UNAUTHORIZED");
      expect(row()).toEqual({ failed_logins: i, locked_until: null });
    }
    const before = Date.now();
    errorOf(await new Client(s.url).post("/api/auth/login", { email: u.email, password: "wrong password" }), 401, "UNAUTHORIZED");
    const locked = row().locked_until!;
    expect(locked).toBeGreaterThanOrEqual(before + 900_000 - 1000);
    expect(locked).toBeLessThanOrEqual(Date.now() + 900_000);
    errorOf(await new Client(s.url).post("/api/auth/login", { email: u.email, password: u.password }), 401, "UNAUTHORIZED");
  });
});
