/**
 * The public webhook does not reveal which workspace ids exist: an unknown or deleted workspace is
 * answered exactly like a known one with a wrong signature (401, same body but the request id);
 * the real reason is in the server log only.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { createHmac } from "node:crypto";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { registerUser, type TestUser } from "../helpers/factories.ts";

let server: TestServer;
let owner: TestUser;
beforeAll(async () => {
  server = await startTestServer();
  owner = await registerUser(server.url);
});
afterAll(() => server.close());

async function deliver(id: string, secret: string) {
  const body = JSON.stringify({ ref: "refs/heads/main", after: "0".repeat(40) });
  const sig = "sha256=" + createHmac("sha256", secret).update(body).digest("hex");
  const res = await fetch(`${server.url}/api/git/webhook/${id}`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-github-event": "push", "x-hub-signature-256": sig, "x-forwarded-for": "203.0.113.77" },
    body,
  });
  const json = (await res.json()) as Record<string, unknown>;
  const { request_id, ...rest } = json;
  expect(request_id).toBeTruthy();
  return { status: res.status, contentType: res.headers.get("content-type"), body: rest };
}

test("an unknown workspace answers exactly like a bad signature; the log says which", async () => {
  const created = await owner.client.post("/api/v1/workspaces", { name: "Hooked", slug: "hooked" });
  expect(created.status).toBe(201);
  const badSignature = await deliver(created.body.id, "f".repeat(64));
  const unknown = await deliver("01JZZZZZZZZZZZZZZZZZZZZZZZ", "f".repeat(64));
  const notAnId = await deliver("no-such-thing", "f".repeat(64));
  expect(badSignature).toEqual({ status: 401, contentType: badSignature.contentType, body: { error: "UNAUTHORIZED", message: "Missing or invalid webhook signature" } });
  expect(unknown).toEqual(badSignature);
  expect(notAnId).toEqual(badSignature);
  expect(server.logs.some((l) => l.includes("unknown workspace") && l.includes("01JZZZZZZZZZZZZZZZZZZZZZZZ"))).toBe(true);
  expect(server.logs.some((l) => l.includes("mismatch") && l.includes(created.body.id))).toBe(true);

  // A deleted workspace is unknown too, even with its real secret.
  const settings = await owner.client.get(`/api/v1/workspaces/${created.body.id}/admin/settings`);
  expect((await owner.client.delete(`/api/v1/workspaces/${created.body.id}`)).status).toBeLessThan(300);
  expect(await deliver(created.body.id, settings.body.webhook_secret)).toEqual(badSignature);
});
