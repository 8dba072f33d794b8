import { expect, test } from "bun:test";
import { rmSync, statSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { startTestServer, tempDir } from "../helpers/server.ts";
import { Client } from "../helpers/client.ts";
import { errorOf, logIn, signUp } from "./support.ts";

test("deleting jwt-private.pem and restarting invalidates every old token and session; a plain restart does not", async () => {
  const dataDir = tempDir();
  const keyPath = join(dataDir, "jwt-private.pem");

  const first = await startTestServer({}, { dataDir, keepDir: true });
  expect(statSync(keyPath).mode & 0o777).toBe(0o600);
  const alice = await signUp(first.url);
  const bob = await signUp(first.url);
  const aliceLaptop = await logIn(first.url, alice.email, alice.password);
  await first.close();

  // Restarting with the same key keeps everyone signed in.
  const second = await startTestServer({}, { dataDir, keepDir: true });
  const keyBefore = readFileSync(keyPath, "utf8");
  expect((await new Client(second.url).get("/api/auth/me", { token: alice.accessToken })).status).toBe(200);
  const refreshed = await new Client(second.url).post("/api/auth/refresh", { refresh_token: aliceLaptop.refreshToken });
  expect(refreshed.status).toBe(200);
  await second.close();

  rmSync(keyPath);
  const third = await startTestServer({}, { dataDir });
  try {
    // A new key was generated, with the same restrictive mode.
    expect(readFileSync(keyPath, "utf8")).not.toBe(keyBefore);
    expect(statSync(keyPath).mode & 0o777).toBe(0o600);

    for (const token of [alice.accessToken, bob.accessToken, aliceLaptop.accessToken, refreshed.body.access_token]) {
      errorOf(await new Client(third.url).get("/api/auth/me", { token }), 401, "UNAUTHORIZED");
    }
    // Refresh tokens are database rows, not signatures: they must die with the key too.
    errorOf(await new Client(third.url).post("/api/auth/refresh", { refresh_token: refreshed.body.refresh_token }), 401, "UNAUTHORIZED");
    expect(third.services.db.query("SELECT COUNT(*) AS n FROM sessions").get()).toEqual({ n: 0 });

    // Accounts survive: signing in again works and issues tokens under the new key.
    const again = await logIn(third.url, alice.email, alice.password);
    expect((await again.client.get("/api/auth/me")).body.user.id).toBe(alice.id);
  } finally {
    await third.close();
  }
});
