import { randomBytes } from "node:crypto";

// Crockford base32, the ULID alphabet.
const ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";
let lastTime = -1;
let lastRandom: number[] = [];

/** A monotonic ULID: 48-bit millisecond time + 80 random bits, sortable as a string. */
export function ulid(now: number = Date.now()): string {
  let random: number[];
  if (now === lastTime) {
    random = incrementRandom(lastRandom);
  } else {
    const bytes = randomBytes(10);
    random = [];
    // 80 bits → 16 base32 characters
    let bits = 0n;
    for (const b of bytes) bits = (bits << 8n) | BigInt(b);
    for (let i = 15; i >= 0; i--) random[i] = Number((bits >> BigInt((15 - i) * 5)) & 31n);
  }
  lastTime = now;
  lastRandom = random;
  let time = "";
  let t = now;
  for (let i = 0; i < 10; i++) {
    time = ALPHABET[t % 32] + time;
    t = Math.floor(t / 32);
  }
  return time + random.map((d) => ALPHABET[d]).join("");
}

function incrementRandom(digits: number[]): number[] {
  const next = [...digits];
  for (let i = next.length - 1; i >= 0; i--) {
    if (next[i]! < 31) {
      next[i]! += 1;
      return next;
    }
    next[i] = 0;
  }
  throw new Error("ULID random component overflow");
}

const ULID_PATTERN = /^[0-9A-HJKMNP-TV-Z]{26}$/;
export function isUlid(value: unknown): value is string {
  return typeof value === "string" && ULID_PATTERN.test(value);
}

const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
/** Uniform base62 string of `length` characters (rejection sampling keeps it unbiased). */
export function randomBase62(length: number): string {
  let out = "";
  while (out.length < length) {
    for (const b of randomBytes(length * 2)) {
      if (b < 248) out += BASE62[b % 62];
      if (out.length === length) break;
    }
  }
  return out;
}

/** A URL-safe random token with `bytes` bytes of entropy. */
export function randomToken(bytes = 32): string {
  return randomBytes(bytes).toString("base64url");
}
