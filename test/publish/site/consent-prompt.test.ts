/**
 * The analytics consent prompt: on sites served by `quire serve` (at /p/ and on a verified custom
 * domain), never in the static export or `quire preview`, where nothing is counted. Its answer
 * goes to the same origin: on the instance the cookie belongs to that site's /p/{slug} path (a yes
 * to one site is not a yes to another), on a custom domain to the domain, whose consent route
 * takes only its own site's answers. Whether the prompt is shown (no earlier answer, no opt-out
 * signal) is the browser's part: test/e2e/site-consent.e2e.test.ts.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { startTxtDns, type TxtDns } from "../../helpers/txt-dns.ts";
import { startTestServer, type TestServer } from "../../helpers/server.ts";
import { registerUser, type TestUser } from "../../helpers/factories.ts";
import { nextIp } from "../../helpers/client.ts";
import { startPreview } from "../../../src/publish/preview/preview-server.ts";
import { unzip } from "../export/support.ts";
import { apiKey, get, publish, rawGet, verifyDomain, writePage } from "./support.ts";

let dns: TxtDns;
let server: TestServer;
let owner: TestUser;
let other: TestUser;
const DOMAIN = "handbook.example.test";
const PROMPT = `class="consent-prompt"`;

/** The JSON config the page hands site.js. */
const configOf = (html: string) => JSON.parse(/<script[^>]*id="quire-site-config"[^>]*>([^<]*)<\/script>/.exec(html)![1]!);

/** POST /api/analytics/consent as a site's script sends it, optionally on a custom domain's Host. */
async function answer(body: unknown, host?: string): Promise<{ status: number; cookie: string | undefined; body: any }> {
  const res = await fetch(`${server.url}/api/analytics/consent`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-forwarded-for": nextIp(), ...(host ? { host } : {}) },
    body: JSON.stringify(body),
  });
  return { status: res.status, cookie: res.headers.getSetCookie().find((c) => c.startsWith("quire_analytics_consent=")), body: await res.json() };
}

beforeAll(async () => {
  dns = await startTxtDns();
  server = await startTestServer({ CUSTOM_DOMAIN_RESOLVER: dns.resolver, QUIRE_WATCH_FILES: "false" });
  owner = await registerUser(server.url);
  other = await registerUser(server.url);
  await publish(owner);
  await publish(other);
  await writePage(owner, "guide.md", { title: "Guide", body: "# Guide\n\nhow to begin\n" });
  await verifyDomain(owner, dns, DOMAIN);
}, 30_000);
afterAll(async () => {
  await server?.close();
  await dns?.close();
});

test("a served site carries the prompt (hidden until its script decides) and where to send the answer", async () => {
  const page = await get(server, `/p/${owner.workspaceSlug}/guide`);
  expect(page.status).toBe(200);
  expect(page.text).toContain(`<section ${PROMPT} aria-labelledby="consent-prompt-title" hidden>`);
  expect(page.text).toMatch(/<button type="button" class="consent-yes" data-consent="granted">Allow<\/button>/);
  expect(configOf(page.text).consent).toEqual({ url: "/api/analytics/consent", workspace: owner.workspaceId });
  // No inline handler: the buttons work through site.js under a policy that admits no inline code but the hashed one.
  expect(page.text).not.toMatch(/<section class="consent-prompt"[\s\S]*?\son[a-z]+=/);
  expect(page.headers.get("content-security-policy")).toMatch(/script-src 'self' 'sha256-[^']+'(?![^;]*unsafe-inline)/);

  const onDomain = await rawGet(server, "/guide", { host: DOMAIN });
  expect(onDomain.status).toBe(200);
  expect(onDomain.body).toContain(PROMPT);
  expect(configOf(onDomain.body).consent.url).toBe("/api/analytics/consent"); // the domain's own origin
});

test("the static export and the preview never ask: nothing is counted there", async () => {
  const res = await fetch(`${server.url}/api/v1/workspaces/${owner.workspaceId}/export`, {
    headers: { authorization: `Bearer ${owner.accessToken}`, "x-forwarded-for": owner.client.ip },
  });
  expect(res.status).toBe(200);
  const files = unzip(new Uint8Array(await res.arrayBuffer()));
  const pages = [...files.keys()].filter((name) => name.endsWith(".html"));
  expect(pages.length).toBeGreaterThan(1);
  for (const name of pages) {
    const html = new TextDecoder().decode(files.get(name)!);
    expect(html).not.toContain(PROMPT);
    if (html.includes("quire-site-config")) expect(configOf(html).consent).toBeNull();
  }

  const preview = await startPreview({ db: server.services.db, dataDir: server.dataDir, workspaceId: owner.workspaceId, port: 0, drafts: false });
  try {
    const html = await (await fetch(`${preview.url}/guide`)).text();
    expect(html).toContain("how to begin");
    expect(html).not.toContain(PROMPT);
    expect(configOf(html).consent).toBeNull();
  } finally {
    await preview.stop();
  }
});

test("on the instance the answer's cookie is the site's (/p/{slug}); a no is remembered like a yes", async () => {
  const yes = await answer({ workspace: owner.workspaceId, granted: true });
  expect(yes.status).toBe(200);
  expect(yes.body).toEqual({ workspace_id: owner.workspaceId, consent: "granted" });
  expect(yes.cookie).toContain("quire_analytics_consent=granted");
  expect(yes.cookie).toContain(`Path=/p/${owner.workspaceSlug}`);
  expect(yes.cookie).toMatch(/SameSite=Lax/i);
  const no = await answer({ workspace: other.workspaceSlug, granted: false });
  expect(no.cookie).toContain("quire_analytics_consent=denied");
  expect(no.cookie).toContain(`Path=/p/${other.workspaceSlug}`);
  expect(no.cookie).toMatch(/Max-Age=31536000/);
});

test("on a verified custom domain the consent route answers for that domain's site only, with the domain's cookie", async () => {
  const yes = await answer({ workspace: owner.workspaceId, granted: true }, DOMAIN);
  expect(yes.status).toBe(200);
  expect(yes.body).toEqual({ workspace_id: owner.workspaceId, consent: "granted" });
  expect(yes.cookie).toContain("quire_analytics_consent=granted");
  expect(yes.cookie).toContain("Path=/;");
  expect(yes.cookie).not.toMatch(/Domain=/i); // host-only: the custom domain's own cookie
  // Another workspace's site cannot be answered for through this domain (nor its existence learnt).
  const foreign = await answer({ workspace: other.workspaceId, granted: true }, DOMAIN);
  expect(foreign.status).toBe(404);
  expect(foreign.cookie).toBeUndefined();
  // Every other API path on the domain stays the site's (404 there).
  const api = await fetch(`${server.url}/api/v1/users/me`, { headers: { host: DOMAIN, "x-forwarded-for": nextIp() } });
  expect(api.status).toBe(404);
});

test("a members-only site never asks: its readers are the organization's members, not visitors to count", async () => {
  const member = await registerUser(server.url);
  await publish(member, { visibility: "authenticated" });
  await writePage(member, "handbook.md", { title: "Handbook", body: "# Handbook\n\nfor the team\n" });
  const key = await apiKey(member);
  const page = await get(server, `/p/${member.workspaceSlug}/handbook`, { authorization: `Bearer ${key}` });
  expect(page.status).toBe(200);
  expect(page.text).toContain("for the team");
  expect(page.text).not.toContain(PROMPT);
  expect(configOf(page.text).consent).toBeNull();
});
