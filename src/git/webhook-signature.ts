import { createHash, createHmac, timingSafeEqual } from "node:crypto";

/**
 * Verification of inbound git push webhooks against a workspace's secret, the way each hosting
 * provider signs them:
 * - GitHub: `X-Hub-Signature-256: sha256=<hex HMAC-SHA256 of the raw body>`;
 * - GitLab: `X-Gitlab-Token: <secret>` (the secret itself, no signature);
 * - Bitbucket: `X-Hub-Signature: sha256=<hex HMAC>` (Bitbucket Cloud), `sha1=<hex HMAC>` accepted too.
 *
 * The HMACs are computed over the raw bytes as received: re-serialising parsed JSON would change
 * them. Every comparison is constant-time, and a lookup of an unknown workspace verifies against
 * a throwaway secret so that both paths cost the same work.
 */
export type WebhookProvider = "github" | "gitlab" | "bitbucket";

type SignatureCheck =
  | { ok: true; provider: WebhookProvider }
  | { ok: false; reason: "missing" | "malformed" | "mismatch"; provider: WebhookProvider | null };

/** Header lookup by name; names are case-insensitive (Headers already is). */
export interface HeaderSource {
  get(name: string): string | null;
}

const HEX = /^[0-9a-f]+$/i;

export function verifyWebhookSignature(headers: HeaderSource, body: Uint8Array, secret: string): SignatureCheck {
  const github = headers.get("x-hub-signature-256");
  if (github !== null) return checkHmac("github", github, body, secret, ["sha256"]);
  const gitlab = headers.get("x-gitlab-token");
  if (gitlab !== null) {
    if (gitlab === "") return { ok: false, reason: "missing", provider: "gitlab" };
    return tokenEqual(gitlab, secret) ? { ok: true, provider: "gitlab" } : { ok: false, reason: "mismatch", provider: "gitlab" };
  }
  const bitbucket = headers.get("x-hub-signature");
  if (bitbucket !== null) return checkHmac("bitbucket", bitbucket, body, secret, ["sha256", "sha1"]);
  // Nothing to check against: still spend one HMAC so a missing header is not a faster answer.
  hmacHex("sha256", secret, body);
  return { ok: false, reason: "missing", provider: null };
}

/** `X-Hub-Signature-256` value a sender would compute (used by tests and the benchmark too). */
export function signGithub(body: Uint8Array | string, secret: string): string {
  return `sha256=${hmacHex("sha256", secret, typeof body === "string" ? new TextEncoder().encode(body) : body)}`;
}

/** `X-Hub-Signature` value for Bitbucket in either algorithm. */
export function signBitbucket(body: Uint8Array | string, secret: string, algorithm: "sha256" | "sha1" = "sha256"): string {
  return `${algorithm}=${hmacHex(algorithm, secret, typeof body === "string" ? new TextEncoder().encode(body) : body)}`;
}

function checkHmac(
  provider: WebhookProvider,
  header: string,
  body: Uint8Array,
  secret: string,
  algorithms: Array<"sha256" | "sha1">,
): SignatureCheck {
  const eq = header.indexOf("=");
  const algorithm = (eq > 0 ? header.slice(0, eq).trim().toLowerCase() : "") as "sha256" | "sha1";
  const given = eq > 0 ? header.slice(eq + 1).trim().toLowerCase() : "";
  const expected = hmacHex(algorithms.includes(algorithm) ? algorithm : "sha256", secret, body);
  if (!algorithms.includes(algorithm) || given === "" || !HEX.test(given)) {
    return { ok: false, reason: header.trim() === "" ? "missing" : "malformed", provider };
  }
  // Both sides are lowercase hex of a fixed length for the algorithm; a wrong length is simply unequal.
  const a = Buffer.from(given, "utf8");
  const b = Buffer.from(expected, "utf8");
  const same = a.length === b.length ? timingSafeEqual(a, b) : (timingSafeEqual(b, b), false);
  return same ? { ok: true, provider } : { ok: false, reason: "mismatch", provider };
}

function hmacHex(algorithm: "sha256" | "sha1", secret: string, body: Uint8Array): string {
  return createHmac(algorithm, secret).update(body).digest("hex");
}

/** Plain token comparison in constant time whatever the lengths: digests of both are compared. */
function tokenEqual(given: string, secret: string): boolean {
  const a = createHash("sha256").update(given, "utf8").digest();
  const b = createHash("sha256").update(secret, "utf8").digest();
  return timingSafeEqual(a, b);
}
