import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { Client } from "../helpers/client.ts";
import { registerUser } from "../helpers/factories.ts";
import { createApp } from "../../src/app.ts";
import { API_CSP, MAX_BODY_BYTES } from "../../src/http/core.ts";
import { expectError, logOf } from "./support.ts";

let server: TestServer;
let boom: { url: string; stop(): void };
beforeAll(async () => {
  server = await startTestServer();
  // The real app on the same services plus one route that fails the way a bug would.
  const app = createApp(server.services)
    .get("/api/test-boom", () => {
      throw new Error("at /home/secret/path");
    })
    // A route that reads the raw bytes itself, as a webhook signature check does.
    .post("/api/test-raw", async ({ request }) => ({ bytes: (await request.arrayBuffer()).byteLength }))
    .listen({ port: 0, hostname: "127.0.0.1" });
  boom = { url: `http://127.0.0.1:${app.server!.port}`, stop: () => app.stop(true) };
});
afterAll(async () => {
  boom.stop();
  await server.close();
});

/** A request body sent without Content-Length (chunked), in 64 KiB pieces. */
function chunked(total: number): ReadableStream<Uint8Array> {
  let sent = 0;
  return new ReadableStream({
    pull(c) {
      if (sent >= total) return c.close();
      const n = Math.min(65536, total - sent);
      sent += n;
      c.enqueue(new Uint8Array(n).fill(0x20));
    },
  });
}

describe("every response carries a request id and the error shape when it fails", () => {
  test("success: X-Request-Id, nosniff and the strict API policy", async () => {
    const r = await new Client(server.url).get("/api/health");
    expect(r.status).toBe(200);
    expect(r.headers.get("x-request-id")).toMatch(/^[0-9A-HJKMNP-TV-Z]{26}$/);
    expect(r.headers.get("x-content-type-options")).toBe("nosniff");
    expect(r.headers.get("content-security-policy")).toBe(API_CSP);
    expect(API_CSP).toContain("default-src 'none'");
    expect(API_CSP).toContain("frame-ancestors 'none'");
  });

  test("request ids are unique per request", async () => {
    const c = new Client(server.url);
    const ids = new Set<string | null>();
    for (let i = 0; i < 20; i++) ids.add((await c.get("/api/health")).headers.get("x-request-id"));
    expect(ids.size).toBe(20);
  });

  test("unknown route → 404 NOT_FOUND with headers", async () => {
    const r = expectError(await new Client(server.url).get("/api/does-not-exist"), 404, "NOT_FOUND");
    expect(r.headers.get("x-content-type-options")).toBe("nosniff");
    expect(r.headers.get("content-security-policy")).toBe(API_CSP);
    expectError(await new Client(server.url).post("/api/v1/nothing/here", { a: 1 }), 404, "NOT_FOUND");
  });

  test("wrong method on a known path → 404 in the error shape", async () => {
    expectError(await new Client(server.url).delete("/api/health"), 404, "NOT_FOUND");
    expectError(await new Client(server.url).request("PUT", "/api/auth/login", { json: {} }), 404, "NOT_FOUND");
  });

  test("malformed JSON → 400 VALIDATION_ERROR naming the body", async () => {
    const r = await new Client(server.url).request("POST", "/api/auth/login", {
      body: '{"email": "a@b.c", "password": ',
      headers: { "content-type": "application/json" },
    });
    expectError(r, 400, "VALIDATION_ERROR");
    expect(r.body.details.field).toBe("body");
  });

  test("JSON of the wrong type (array, string, number) → 400 naming the body", async () => {
    for (const body of ["[1,2,3]", '"just a string"', "42", "true"]) {
      const r = await new Client(server.url).request("POST", "/api/v1/api-keys", {
        body,
        headers: { "content-type": "application/json" },
        token: (await registerUser(server.url)).accessToken,
      });
      expectError(r, 400, "VALIDATION_ERROR");
      expect(r.body.details.field).toBe("body");
    }
  });

  test("a field of the wrong type → 400 with details.field naming it", async () => {
    const u = await registerUser(server.url);
    const r = await u.client.post("/api/v1/api-keys", { name: "ok", scopes: "read" });
    expectError(r, 400, "VALIDATION_ERROR");
    expect(r.body.details.field).toBe("scopes");
  });

  test("a thrown exception → 500 INTERNAL_ERROR that names nothing internal; the log keeps the cause", async () => {
    const r = expectError(await new Client(boom.url).get("/api/test-boom"), 500, "INTERNAL_ERROR");
    expect(r.text).not.toContain("/home/secret");
    expect(r.text).not.toContain("at ");
    expect(r.text).not.toMatch(/\.ts|stack|Error:/);
    expect(Object.keys(r.body).sort()).toEqual(["error", "message", "request_id"]);
    expect(r.headers.get("content-security-policy")).toBe(API_CSP);
    const errorLine = server.logs.map((l) => JSON.parse(l)).find((l) => l.msg === "unhandled error" && l.request_id === r.body.request_id);
    expect(errorLine?.error).toContain("/home/secret/path");
    expect((await logOf(server.logs, r.body.request_id)).status).toBe(500);
  });
});

