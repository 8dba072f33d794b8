import { afterAll, expect, test } from "bun:test";
import { existsSync, readFileSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { importPKCS8, exportSPKI, importSPKI, jwtVerify, decodeProtectedHeader } from "jose";
import { startTestServer, tempDir } from "../helpers/server.ts";
import { Client } from "../helpers/client.ts";
import { runCli } from "../cli/spawn.ts";
import { signUp } from "./support.ts";

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});
function dir(prefix: string): string {
  const d = tempDir(prefix);
  dirs.push(d);
  return d;
}
/** The public half of the PEM private key at `path`, as a verification key. */
async function publicKeyOf(path: string) {
  const priv = await importPKCS8(readFileSync(path, "utf8"), "RS256", { extractable: true });
  const jwk = await crypto.subtle.exportKey("jwk", priv);
  const pub = await crypto.subtle.importKey("jwk", { kty: jwk.kty, n: jwk.n, e: jwk.e }, { name: "RSASSA-PKCS1-v1_5", hash: "SHA-256" }, true, ["verify"]);
  return importSPKI(await exportSPKI(pub), "RS256");
}

test("JWT_KEY_PATH: the key is created there (folder too) with mode 0600, signs the tokens, and survives a restart", async () => {
  const dataDir = dir("quire-jwt-data-");
  const keyPath = join(dir("quire-jwt-keys-"), "secrets", "signing.pem");
  const env = { JWT_KEY_PATH: keyPath };

  const first = await startTestServer(env, { dataDir, keepDir: true });
  expect(statSync(keyPath).mode & 0o777).toBe(0o600);
  expect(readFileSync(keyPath, "utf8")).toStartWith("-----BEGIN PRIVATE KEY-----");
  // The default location is not used.
  expect(existsSync(join(dataDir, "jwt-private.pem"))).toBe(false);

  const u = await signUp(first.url);
  const { payload } = await jwtVerify(u.accessToken, await publicKeyOf(keyPath), { algorithms: ["RS256"] });
  expect(payload.sub).toBe(u.id);
  const kid = decodeProtectedHeader(u.accessToken).kid;
  await first.close();

  // Restarted with the same path: the same key, tokens still accepted.
  const before = readFileSync(keyPath, "utf8");
  const second = await startTestServer(env, { dataDir, keepDir: true });
  expect(readFileSync(keyPath, "utf8")).toBe(before);
  expect((await new Client(second.url).get("/api/auth/me", { token: u.accessToken })).status).toBe(200);
  const again = await new Client(second.url).post("/api/auth/login", { email: u.email, password: u.password });
  expect(decodeProtectedHeader(again.body.access_token).kid).toBe(kid);
  await second.close();

  // Started without JWT_KEY_PATH the same data directory uses (and creates) its own default key:
  // tokens signed with the custom one are refused.
  const third = await startTestServer({}, { dataDir, keepDir: true });
  expect(statSync(join(dataDir, "jwt-private.pem")).mode & 0o777).toBe(0o600);
  expect((await new Client(third.url).get("/api/auth/me", { token: u.accessToken })).status).toBe(401);
  await third.close();
});

test("init honours JWT_KEY_PATH: the key is created at that path with mode 0600, not in the data directory", async () => {
  const dataDir = dir("quire-jwt-init-");
  const keyPath = join(dir("quire-jwt-keys-"), "init.pem");
  const r = await runCli(["init", "--workspace-name", "Docs", "--slug", "docs", "--data-dir", dataDir], { env: { JWT_KEY_PATH: keyPath } });
  expect(r.code).toBe(0);
  expect(statSync(keyPath).mode & 0o777).toBe(0o600);
  expect(existsSync(join(dataDir, "jwt-private.pem"))).toBe(false);

  // The server started afterwards with the same setting signs with that key.
  const s = await startTestServer({ JWT_KEY_PATH: keyPath }, { dataDir, keepDir: true });
  try {
    const u = await signUp(s.url);
    await jwtVerify(u.accessToken, await publicKeyOf(keyPath), { algorithms: ["RS256"] });
  } finally {
    await s.close();
  }
});
