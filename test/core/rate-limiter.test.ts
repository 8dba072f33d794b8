import { describe, expect, test } from "bun:test";
import { RateLimiter, RATE_RULES, ipBucket, type RateRule } from "../../src/core/rate-limit.ts";
import { clientIp } from "../../src/http/client-ip.ts";
import { RateLimitedError } from "../../src/core/errors.ts";
import type { Principal } from "../../src/core/principal.ts";

const T0 = 1_800_000_000_000;
const rule = (over: Partial<RateRule> = {}): RateRule => ({
  name: "r",
  limit: 3,
  windowSec: 60,
  keyBy: "caller",
  matches: (_m, p) => p.startsWith("/x"),
  ...over,
});
const session = (orgId: string, userId = "u-" + orgId): Principal => ({ kind: "session", userId, orgId, sessionId: "s" });

function refused(fn: () => unknown): RateLimitedError {
  try {
    fn();
  } catch (error) {
    if (error instanceof RateLimitedError) return error;
    throw error;
  }
  throw new Error("expected RATE_LIMITED");
}

describe("RateLimiter", () => {
  test("counts down, refuses at the limit, and opens again when the window ends", () => {
    const l = new RateLimiter([rule()]);
    expect(l.hit("GET", "/x", null, "1.1.1.1", T0)).toEqual({ limit: 3, remaining: 2, resetAt: (T0 + 60_000) / 1000 });
    expect(l.hit("GET", "/x", null, "1.1.1.1", T0 + 1000)?.remaining).toBe(1);
    expect(l.hit("GET", "/x", null, "1.1.1.1", T0 + 2000)?.remaining).toBe(0);
    const e = refused(() => l.hit("GET", "/x", null, "1.1.1.1", T0 + 10_500));
    expect(e.limit).toBe(3);
    expect(e.resetAt).toBe((T0 + 60_000) / 1000);
    expect(e.retryAfter).toBe(50);
    expect(l.hit("GET", "/x", null, "1.1.1.1", T0 + 60_000)?.remaining).toBe(2);
  });

  test("no matching rule: null and no bucket", () => {
    const l = new RateLimiter([rule()]);
    expect(l.hit("GET", "/y", null, "1.1.1.1", T0)).toBeNull();
    expect(l.size).toBe(0);
  });

  test("per person for web sessions and per organization for API keys, per IP otherwise; 'user' rules per person; 'ip' rules always per IP", () => {
    const l = new RateLimiter([rule({ limit: 1 })]);
    l.hit("GET", "/x", session("org-a"), "1.1.1.1", T0);
    refused(() => l.hit("GET", "/x", session("org-a"), "2.2.2.2", T0));
    // Another person of the same organization has their own allowance.
    expect(l.hit("GET", "/x", session("org-a", "another-user"), "1.1.1.1", T0)?.remaining).toBe(0);
    // The organization's API keys share one bucket, apart from its people.
    const key = (keyId: string): Principal => ({ kind: "api_key", userId: "u-org-a", orgId: "org-a", keyId, scopes: ["read"], workspaceId: null });
    l.hit("GET", "/x", key("k1"), "3.3.3.3", T0);
    refused(() => l.hit("GET", "/x", key("k2"), "4.4.4.4", T0));
    expect(l.hit("GET", "/x", session("org-b"), "1.1.1.1", T0)?.remaining).toBe(0);
    expect(l.hit("GET", "/x", null, "1.1.1.1", T0)?.remaining).toBe(0);

    const perUser = new RateLimiter([rule({ limit: 1, keyBy: "user" })]);
    perUser.hit("GET", "/x", session("org-a", "u1"), "1.1.1.1", T0);
    expect(perUser.hit("GET", "/x", session("org-a", "u2"), "1.1.1.1", T0)?.remaining).toBe(0);

    const perIp = new RateLimiter([rule({ limit: 1, keyBy: "ip" })]);
    perIp.hit("GET", "/x", session("org-a"), "1.1.1.1", T0);
    refused(() => perIp.hit("GET", "/x", session("org-b"), "1.1.1.1", T0));
  });

  test("several rules: the tightest state is reported, and a refused request consumes nothing", () => {
    const wide = rule({ name: "wide", limit: 10 });
    const narrow = rule({ name: "narrow", limit: 2, matches: (_m, p) => p === "/x/narrow" });
    const l = new RateLimiter([wide, narrow]);
    expect(l.hit("POST", "/x/narrow", null, "ip", T0)).toMatchObject({ limit: 2, remaining: 1 });
    expect(l.hit("POST", "/x/narrow", null, "ip", T0)).toMatchObject({ limit: 2, remaining: 0 });
    for (let i = 0; i < 5; i++) refused(() => l.hit("POST", "/x/narrow", null, "ip", T0));
    // the refused ones did not count against the wide rule
    expect(l.hit("GET", "/x/other", null, "ip", T0)).toMatchObject({ limit: 10, remaining: 7 });
  });

  test("a success-only rule: the place is held while the request runs, given back once on an error, never into a later window", () => {
    const l = new RateLimiter([rule({ limit: 1, windowSec: 86400, successOnly: true })]);
    const who = session("o1");
    const first: Array<() => void> = [];
    expect(l.hit("GET", "/x", who, "1.1.1.1", T0, true, null, first)?.remaining).toBe(0);
    // While the first runs, a second is refused.
    refused(() => l.hit("GET", "/x", who, "1.1.1.1", T0 + 1, true, null, []));
    // The first ended in an error: its place comes back (twice is still once).
    for (const refund of first) refund();
    for (const refund of first) refund();
    const second: Array<() => void> = [];
    expect(l.hit("GET", "/x", who, "1.1.1.1", T0 + 2, true, null, second)?.remaining).toBe(0);
    // The second succeeded (nothing given back): the day is used.
    refused(() => l.hit("GET", "/x", who, "1.1.1.1", T0 + 3, true, null, []));
    // A refund arriving after its window ended leaves the new window alone.
    const late: Array<() => void> = [];
    l.hit("GET", "/x", who, "1.1.1.1", T0 + 86_400_000, true, null, late);
    const fresh: Array<() => void> = [];
    refused(() => l.hit("GET", "/x", who, "1.1.1.1", T0 + 2 * 86_400_000 - 1, true, null, fresh));
    l.hit("GET", "/x", who, "1.1.1.1", T0 + 2 * 86_400_000, true, null, fresh);
    for (const refund of late) refund();
    refused(() => l.hit("GET", "/x", who, "1.1.1.1", T0 + 2 * 86_400_000 + 1, true, null, []));
    // Without a place to put refunds (the published sites' lane), a success-only rule simply counts.
    const plain = new RateLimiter([rule({ limit: 1, successOnly: true })]);
    plain.hit("GET", "/x", who, "1.1.1.1", T0);
    refused(() => plain.hit("GET", "/x", who, "1.1.1.1", T0 + 1));
  });

  test("memory stays bounded however many distinct callers appear", () => {
    const l = new RateLimiter([rule({ windowSec: 3600 })], 1000);
    for (let i = 0; i < 10_000; i++) l.hit("GET", "/x", null, `10.0.${i >> 8}.${i & 255}`, T0 + i);
    expect(l.size).toBeLessThanOrEqual(1000);
    // expired windows are swept
    const s = new RateLimiter([rule({ windowSec: 1 })]);
    for (let i = 0; i < 100; i++) s.hit("GET", "/x", null, `10.1.0.${i}`, T0);
    s.hit("GET", "/x", null, "10.2.0.1", T0 + 120_000);
    expect(s.size).toBe(1);
  });

  test("an IPv6 client is one caller across its /64", () => {
    const l = new RateLimiter([rule({ limit: 1, keyBy: "ip" })]);
    l.hit("GET", "/x", null, "2001:db8:1:2::1", T0);
    refused(() => l.hit("GET", "/x", null, "2001:db8:1:2:ffff:eeee:dddd:cccc", T0));
    expect(l.hit("GET", "/x", null, "2001:db8:1:3::1", T0)?.remaining).toBe(0);
    expect(ipBucket("2001:0db8:0001:0002:0000:0000:0000:0001")).toBe("2001:db8:1:2::/64");
    expect(ipBucket("2001:db8::1")).toBe("2001:db8:0:0::/64");
    expect(ipBucket("::1")).toBe("0:0:0:0::/64");
    expect(ipBucket("192.0.2.1")).toBe("192.0.2.1");
  });
});

