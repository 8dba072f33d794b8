import { expect, test } from "bun:test";
import { hash, verify } from "@node-rs/argon2";
import { verifyArgon2 } from "../../src/identity/argon2-verify.ts";

/**
 * Signing in checks the password with the runtime's argon2, while new passwords are still hashed by
 * @node-rs/argon2: every hash that library writes must check exactly as the library itself checks
 * it, whatever its variant, cost and length, and a string that is not such a hash is a mismatch.
 * Small memory costs keep the test fast; the parameters travel in the string either way.
 */
const PASSWORD = "correct horse battery staple";

const made = [
  { algorithm: 2, memoryCost: 1024, timeCost: 2, parallelism: 2, outputLen: 32 }, // argon2id, the product's shape
  { algorithm: 2, memoryCost: 2048, timeCost: 1, parallelism: 1, outputLen: 64 },
  { algorithm: 2, memoryCost: 512, timeCost: 3, parallelism: 4, outputLen: 16 },
  { algorithm: 1, memoryCost: 1024, timeCost: 2, parallelism: 1, outputLen: 32 }, // argon2i
  { algorithm: 0, memoryCost: 1024, timeCost: 2, parallelism: 1, outputLen: 32 }, // argon2d
] as const;

test("a hash written by @node-rs/argon2 checks as the library checks it: the right password only", async () => {
  for (const options of made) {
    const hashed = await hash(PASSWORD, options);
    for (const candidate of [PASSWORD, `${PASSWORD} `, "Correct horse battery staple", "", "ünïcödé pässwörd 🔑"]) {
      expect([hashed, candidate, await verifyArgon2(hashed, candidate)]).toEqual([hashed, candidate, await verify(hashed, candidate)]);
    }
    expect(await verifyArgon2(hashed, PASSWORD)).toBe(true);
  }
});

test("a password with characters outside ASCII checks against its own hash", async () => {
  const password = "ünïcödé pässwörd 🔑";
  const hashed = await hash(password, made[0]);
  expect(await verifyArgon2(hashed, password)).toBe(true);
  expect(await verifyArgon2(hashed, "unicode passwort")).toBe(false);
});

test("a changed salt, hash or cost no longer matches", async () => {
  const hashed = await hash(PASSWORD, made[0]);
  const [, alg, v, params, salt, tag] = hashed.split("$");
  const flip = (s: string) => (s[0] === "A" ? "B" : "A") + s.slice(1);
  for (const altered of [
    `$${alg}$${v}$${params}$${flip(salt!)}$${tag}`,
    `$${alg}$${v}$${params}$${salt}$${flip(tag!)}`,
    `$${alg}$${v}$${params!.replace("t=2", "t=3")}$${salt}$${tag}`,
    `$argon2i$${v}$${params}$${salt}$${tag}`,
  ]) {
    expect([altered, await verifyArgon2(altered, PASSWORD)]).toEqual([altered, false]);
  }
});

test("anything that is not an argon2 hash string is a mismatch, not an error", async () => {
  const hashed = await hash(PASSWORD, made[0]);
  for (const bad of [
    "",
    PASSWORD,
    "$2b$10$abcdefghijklmnopqrstuuJ9vYqO7V6o5zE3R7Y8xQm6Jp5H3kF2y", // bcrypt
    hashed.replace("v=19", "v=16"),
    hashed.replace(/\$[^$]+$/, ""),
    hashed.replace(/\$[^$]+$/, "$not*base64"),
    `${hashed}$extra`,
    hashed.replace("m=1024", "m=1"), // below what argon2 allows for two lanes
    hashed.replace("p=2", "p=0"),
  ]) {
    expect([bad, await verifyArgon2(bad, PASSWORD)]).toEqual([bad, false]);
  }
});
