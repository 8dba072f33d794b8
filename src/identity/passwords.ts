import type { Config } from "../config.ts";
import { ValidationError } from "../core/errors.ts";

/** @node-rs/argon2 `Algorithm.Argon2id` (a const enum, which isolated modules cannot import). */
const ARGON2ID = 2;

/** The specification's argon2id cost (64 MiB, 3 passes, 2 lanes); ARGON2_* may tune it. */
export const ARGON2_DEFAULTS = { memoryKiB: 65536, iterations: 3, parallelism: 2 } as const;

export const PASSWORD_MIN = 8;
export const PASSWORD_MAX = 1024;

export interface PasswordHasher {
  hash(password: string): Promise<string>;
  verify(hashed: string, password: string): Promise<boolean>;
  /** Burns the same time as a real verification, for unknown accounts. */
  verifyDummy(password: string): Promise<void>;
}

/** Length only: 8 to 1024 characters, no character-class rules. */
export function checkPasswordRules(password: unknown, field = "password"): string {
  if (typeof password !== "string") throw new ValidationError(`${field} must be a string`, field);
  const length = [...password].length;
  if (length < PASSWORD_MIN || length > PASSWORD_MAX) {
    throw new ValidationError(`${field} must be ${PASSWORD_MIN} to ${PASSWORD_MAX} characters`, field);
  }
  return password;
}

/**
 * The native argon2 addon (~5 MB resident) loads with the first password hashed or checked, not
 * at start: a server nobody signs in to never pays for it.
 */
let argon2: Promise<typeof import("@node-rs/argon2")> | undefined;
const loadArgon2 = () => (argon2 ??= import("@node-rs/argon2"));

/** argon2id, salt 16 bytes, key 32 bytes; memory, iterations and parallelism from ARGON2_*. */
export function createPasswordHasher(config: Config["argon2"]): PasswordHasher {
  const options = {
    algorithm: ARGON2ID,
    memoryCost: config.memoryKiB,
    timeCost: config.iterations,
    parallelism: config.parallelism,
    outputLen: 32,
  };
  let dummy: Promise<string> | undefined;
  return {
    hash: async (password) => (await loadArgon2()).hash(password, options),
    verify: async (hashed, password) => {
      const { verify } = await loadArgon2();
      try {
        return await verify(hashed, password);
      } catch {
        return false;
      }
    },
    verifyDummy: async (password) => {
      const { hash, verify } = await loadArgon2();
      dummy ??= hash("quire-dummy-password-for-timing", options);
      await verify(await dummy, password).catch(() => false);
    },
  };
}