describe("request body limit (10 MB)", () => {
  test("Content-Length over the limit → 413 PAYLOAD_TOO_LARGE in the error shape, before reading it", async () => {
    const r = await new Client(server.url).request("POST", "/api/auth/login", {
      body: new Uint8Array(MAX_BODY_BYTES + 1),
      headers: { "content-type": "application/json" },
    });
    expectError(r, 413, "PAYLOAD_TOO_LARGE");
    expect(r.headers.get("x-content-type-options")).toBe("nosniff");
  });

  test("far over the limit (11 MB + 10 B, 50 MB by Content-Length) → the same 413 in the error shape", async () => {
    // Bun's own body limit would answer these with a bare 413 (no body, no request id) before
    // any hook runs; the app must be the one refusing them.
    for (const size of [11 * 1024 * 1024 + 10, 50 * 1024 * 1024]) {
      const r = await new Client(server.url).request("POST", "/api/v1/workspaces", {
        body: new Uint8Array(size),
        headers: { "content-type": "application/json" },
      });
      expectError(r, 413, "PAYLOAD_TOO_LARGE");
      expect(r.body.details).toEqual({ limit_bytes: MAX_BODY_BYTES });
      expect(r.headers.get("x-content-type-options")).toBe("nosniff");
      expect(r.headers.get("content-security-policy")).toBe(API_CSP);
    }
  });

  test("a body of exactly the limit is read and judged on its content", async () => {
    const body = JSON.stringify({ email: "a@b.c", password: "x".repeat(MAX_BODY_BYTES - 40) });
    const padded = body + " ".repeat(MAX_BODY_BYTES - body.length);
    expect(padded.length).toBe(MAX_BODY_BYTES);
    const r = await new Client(server.url).request("POST", "/api/auth/login", { body: padded, headers: { "content-type": "application/json" } });
    expectError(r, 400, "VALIDATION_ERROR");
    expect(r.body.details.field).toBe("password");
  });

  test("a chunked body (no Content-Length) over the limit → 413 in the error shape, also far over it", async () => {
    for (const size of [MAX_BODY_BYTES + 1, 64 * 1024 * 1024, 200 * 1024 * 1024]) {
      const res = await fetch(server.url + "/api/auth/login", {
        method: "POST",
        body: chunked(size),
        headers: { "content-type": "application/json" },
        duplex: "half",
      } as RequestInit);
      expect(res.status).toBe(413);
      const body = (await res.json()) as { error: string; request_id: string };
      expect(body.error).toBe("PAYLOAD_TOO_LARGE");
      expect(res.headers.get("x-request-id")).toBe(body.request_id);
      expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    }
  });

  test("a chunked body within the limit is parsed like any other", async () => {
    const u = await registerUser(server.url);
    const json = new TextEncoder().encode(JSON.stringify({ name: "chunked key" }));
    const res = await fetch(server.url + "/api/v1/api-keys", {
      method: "POST",
      body: new ReadableStream({
        start(c) {
          c.enqueue(json.subarray(0, 5));
          c.enqueue(json.subarray(5));
          c.close();
        },
      }),
      headers: { "content-type": "application/json", authorization: `Bearer ${u.accessToken}`, "x-forwarded-for": u.client.ip },
      duplex: "half",
    } as RequestInit);
    expect(res.status).toBe(201);
    expect(((await res.json()) as { name: string }).name).toBe("chunked key");
  });
});

test("a route that reads the raw body gets every byte, with or without Content-Length", async () => {
  const sized = await fetch(boom.url + "/api/test-raw", { method: "POST", body: "x".repeat(70_000), headers: { "content-type": "application/json" } });
  expect(await sized.json()).toEqual({ bytes: 70_000 });
  const streamed = await fetch(boom.url + "/api/test-raw", {
    method: "POST",
    body: chunked(200_000),
    headers: { "content-type": "application/json" },
    duplex: "half",
  } as RequestInit);
  expect(await streamed.json()).toEqual({ bytes: 200_000 });
});

