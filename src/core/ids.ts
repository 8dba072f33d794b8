import { randomBytes } from "node:crypto";

// Crockford base32, the ULID alphabet.
const ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";
let lastTime = -1;
let lastTimeText = "";
/** The time part and the first 15 random digits of the last id. */
let lastPrefix = "";
/** The random component as 16 base32 digits (most significant first). */
const lastRandom = new Uint8Array(16);

/**
 * A monotonic ULID: 48-bit millisecond time + 80 random bits, sortable as a string. Every request
 * gets one: within a millisecond it costs an increment and one concatenation (the time part and
 * the first 15 random digits are encoded once per millisecond, or when a carry changes them).
 */
export function ulid(now: number = Date.now()): string {
  if (now === lastTime) {
    // The usual increment changes the last digit only: the 25 characters before it are reused.
    if (lastRandom[15]! < 31) return lastPrefix + ALPHABET[++lastRandom[15]!];
    incrementRandom(lastRandom);
  } else {
    randomDigits(randomBytes(10), lastRandom);
    lastTime = now;
    lastTimeText = encodeTime(now);
  }
  lastPrefix = lastTimeText;
  for (let i = 0; i < 15; i++) lastPrefix += ALPHABET[lastRandom[i]!];
  return lastPrefix + ALPHABET[lastRandom[15]!];
}

/** 80 bits → 16 five-bit digits, most significant first. */
function randomDigits(bytes: Uint8Array, into: Uint8Array): void {
  for (let i = 0; i < 16; i++) {
    const bit = i * 5;
    const byte = bit >> 3;
    const word = (bytes[byte]! << 8) | (byte + 1 < 10 ? bytes[byte + 1]! : 0);
    into[i] = (word >> (11 - (bit & 7))) & 31;
  }
}

function encodeTime(now: number): string {
  let time = "";
  let t = now;
  for (let i = 0; i < 10; i++) {
    time = ALPHABET[t % 32] + time;
    t = Math.floor(t / 32);
  }
  return time;
}

function incrementRandom(digits: Uint8Array): void {
  for (let i = digits.length - 1; i >= 0; i--) {
    if (digits[i]! < 31) {
      digits[i]! += 1;
      for (let j = i + 1; j < digits.length; j++) digits[j] = 0;
      return;
    }
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
