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

/** Where the digest of the key file last loaded is kept between starts (the instance table). */
export interface KeyFileDigestStore {
  load(): string | null;
  save(digest: string): void;
}

const digestOf = (path: string): string | null => (existsSync(path) ? new Bun.CryptoHasher("sha256").update(readFileSync(path)).digest("hex") : null);

/**
 * The signing keys, loaded when first asked for — the first token signed or checked — unless the key
 * file is missing, new or changed since the key was last loaded: then at once, so that `loaded`
 * (which retires the sessions of another key) runs before the server answers anyone, as it always
 * did. A restart with the same key file thus does not parse the key and set it up for signing at
 * start, which kept ~2 MB of the runtime's crypto code resident in a server nobody had used yet
 * (docs/decisions/runtime-footprint.md); the first token pays ~1 ms for it. The file's mode is
 * still made 0600 at every start. The digest kept is of a 2048-bit private key: it tells nothing
 * about the key.
 */
export async function signingKeysOnDemand(
  path: string,
  store: KeyFileDigestStore,
  loaded: (keys: SigningKeys) => void,
): Promise<() => Promise<SigningKeys>> {
  let keys: Promise<SigningKeys> | undefined;
  const load = () => {
    keys ??= loadOrCreateSigningKey(path).then(
      (made) => {
        loaded(made);
        const digest = digestOf(path);
        if (digest !== null) store.save(digest);
        return made;
      },
      (error: unknown) => {
        keys = undefined; // a later request tries again
        throw error;
      },
    );
    return keys;
  };
  const digest = digestOf(path);
  if (digest === null || digest !== store.load()) await load();
  else chmodSync(path, 0o600);
  return load;
}
