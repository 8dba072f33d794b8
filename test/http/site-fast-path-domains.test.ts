/**
 * The direct lane reads a request's Host only once some custom domain is registered
 * (http/site-fast-path.ts): the first domain registered, and the first one verified, must change
 * what the very next request gets, with no restart and no wait.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { startTxtDns, type TxtDns } from "../helpers/txt-dns.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { registerUser, type TestUser } from "../helpers/factories.ts";
import { nextIp } from "../helpers/client.ts";
import { publish, writePage } from "../publish/site/support.ts";

let dns: TxtDns;
let server: TestServer;
let owner: TestUser;
const DOMAIN = "first.custom.example.test";

beforeAll(async () => {
  dns = await startTxtDns();
  server = await startTestServer({ CUSTOM_DOMAIN_RESOLVER: dns.resolver, QUIRE_WATCH_FILES: "false" });
  owner = await registerUser(server.url);
  await publish(owner);
  await writePage(owner, "guide.md", { title: "Guide", body: "# Guide\n\nhow to begin\n" });
}, 30_000);
afterAll(async () => {
  await server?.close();
  await dns?.close();
});

const named = (path: string) => fetch(server.url + path, { headers: { host: DOMAIN, "x-forwarded-for": nextIp(), "user-agent": "Mozilla/5.0" }, redirect: "manual" });

test("the first custom domain registered and verified is seen by the next request on the lane", async () => {
  const page = `/p/${owner.workspaceSlug}/guide`;
  // No domain anywhere: a Host the instance does not know is answered by path, as always.
  expect((await named(page)).status).toBe(200);
  expect((await named(page)).status).toBe(200); // and again, from the remembered page

  // Registered, not verified: every request naming it is served nothing.
  const set = await owner.client.put(`/api/v1/workspaces/${owner.workspaceId}/custom-domain`, { domain: DOMAIN });
  expect(set.body.status).not.toBe("verified");
  const pending = await named(page);
  expect(pending.status).toBe(404);
  expect(await pending.text()).not.toContain("how to begin");

  // Verified: the domain's paths are the site's own, and `/p/…` is not one of them.
  dns.records.set(`_quire-challenge.${DOMAIN}`, set.body.verification.value);
  expect((await owner.client.post(`/api/v1/workspaces/${owner.workspaceId}/custom-domain/verify`)).body.status).toBe("verified");
  const onDomain = await named("/guide");
  expect(onDomain.status).toBe(200);
  expect(await onDomain.text()).toContain("how to begin");
  expect((await named(page)).status).toBe(404);

  // The instance's own address still serves the page by path.
  const own = await fetch(server.url + page, { headers: { "x-forwarded-for": nextIp() } });
  expect(own.status).toBe(200);
});
