import { argon2, timingSafeEqual } from "node:crypto";

/** An argon2 hash in the PHC string format, version 0x13 (the only one written since 2016). */
const PHC = /^\$(argon2id|argon2i|argon2d)\$v=19\$m=(\d{1,10}),t=(\d{1,10}),p=(\d{1,3})\$([A-Za-z0-9+/]{11,})\$([A-Za-z0-9+/]{6,})$/;

/**
 * Checks a password against an argon2 hash in the PHC string format (`$argon2id$v=19$m=…,t=…,p=…$
 * <salt>$<hash>`, as @node-rs/argon2 writes it) with the runtime's own argon2 (node:crypto): the
 * stored salt and parameters, the stored hash's length, and a constant-time comparison. Signing in
 * thus never loads the native addon, which with its thread pool stayed resident at ~4 MB after the
 * first sign-in (docs/decisions/runtime-footprint.md); hashing a new password still uses it
 * (passwords.ts). Anything that is not such a string is a mismatch, never an error.
 */
export async function verifyArgon2(hashed: string, password: string): Promise<boolean> {
  const m = PHC.exec(hashed);
  if (!m) return false;
  const [, algorithm, memory, passes, parallelism, salt, tag] = m as unknown as [string, "argon2id" | "argon2i" | "argon2d", string, string, string, string, string];
  const expected = Buffer.from(tag, "base64");
  const options = { message: password, nonce: Buffer.from(salt, "base64"), memory: Number(memory), passes: Number(passes), parallelism: Number(parallelism), tagLength: expected.length };
  let computed: Buffer;
  try {
    computed = await new Promise<Buffer>((resolve, reject) => argon2(algorithm, options, (error, key) => (error ? reject(error) : resolve(key))));
  } catch {
    return false; // parameters argon2 refuses (a memory cost below 8 KiB per lane, no lanes)
  }
  return timingSafeEqual(computed, expected);
}
