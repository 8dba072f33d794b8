/**
 * Limits around the inbound git webhook: 30 deliveries a minute per sender address, and the
 * 10 MB body cap, both refused before any signature work or sync happens.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { Client } from "../helpers/client.ts";
import { registerUser, type TestUser } from "../helpers/factories.ts";
import type { PushNotice } from "../../src/git/webhook-receiver.ts";
import { startGitHttpRemote, type GitHttpRemote } from "../helpers/git-remote.ts";
import { pushBody, pushHeaders } from "./webhook-payloads.ts";

let server: TestServer;
let owner: TestUser;
let secret: string;
let branch: string;
const notices: PushNotice[] = [];

let remote: GitHttpRemote;
let wsId: string;

beforeAll(async () => {
  remote = await startGitHttpRemote({ branch: "main" });
  server = await startTestServer({ GIT_ALLOWLIST_PRIVATE: "true" });
  owner = await registerUser(server.url);
  const created = await owner.client.post("/api/v1/workspaces", { name: "Hooks", slug: "hooks", git_remote: remote.url, git_branch: "main" });
  expect(created.status).toBe(201);
  wsId = created.body.id;
  const settings = (await owner.client.get(`/api/v1/workspaces/${wsId}/admin/settings`)).body;
  secret = settings.webhook_secret;
  branch = settings.git_branch;
  server.services.webhooks.onPush((n) => void notices.push(n));
});
afterAll(async () => {
  await server?.close();
  await remote?.close();
});

test("31 deliveries in a minute from one address: the 31st is 429 and starts nothing", async () => {
  const sender = new Client(server.url);
  const path = `/api/git/webhook/${wsId}`;
  const body = pushBody("github", branch);
  const statuses: number[] = [];
  for (let i = 0; i < 30; i++) {
    // A mix of valid and unsigned deliveries: every one counts, whatever its outcome.
    const headers = pushHeaders("github", body, i % 2 === 0 ? secret : "wrong");
    const res = await sender.request("POST", path, { body, headers });
    statuses.push(res.status);
    expect(res.headers.get("x-ratelimit-limit")).toBe("30");
    expect(res.headers.get("x-ratelimit-remaining")).toBe(String(29 - i));
  }
  expect(statuses.filter((s) => s === 202)).toHaveLength(15);
  expect(statuses.filter((s) => s === 401)).toHaveLength(15);
  await Bun.sleep(5);
  const before = notices.length;

  const limited = await sender.request("POST", path, { body, headers: pushHeaders("github", body, secret) });
  expect(limited.status).toBe(429);
  expect(limited.body.error).toBe("RATE_LIMITED");
  expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
  expect(limited.headers.get("x-ratelimit-remaining")).toBe("0");
  await Bun.sleep(5);
  expect(notices.length).toBe(before);

  // The limit is per address and per route family: another sender still gets through, and the
  // limited sender's other API calls are not affected.
  const other = await new Client(server.url).request("POST", path, { body, headers: pushHeaders("github", body, secret) });
  expect(other.status).toBe(202);
  const health = await sender.get("/api/health");
  expect(health.status).toBe(200);
});

test("an 11 MB delivery is refused with 413 before it is read, even with a valid signature", async () => {
  const before = notices.length;
  // 11,000,000 bytes: over the 10 MiB cap, answered by the HTTP core in the error shape.
  const prefix = `{"ref":"refs/heads/${branch}","padding":"`;
  const big = prefix + "x".repeat(11_000_000 - prefix.length - 2) + '"}';
  const res = await new Client(server.url).request("POST", `/api/git/webhook/${wsId}`, { body: big, headers: pushHeaders("github", big, secret) });
  expect(res.status).toBe(413);
  expect(res.body.error).toBe("PAYLOAD_TOO_LARGE");
  // 11 MiB and more: the server itself cuts the connection with a 413 before any handler runs.
  const huge = prefix + "x".repeat(11 * 1024 * 1024) + '"}';
  const cut = await new Client(server.url).request("POST", `/api/git/webhook/${wsId}`, { body: huge, headers: pushHeaders("github", huge, secret) });
  expect(cut.status).toBe(413);
  await Bun.sleep(5);
  expect(notices.length).toBe(before);
});

test("an 11 MB chunked delivery (no Content-Length) is cut off with 413 too", async () => {
  const chunk = new Uint8Array(1024 * 1024).fill(120);
  let sent = 0;
  const stream = new ReadableStream<Uint8Array>({
    pull(c) {
      if (sent >= 11) return c.close();
      sent++;
      c.enqueue(chunk);
    },
  });
  const before = notices.length;
  const res = await fetch(`${server.url}/api/git/webhook/${wsId}`, {
    method: "POST",
    headers: { ...pushHeaders("github", "", secret), "x-forwarded-for": new Client(server.url).ip },
    body: stream,
  });
  expect(res.status).toBe(413);
  await Bun.sleep(5);
  expect(notices.length).toBe(before);
});

test("a 9 MB signed push is within the cap and accepted", async () => {
  const big = JSON.stringify({ ref: `refs/heads/${branch}`, after: "a".repeat(40), padding: "y".repeat(9 * 1024 * 1024) });
  const res = await new Client(server.url).request("POST", `/api/git/webhook/${wsId}`, { body: big, headers: pushHeaders("github", big, secret) });
  expect(res.status).toBe(202);
});
