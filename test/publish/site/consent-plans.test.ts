/**
 * In the Cloud edition a site asks its readers for analytics consent only when the organization's
 * plan reports analytics (Team, Business): on Free the figures are never shown to anyone, so the
 * question would be asked for nothing. (Community reports analytics for every organization:
 * consent-prompt.test.ts.)
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { startTestServer, type TestServer } from "../../helpers/server.ts";
import { registerUser, type TestUser } from "../../helpers/factories.ts";
import { get, publish, writePage } from "./support.ts";

let server: TestServer;
let free: TestUser;
let team: TestUser;
const PROMPT = `class="consent-prompt"`;
const configOf = (html: string) => JSON.parse(/<script[^>]*id="quire-site-config"[^>]*>([^<]*)<\/script>/.exec(html)![1]!);

beforeAll(async () => {
  server = await startTestServer({ QUIRE_EDITION: "cloud" });
  free = await registerUser(server.url);
  team = await registerUser(server.url);
  for (const u of [free, team]) {
    await publish(u);
    await writePage(u, "guide.md", { title: "Guide", body: "# Guide\n\nhow to begin\n" });
  }
  // The Team organization's subscription, as the payment provider's webhook records it.
  const orgId = server.services.workspaces.byId(team.workspaceId)!.org_id;
  server.services.db
    .query("INSERT INTO org_subscriptions (org_id, plan, status, updated_at) VALUES (?, 'team', 'active', ?)")
    .run(orgId, new Date().toISOString());
}, 30_000);
afterAll(() => server?.close());

test("a Free organization's site does not ask; a Team organization's site does", async () => {
  const onFree = await get(server, `/p/${free.workspaceSlug}/guide`, { "user-agent": "Mozilla/5.0" });
  expect(onFree.status).toBe(200);
  expect(onFree.text).toContain("how to begin");
  expect(onFree.text).not.toContain(PROMPT);
  expect(configOf(onFree.text).consent).toBeNull();

  const onTeam = await get(server, `/p/${team.workspaceSlug}/guide`, { "user-agent": "Mozilla/5.0" });
  expect(onTeam.status).toBe(200);
  expect(onTeam.text).toContain(PROMPT);
  expect(configOf(onTeam.text).consent).toEqual({ url: "/api/analytics/consent", workspace: team.workspaceId });
});
