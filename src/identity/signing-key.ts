import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync, chmodSync } from "node:fs";
import { dirname } from "node:path";
import { exportPKCS8, generateKeyPair, importPKCS8, exportSPKI, importSPKI, type CryptoKey } from "jose";

export interface SigningKeys {
  privateKey: CryptoKey;
  publicKey: CryptoKey;
  /** Key id: a short hash of the public key, so a token signed by a deleted key is recognisably foreign. */
  kid: string;
}

/**
 * Loads the RS256 key at `path`, generating it (mode 0600, written atomically) when missing.
 * Deleting the file and restarting makes every issued token unverifiable: that is the
 * documented way to invalidate all sessions at once.
 */
export async function loadOrCreateSigningKey(path: string): Promise<SigningKeys> {
  let pem: string;
  if (existsSync(path)) {
    pem = readFileSync(path, "utf8");
  } else {
    const { privateKey } = await generateKeyPair("RS256", { modulusLength: 2048, extractable: true });
    pem = await exportPKCS8(privateKey);
    mkdirSync(dirname(path), { recursive: true });
    const tmp = `${path}.${process.pid}.tmp`;
    writeFileSync(tmp, pem, { mode: 0o600 });
    renameSync(tmp, path);
  }
  chmodSync(path, 0o600);
  const privateKey = await importPKCS8(pem, "RS256", { extractable: true });
  const spki = await exportSPKI(await publicFromPrivate(privateKey));
  const publicKey = await importSPKI(spki, "RS256");
  const digest = new Bun.CryptoHasher("sha256").update(spki).digest("base64url");
  return { privateKey, publicKey, kid: digest.slice(0, 16) };
}

async function publicFromPrivate(privateKey: CryptoKey): Promise<CryptoKey> {
  const jwk = await crypto.subtle.exportKey("jwk", privateKey);
  const { d: _d, p: _p, q: _q, dp: _dp, dq: _dq, qi: _qi, ...pub } = jwk;
  return crypto.subtle.importKey("jwk", { ...pub, key_ops: ["verify"] }, { name: "RSASSA-PKCS1-v1_5", hash: "SHA-256" }, true, [
    "verify",
  ]);
}