describe("a route class's limits, selected once", () => {
  const reads = ["/p/acme/", "/p/acme/guide", "/p/acme/docs/deep/page.md", "/p/x/sitemap.xml", "/p/%E2%9C%93/a"];

  test("a published read meets, through its class, exactly the rules and buckets a full hit gives it", () => {
    for (const method of ["GET", "HEAD"] as const) {
      const perPath = new RateLimiter();
      const byClass = new RateLimiter();
      const lane = byClass.anonymousClass(method, "/p/site/page");
      for (const [i, path] of reads.entries()) {
        const at = T0 + i;
        expect(lane("203.0.113.7", at)).toEqual(perPath.hit(method, path, null, "203.0.113.7", at));
      }
      expect(byClass.size).toBe(perPath.size);
    }
  });

  test("the class and a full hit share one bucket: 600 a minute per address, then RATE_LIMITED", () => {
    const l = new RateLimiter();
    const lane = l.anonymousClass("GET", "/p/site/page");
    for (let i = 0; i < 599; i++) lane("198.51.100.1", T0);
    expect(l.hit("GET", "/p/acme/guide", null, "198.51.100.1", T0)).toMatchObject({ limit: 600, remaining: 0 });
    expect(refused(() => lane("198.51.100.1", T0)).limit).toBe(600);
    expect(lane("198.51.100.2", T0)).toMatchObject({ limit: 600, remaining: 599 });
    expect(lane("198.51.100.1", T0 + 60_000)).toMatchObject({ remaining: 599 });
  });

  test("a class whose rules give places back is refused (it needs the request's refunds)", () => {
    expect(() => new RateLimiter().anonymousClass("GET", "/api/v1/users/me/export")).toThrow();
  });
});

