/**
 * What a restart does to the limits (docs/decisions/rate-limits.md, "A restart starts new
 * windows"): the minute counters live in the server process, so a restarted server counts from
 * zero; what guards a password against guessing, the login lockout, is stored with the account and
 * holds across the restart.
 */
import { afterAll, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { Client } from "../helpers/client.ts";
import { registerUser } from "../helpers/factories.ts";
import { startTestServer, tempDir, type TestServer } from "../helpers/server.ts";

const dataDir = tempDir();
let server: TestServer | undefined;
afterAll(async () => {
  await server?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

test("a restarted server counts each minute's saves from zero; a locked account stays locked", async () => {
  server = await startTestServer({}, { dataDir, keepDir: true });
  const ada = await registerUser(server.url, { email: "ada@example.test", password: "analytical engine notes" });
  const grace = await registerUser(server.url, { email: "grace@example.test", password: "compiler of compilers" });

  // Ada uses her minute's 60 saves; the 61st is refused.
  let hash: string | undefined;
  const save = async (c: Client, n: number) => {
    const r = await c.put(`/api/v1/content/${ada.workspaceSlug}/notes.md`, { body: `Save ${n}.\n`, frontmatter: { title: "Notes" }, lastKnownHash: hash });
    if (r.status === 200 || r.status === 201) hash = r.body.content_hash;
    return r;
  };
  for (let n = 1; n <= 60; n++) expect((await save(ada.client, n)).status).toBeLessThan(300);
  const over = await save(ada.client, 61);
  expect(over.status).toBe(429);
  expect(over.body.error).toBe("RATE_LIMITED");

  // Someone guesses Grace's password until her account locks: the right one is refused too.
  const guesser = new Client(server.url);
  for (const guess of ["password1", "letmein", "qwerty123", "grace1906", "cobol-rules"]) {
    expect((await guesser.post("/api/auth/login", { email: grace.email, password: guess })).status).toBe(401);
  }
  expect((await new Client(server.url).post("/api/auth/login", { email: grace.email, password: grace.password })).status).toBe(401);

  // The service restarts on the same data directory.
  await server.stop(1000);
  server = await startTestServer({}, { dataDir, keepDir: true });
  const after = new Client(server.url);
  after.token = ada.accessToken;

  // Ada's saves start a new minute: the one refused before the restart is taken, with 59 left.
  const saved = await save(after, 61);
  expect(saved.status).toBe(200);
  expect(saved.headers.get("x-ratelimit-remaining")).toBe("59");
  expect((await after.get(`/api/v1/content/${ada.workspaceSlug}/notes.md`)).body.content).toBe("Save 61.\n");

  // Grace's lockout was stored with her account: the restart gave the guesser nothing, and even
  // the right password is still refused (from a new address, so no per-address limit is involved).
  expect((await new Client(server.url).post("/api/auth/login", { email: grace.email, password: "another guess" })).status).toBe(401);
  expect((await new Client(server.url).post("/api/auth/login", { email: grace.email, password: grace.password })).status).toBe(401);
});
