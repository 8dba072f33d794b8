/** GET|PATCH /api/v1/users/me/onboarding: each person's first-run checklist, merged key by key. */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { Client } from "../helpers/client.ts";
import { registerUser, type TestUser } from "../helpers/factories.ts";

let server: TestServer;
let user: TestUser;
beforeAll(async () => {
  server = await startTestServer();
  user = await registerUser(server.url);
});
afterAll(() => server.close());

const path = "/api/v1/users/me/onboarding";

test("a new person has nothing done; steps are marked and unmarked; dismissing hides the checklist", async () => {
  const fresh = await user.client.get(path);
  expect(fresh.status).toBe(200);
  expect(fresh.body).toMatchObject({ completed: false, dismissed: false, dismissed_at: null });
  expect(fresh.body.steps.map((s: { id: string; done: boolean }) => [s.id, s.done])).toEqual([
    ["create_page", false],
    ["invite_teammate", false],
    ["connect_git", false],
    ["publish_site", false],
    ["create_api_key", false],
  ]);

  const marked = await user.client.patch(path, { steps: { create_page: true, connect_git: true } });
  expect(marked.status).toBe(200);
  const done = marked.body.steps.filter((s: { done: boolean }) => s.done).map((s: { id: string }) => s.id);
  expect(done).toEqual(["create_page", "connect_git"]);
  const firstDoneAt = marked.body.steps[0].done_at;
  expect(typeof firstDoneAt).toBe("string");

  const again = await user.client.patch(path, { steps: { connect_git: false }, dismissed: true });
  expect(again.body.steps.filter((s: { done: boolean }) => s.done).map((s: { id: string }) => s.id)).toEqual(["create_page"]);
  expect(again.body.steps[0].done_at).toBe(firstDoneAt); // marking other steps keeps when this one was done
  expect(again.body.dismissed).toBe(true);
  expect((await user.client.get(path)).body).toEqual(again.body);

  // Another person's checklist is their own.
  const other = await registerUser(server.url);
  expect((await other.client.get(path)).body.dismissed).toBe(false);
});

test("unknown steps or fields are 400 naming them and change nothing; no credentials is 401", async () => {
  const before = (await user.client.get(path)).body;
  for (const [body, field] of [
    [{ steps: { fly_to_moon: true } }, "steps.fly_to_moon"],
    [{ steps: { create_page: "yes" } }, "steps.create_page"],
    [{ dismissed: "no" }, "dismissed"],
    [{ completed: true }, "completed"],
  ] as const) {
    const r = await user.client.patch(path, body);
    expect({ field, status: r.status, got: r.body.details?.field }).toEqual({ field, status: 400, got: field });
  }
  expect((await user.client.get(path)).body).toEqual(before);
  expect((await new Client(server.url).get(path)).status).toBe(401);
});