describe("the specification's rules", () => {
  const find = (method: string, path: string) => RATE_RULES.filter((r) => r.matches(method, path)).map((r) => `${r.name}:${r.limit}/${r.windowSec}`);
  test.each([
    ["POST", "/api/auth/login", ["auth:20/60"]],
    ["GET", "/api/auth/me", []],
    ["GET", "/api/auth/sessions", []],
    ["POST", "/api/auth/refresh", ["auth:20/60"]],
    ["POST", "/api/auth/oidc/claim", ["auth:20/60"]],
    ["POST", "/api/auth/webauthn/login/finish", ["auth:20/60"]],
    ["POST", "/api/auth/register", ["register:5/3600", "auth:20/60"]],
    ["POST", "/api/auth/forgot-password", ["password_reset:5/900", "auth:20/60"]],
    ["POST", "/api/auth/reset-password", ["password_reset:5/900", "auth:20/60"]],
    ["GET", "/api/v1/content/ws/a/b.md", ["content_read:300/60"]],
    ["HEAD", "/api/v1/content/ws/a/b.md", ["content_read:300/60"]],
    ["POST", "/api/v1/content/ws/a.md", ["content_write:60/60"]],
    ["PUT", "/api/v1/content/ws/a.md", ["content_write:60/60"]],
    ["PATCH", "/api/v1/content/ws/a.md", ["content_write:60/60"]],
    ["DELETE", "/api/v1/content/ws/a.md", ["content_write:60/60"]],
    ["GET", "/api/v1/workspaces/01J00000000000000000000000/search", ["search:60/60"]],
    ["GET", "/api/v1/workspaces/01J00000000000000000000000", []],
    ["POST", "/api/git/webhook/01J00000000000000000000000", ["git_webhook:30/60"]],
    ["GET", "/p/site/page", ["published:600/60"]],
    ["GET", "/pricing", []],
    ["GET", "/api/v1/users/me/export", ["data_export:1/86400"]],
    ["GET", "/api/v1/orgs/acme/export", ["org_export:1/86400"]],
    ["GET", "/api/health", []],
  ] as const)("%s %s", (method, path, expected) => {
    expect(find(method, path)).toEqual([...expected]);
  });
});

describe("clientIp", () => {
  const req = (xff?: string) => new Request("http://localhost/", { headers: xff === undefined ? {} : { "x-forwarded-for": xff } });
  test("TRUST_PROXY off: the socket address, whatever the header says", () => {
    expect(clientIp(req("1.2.3.4"), "127.0.0.1", false)).toBe("127.0.0.1");
    expect(clientIp(req("1.2.3.4"), "::ffff:10.0.0.1", 0)).toBe("10.0.0.1");
  });
  test("one trusted hop: the rightmost entry", () => {
    expect(clientIp(req("9.9.9.9, 1.2.3.4"), "10.0.0.1", 1)).toBe("1.2.3.4");
    expect(clientIp(req("1.2.3.4"), "10.0.0.1", 1)).toBe("1.2.3.4");
    expect(clientIp(req(), "10.0.0.1", 1)).toBe("10.0.0.1");
  });
  test("n hops: n entries from the right; a short header gives its leftmost entry", () => {
    expect(clientIp(req("6.6.6.6, 5.5.5.5, 4.4.4.4"), "10.0.0.1", 2)).toBe("5.5.5.5");
    expect(clientIp(req("5.5.5.5"), "10.0.0.1", 3)).toBe("5.5.5.5");
  });
  test("something that is not an address falls back to the socket", () => {
    for (const bad of ["not-an-ip", "1.2.3.4:5678", "<script>", "999.1.1.1", "1.2.3.4 OR 1=1", "a".repeat(100)]) {
      expect(clientIp(req(bad), "10.0.0.1", 1)).toBe("10.0.0.1");
    }
    expect(clientIp(req("2001:DB8::1"), "10.0.0.1", 1)).toBe("2001:db8::1");
  });
});