describe("health and readiness", () => {
  test("/api/health: status ok, vX.Y.Z, the instance id", async () => {
    const r = await new Client(server.url).get("/api/health");
    expect(r.body).toEqual({ status: "ok", version: expect.stringMatching(/^v\d+\.\d+\.\d+$/), instance_id: server.services.instanceId });
    expect(r.body.instance_id).toMatch(/^[0-9A-HJKMNP-TV-Z]{26}$/);
  });

  test("/api/ready: 200 with database, git, email_outbox, storage and workspaces checks", async () => {
    const r = await new Client(server.url).get("/api/ready");
    expect(r.status).toBe(200);
    expect(r.body.status).toBe("ready");
    expect(Object.keys(r.body.checks).sort()).toEqual(["database", "email_outbox", "git", "storage", "workspaces"]);
    expect(r.body.checks.workspaces).toEqual({ status: "ok", stopped: 0 });
    expect(r.body.checks.database).toEqual({ status: "ok" });
    expect(r.body.checks.email_outbox).toEqual({ status: "ok", pending: 0 });
    expect(["ok", "warning"]).toContain(r.body.checks.git.status);
  });
});

describe("request logs", () => {
  test("one JSON line per request with its id, status and path; no credentials, passwords or tokens", async () => {
    const password = "my very secret password 1";
    const u = await registerUser(server.url, { password });
    const login = await u.client.post("/api/auth/login", { email: u.email, password });
    expect(login.status).toBe(200);
    const key = await u.client.post("/api/v1/api-keys", { name: "logged?" });
    const withKey = await new Client(server.url).get("/api/v1/api-keys", { token: key.body.key });
    expect(withKey.status).toBe(200);
    const refreshed = await new Client(server.url).post("/api/auth/refresh", { refresh_token: login.body.refresh_token });
    expect(refreshed.status).toBe(200);
    const shareToken = "sharelinktokenABCDEFGHIJKLMNOPQRSTUVWXYZ0123";
    const share = await u.client.post(`/api/v1/share-links/${shareToken}/use`);
    const keyInPath = await new Client(server.url).get(`/api/v1/${key.body.key}`);
    const inviteToken = "inviteTokenABCDEFGHIJKLMNOPQRSTUVWXYZ012345";
    const invite = await new Client(server.url).get(`/invite/${inviteToken}`);
    const resetToken = "resetTokenABCDEFGHIJKLMNOPQRSTUVWXYZ0123456";
    const reset = await new Client(server.url).get(`/reset-password?token=${resetToken}`);
    const pageLinkToken = "pageLinkTokenABCDEFGHIJKLMNOPQRSTUVWXYZ0123";
    const sharedPage = await new Client(server.url).get(`/shared/${pageLinkToken}`);
    const sharedApi = await new Client(server.url).get(`/api/v1/share-links/${pageLinkToken}/page`);
    const joinToken = "joinTokenABCDEFGHIJKLMNOPQRSTUVWXYZ01234567";
    const join = await new Client(server.url).get(`/join/${joinToken}`);

    for (const r of [login, key, withKey, refreshed, share, keyInPath, invite, reset, sharedPage, sharedApi, join]) {
      const line = await logOf(server.logs, r.headers.get("x-request-id")!);
      expect(line.status).toBe(r.status);
      expect(line.method).toBeString();
      expect(line.path).toStartWith("/");
    }
    expect((await logOf(server.logs, withKey.headers.get("x-request-id")!)).key_id).toBe(key.body.id);
    expect((await logOf(server.logs, login.headers.get("x-request-id")!)).path).toBe("/api/auth/login");

    const all = server.logs.join("\n");
    for (const line of server.logs) expect(() => JSON.parse(line)).not.toThrow();
    for (const secret of [
      password,
      u.accessToken,
      login.body.access_token,
      login.body.refresh_token,
      refreshed.body.access_token,
      refreshed.body.refresh_token,
      key.body.key,
      shareToken,
      inviteToken,
      resetToken,
      pageLinkToken,
      joinToken,
    ]) {
      expect(all).not.toContain(secret);
    }
    expect(all.toLowerCase()).not.toContain("bearer");
    expect(all.toLowerCase()).not.toContain("authorization");
  });
});
