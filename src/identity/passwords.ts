import type { Config } from "../config.ts";
import type { Db } from "../db/database.ts";
import { ValidationError } from "../core/errors.ts";
import { randomToken } from "../core/ids.ts";
import { verifyArgon2 } from "./argon2-verify.ts";

/** @node-rs/argon2 `Algorithm.Argon2id` (a const enum, which isolated modules cannot import). */
const ARGON2ID = 2;

/** The argon2id cost of docs/interfaces.md §2 (64 MiB, 3 passes, 2 lanes); ARGON2_* may tune it. */
export const ARGON2_DEFAULTS = { memoryKiB: 65536, iterations: 3, parallelism: 2 } as const;

export const PASSWORD_MIN = 8;
export const PASSWORD_MAX = 1024;

export interface PasswordHasher {
  hash(password: string): Promise<string>;
  verify(hashed: string, password: string): Promise<boolean>;
  /** Burns the same time as a real verification, for unknown accounts. */
  verifyDummy(password: string): Promise<void>;
  /** argon2 computations made by this hasher so far: what an operator or a timing-parity check can count. */
  readonly work: { hashes: number; verifies: number };
}

/** Where the dummy hash outlives the process (so it never has to be made on a login path). */
interface DummyHashStore {
  load(): string | null;
  save(hash: string): void;
}

/** The dummy hash kept in the instance table of the database. */
export function dummyHashInDatabase(db: Db): DummyHashStore {
  return {
    load: () => db.query<{ value: string }, []>("SELECT value FROM instance WHERE key = 'password_dummy_hash'").get()?.value ?? null,
    save: (hash) => {
      db.query("INSERT INTO instance (key, value) VALUES ('password_dummy_hash', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value").run(hash);
    },
  };
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
 * The native argon2 addon (~5 MB resident) loads with the first password hashed, not at start;
 * checking a password does not load it (argon2-verify.ts), so a server people only sign in to
 * never pays for it.
 */
let argon2: Promise<typeof import("@node-rs/argon2")> | undefined;
const loadArgon2 = () => (argon2 ??= import("@node-rs/argon2"));

/**
 * argon2id, salt 16 bytes, key 32 bytes; memory, iterations and parallelism from ARGON2_*.
 *
 * An unknown account must cost exactly one argon2 computation, like a known one. The dummy hash it
 * is checked against is therefore made beside the first real hash (registration, reset, …) and
 * kept in `store`, so no login ever pays for making it — not even the first after a restart — and
 * argon2 still loads only when a password is first handled. A stored dummy made with other
 * ARGON2_* parameters would verify faster or slower than real hashes: it is replaced. Without any
 * dummy yet (no password was ever hashed), the unknown-account path makes one and stops there:
 * one hash costs what one verification costs.
 */
export function createPasswordHasher(config: Config["argon2"], store?: DummyHashStore): PasswordHasher {
  const options = {
    algorithm: ARGON2ID,
    memoryCost: config.memoryKiB,
    timeCost: config.iterations,
    parallelism: config.parallelism,
    outputLen: 32,
  };
  const work = { hashes: 0, verifies: 0 };
  const current = `$argon2id$v=19$m=${config.memoryKiB},t=${config.iterations},p=${config.parallelism}$`;
  const hashNow = async (password: string) => {
    const { hash } = await loadArgon2();
    work.hashes++;
    return hash(password, options);
  };
  const verifyNow = async (hashed: string, password: string) => {
    work.verifies++;
    try {
      return await verifyArgon2(hashed, password);
    } catch {
      return false;
    }
  };

  let dummy: Promise<string> | undefined;
  const storedDummy = (): string | null => {
    const stored = store?.load() ?? null;
    return stored !== null && stored.startsWith(current) ? stored : null;
  };
  /** The dummy, made (and stored) once when none with the current parameters exists. */
  const makeDummy = (): Promise<string> => {
    dummy ??= hashNow(`quire-dummy-${randomToken()}`).then(
      (made) => {
        store?.save(made);
        return made;
      },
      (error: unknown) => {
        dummy = undefined;
        throw error;
      },
    );
    return dummy;
  };

  return {
    work,
    hash: async (password) => {
      const hashed = await hashNow(password);
      if (dummy === undefined) {
        const stored = storedDummy();
        if (stored !== null) dummy = Promise.resolve(stored);
        else await makeDummy();
      }
      return hashed;
    },
    verify: verifyNow,
    verifyDummy: async (password) => {
      if (dummy === undefined) {
        const stored = storedDummy();
        if (stored === null) {
          // The one computation this path pays for: making the dummy instead of checking against it.
          await makeDummy().catch(() => undefined);
          return;
        }
        dummy = Promise.resolve(stored);
      }
      await verifyNow(await dummy, password);
    },
  };
}
