import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { Client } from "../helpers/client.ts";
import { errorOf, logIn, signUp } from "./support.ts";

const CLI = resolve(import.meta.dir, "../../src/cli.ts");

/** Runs `quire reset-password ...` as a separate process, as an administrator would. */
async function cli(args: string[], env: Record<string, string | undefined> = {}) {
  const proc = Bun.spawn(["bun", CLI, "reset-password", ...args], {
    env: { ...process.env, ...env },
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { stdout, stderr, code };
}

const tokenOf = (link: string) => decodeURIComponent(new URL(link.trim()).searchParams.get("token")!);

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

describe("quire reset-password", () => {
  test("prints a single-use link for the account, written beside the running server; the API accepts its token", async () => {
    const u = await signUp(server.url);
    const other = await logIn(server.url, u.email, u.password);
    const r = await cli(["--email", u.email.toUpperCase(), "--data-dir", server.dataDir, "--base-url", "https://docs.example.org/"]);
    expect(r.code).toBe(0);
    const lines = r.stdout.trim().split("\n");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^https:\/\/docs\.example\.org\/reset-password\?token=[A-Za-z0-9_-]{43}$/);
    expect(r.stderr).toContain("valid until");

    const row = server.services.db.query<any, [string]>("SELECT * FROM password_resets WHERE user_id = ?").get(u.id);
    expect(row.expires_at - row.created_at).toBe(3600_000);

    const token = tokenOf(lines[0]!);
    const reset = await new Client(server.url).post("/api/auth/reset-password", { token, new_password: "chosen by the admin" });
    expect(reset.status).toBe(200);
    errorOf(await other.client.get("/api/auth/me"), 401, "UNAUTHORIZED");
    expect((await new Client(server.url).post("/api/auth/login", { email: u.email, password: "chosen by the admin" })).status).toBe(200);
    // Single use.
    const again = await new Client(server.url).post("/api/auth/reset-password", { token, new_password: "another password" });
    expect(errorOf(again, 400, "VALIDATION_ERROR").details.field).toBe("token");
  });

  test("BASE_URL is used without --base-url, http://localhost:3000 without either; DATA_DIR finds the database", async () => {
    const u = await signUp(server.url);
    const fromEnv = await cli(["--email", u.email], { DATA_DIR: server.dataDir, BASE_URL: "http://wiki.internal:8080" });
    expect(fromEnv.code).toBe(0);
    expect(fromEnv.stdout).toStartWith("http://wiki.internal:8080/reset-password?token=");
    const fallback = await cli(["--email", u.email, "--data-dir", server.dataDir], { BASE_URL: undefined });
    expect(fallback.code).toBe(0);
    expect(fallback.stdout).toStartWith("http://localhost:3000/reset-password?token=");
    // The flag beats the environment.
    const flag = await cli(["--email", u.email, "--data-dir", server.dataDir, "--base-url", "http://flag.example"], { BASE_URL: "http://env.example" });
    expect(flag.stdout).toStartWith("http://flag.example/reset-password?token=");
    expect(tokenOf(fromEnv.stdout)).not.toBe(tokenOf(fallback.stdout));
  });

  test("an unknown email is exit 1 with a message on stderr and creates nothing", async () => {
    const before = server.services.db.query("SELECT COUNT(*) AS n FROM password_resets").get();
    const r = await cli(["--email", "nobody@example.test", "--data-dir", server.dataDir]);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe("");
    expect(r.stderr).toContain("nobody@example.test");
    expect(server.services.db.query("SELECT COUNT(*) AS n FROM password_resets").get()).toEqual(before as any);
  });

  test("a directory without a database is exit 1 and is left without one", async () => {
    const empty = mkdtempSync(join(tmpdir(), "quire-empty-"));
    try {
      const r = await cli(["--email", "someone@example.test", "--data-dir", empty]);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(empty);
      expect(existsSync(join(empty, "quire.db"))).toBe(false);
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });

  test("--email is required", async () => {
    const r = await cli(["--data-dir", server.dataDir]);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain("email");
  });
});
