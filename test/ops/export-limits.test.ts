/**
 * The once-a-day exports (personal data, organization) count only an export that was made: a
 * request answered with an error — an unknown organization, someone else's, bad input — leaves the
 * day's allowance whole, and the first successful export uses it.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { registerUser } from "../helpers/factories.ts";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ QUIRE_EDITION: "cloud" });
});
afterAll(() => server.close());

const handleOf = (workspaceId: string) =>
  server.services.db
    .query<{ handle: string }, [string]>("SELECT o.handle FROM organizations o JOIN workspaces w ON w.org_id = o.id WHERE w.id = ?")
    .get(workspaceId)!.handle;

describe("the organization export's daily limit", () => {
  test("404s (a mistyped handle, another organization) use nothing; the first export made uses the day", async () => {
    const owner = await registerUser(server.url);
    const other = await registerUser(server.url);
    const handle = handleOf(owner.workspaceId);
    for (const path of ["/api/v1/orgs/no-such-org/export", `/api/v1/orgs/${handleOf(other.workspaceId)}/export`, "/api/v1/orgs/no-such-org/export"]) {
      const r = await owner.client.get(path);
      expect({ path, status: r.status, error: r.body.error }).toEqual({ path, status: 404, error: "NOT_FOUND" });
      expect(r.headers.get("x-ratelimit-remaining")).toBe("1");
    }
    const made = await owner.client.get(`/api/v1/orgs/${handle}/export`);
    expect(made.status).toBe(200);
    expect(made.body.organization.handle).toBe(handle);
    expect(made.headers.get("x-ratelimit-remaining")).toBe("0");
    // Whatever runs after the answer has gone out, the success keeps its place.
    await Bun.sleep(100);
    const again = await owner.client.get(`/api/v1/orgs/${handle}/export`);
    expect(again.status).toBe(429);
    expect(again.body.error).toBe("RATE_LIMITED");
    expect(Number(again.headers.get("retry-after"))).toBeGreaterThan(86000);
  });

  test("two requests at once cannot both be made: the second is refused while the first holds the day", async () => {
    const owner = await registerUser(server.url);
    const handle = handleOf(owner.workspaceId);
    const statuses = (await Promise.all([owner.client.get(`/api/v1/orgs/${handle}/export`), owner.client.get(`/api/v1/orgs/${handle}/export`)])).map((r) => r.status);
    expect(statuses.sort()).toEqual([200, 429]);
  });
});

describe("the personal data export's daily limit", () => {
  test("a request refused as bad input (400) uses nothing; the first export made uses the day", async () => {
    const person = await registerUser(server.url);
    for (let i = 0; i < 2; i++) {
      const refused = await person.client.get("/api/v1/users/me/export?format=%E9");
      expect({ status: refused.status, error: refused.body.error }).toEqual({ status: 400, error: "VALIDATION_ERROR" });
      expect(refused.headers.get("x-ratelimit-remaining")).toBe("1");
    }
    const made = await person.client.get("/api/v1/users/me/export");
    expect(made.status).toBe(200);
    expect(made.body.user.email).toBe(person.email);
    await Bun.sleep(100);
    expect((await person.client.get("/api/v1/users/me/export")).status).toBe(429);
  });
});
