import { expect, test } from "bun:test";
import { chmodSync, copyFileSync, rmSync, statSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { startTestServer, tempDir } from "../helpers/server.ts";
import { Client } from "../helpers/client.ts";
import { errorOf, logIn, signUp } from "./support.ts";
import { loadOrCreateSigningKey, signingKeysOnDemand, type SigningKeys } from "../../src/identity/signing-key.ts";

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

test("replacing jwt-private.pem with another key and restarting retires every session at start, before anyone asks", async () => {
  const dataDir = tempDir();
  const keyPath = join(dataDir, "jwt-private.pem");
  const first = await startTestServer({}, { dataDir, keepDir: true });
  const alice = await signUp(first.url);
  const laptop = await logIn(first.url, alice.email, alice.password);
  await first.close();
  // A plain restart first, so the key was last loaded from this very file.
  const second = await startTestServer({}, { dataDir, keepDir: true });
  expect((await new Client(second.url).get("/api/auth/me", { token: alice.accessToken })).status).toBe(200);
  await second.close();

  const other = join(tempDir(), "other.pem");
  await loadOrCreateSigningKey(other);
  copyFileSync(other, keyPath);
  const third = await startTestServer({}, { dataDir });
  try {
    // No request has been made yet: the start itself found the file changed and retired them.
    expect(third.services.db.query("SELECT COUNT(*) AS n FROM sessions").get()).toEqual({ n: 0 });
    errorOf(await new Client(third.url).get("/api/auth/me", { token: alice.accessToken }), 401, "UNAUTHORIZED");
    errorOf(await new Client(third.url).post("/api/auth/refresh", { refresh_token: laptop.refreshToken }), 401, "UNAUTHORIZED");
  } finally {
    await third.close();
    rmSync(join(other, ".."), { recursive: true, force: true });
  }
});

test("the key is loaded at start when its file is missing, new or changed, and otherwise with the first token", async () => {
  const dir = tempDir();
  const path = join(dir, "key.pem");
  let stored: string | null = null;
  const store = { load: () => stored, save: (d: string) => void (stored = d) };
  const loads: string[] = [];
  const onDemand = () => signingKeysOnDemand(path, store, (k: SigningKeys) => void loads.push(k.kid));
  try {
    // Missing: made and loaded at once.
    const made = await (await onDemand())();
    expect(loads).toEqual([made.kid]);
    expect(statSync(path).mode & 0o777).toBe(0o600);

    // Same file as last loaded: nothing at start, the mode still fixed; loaded once on first use.
    chmodSync(path, 0o644);
    const later = await onDemand();
    expect(loads).toEqual([made.kid]);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    const [a, b] = await Promise.all([later(), later()]);
    expect(a).toBe(b);
    expect(a.kid).toBe(made.kid);
    expect(loads).toEqual([made.kid, made.kid]);

    // Another key in the file: loaded at start.
    rmSync(path);
    await loadOrCreateSigningKey(path);
    await onDemand();
    expect(loads.length).toBe(3);
    expect(loads[2]).not.toBe(made.kid);

    // A digest that was never saved (the first start after an upgrade) counts as changed.
    stored = null;
    await onDemand();
    expect(loads.length).toBe(4);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
