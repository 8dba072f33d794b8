/**
 * A verified custom domain's requests are the site's, by Host, and are answered before routing;
 * they still leave what every request leaves: the request log line and the metrics (under their
 * own route template, `/* (custom domain)`), as a `/p/` request does.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import dns2 from "dns2";
import { startTestServer, type TestServer } from "../../helpers/server.ts";
import { registerUser, type TestUser } from "../../helpers/factories.ts";
import { nextIp } from "../../helpers/client.ts";
import { publish, writePage } from "./support.ts";

const txt = new Map<string, string>();
type DnsServer = { listen(o: object): Promise<void>; addresses(): { udp: { port: number } }; close(): Promise<void> };
let dns: DnsServer;
let server: TestServer;
let owner: TestUser;
const DOMAIN = "docs.custom.example.test";

beforeAll(async () => {
  const { Packet } = dns2 as unknown as { Packet: any };
  dns = (dns2 as unknown as { createServer(o: object): DnsServer }).createServer({
    udp: true,
    handle: (request: any, send: (r: unknown) => void) => {
      const response = Packet.createResponseFromRequest(request);
      const [q] = request.questions;
      const value = txt.get(q.name);
      if (value !== undefined && q.type === Packet.TYPE.TXT) response.answers.push({ name: q.name, type: Packet.TYPE.TXT, class: Packet.CLASS.IN, ttl: 0, data: value });
      send(response);
    },
  });
  await dns.listen({ udp: { port: 0, address: "127.0.0.1" } });
  server = await startTestServer({ CUSTOM_DOMAIN_RESOLVER: `127.0.0.1:${dns.addresses().udp.port}`, QUIRE_WATCH_FILES: "false", FF_METRICS: "true" });
  owner = await registerUser(server.url);
  await publish(owner);
  await writePage(owner, "guide.md", { title: "Guide", body: "# Guide\n\nhow to begin\n" });
  const set = await owner.client.put(`/api/v1/workspaces/${owner.workspaceId}/custom-domain`, { domain: DOMAIN });
  txt.set(`_quire-challenge.${DOMAIN}`, set.body.verification.value);
  const verified = await owner.client.post(`/api/v1/workspaces/${owner.workspaceId}/custom-domain/verify`);
  if (verified.body.status !== "verified") throw new Error(JSON.stringify(verified.body));
}, 30_000);
afterAll(async () => {
  await server?.close();
  await dns?.close();
});

async function onDomain(path: string, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(server.url + path, { headers: { host: DOMAIN, "x-forwarded-for": nextIp(), "user-agent": "Mozilla/5.0", ...headers }, redirect: "manual" });
}

async function logLine(requestId: string): Promise<Record<string, unknown> | undefined> {
  for (let i = 0; i < 50; i++) {
    const line = server.logs.map((l) => JSON.parse(l) as Record<string, unknown>).find((l) => l.request_id === requestId && l.msg === "request");
    if (line) return line;
    await Bun.sleep(20);
  }
  return undefined;
}

test("a page on a verified custom domain leaves its log line and is counted in the metrics", async () => {
  const page = await onDomain("/guide");
  expect(page.status).toBe(200);
  expect(await page.text()).toContain("how to begin");
  expect(page.headers.get("x-content-type-options")).toBe("nosniff");
  expect(page.headers.get("x-ratelimit-limit")).toBe("600");
  const id = page.headers.get("x-request-id")!;
  expect(id).toBeTruthy();
  const line = await logLine(id);
  expect(line).toMatchObject({ method: "GET", path: "/guide", status: 200 });
  expect(typeof line!.ms).toBe("number");

  // A revalidation (304) and a missing page (404) are counted too, each under its status.
  expect((await onDomain("/guide", { "if-none-match": page.headers.get("etag")! })).status).toBe(304);
  const missing = await onDomain("/no-such-page");
  expect(missing.status).toBe(404);
  expect(await logLine(missing.headers.get("x-request-id")!)).toMatchObject({ method: "GET", path: "/no-such-page", status: 404 });

  const key = await owner.client.post("/api/v1/api-keys", { name: "scrape", scopes: ["admin"] });
  const text = await (await fetch(`${server.url}/metrics`, { headers: { authorization: `Bearer ${key.body.key}` } })).text();
  expect(text).toContain('quire_http_requests_total{route="/* (custom domain)",method="GET",status="200"} 1');
  expect(text).toContain('quire_http_requests_total{route="/* (custom domain)",method="GET",status="304"} 1');
  expect(text).toContain('quire_http_requests_total{route="/* (custom domain)",method="GET",status="404"} 1');
  expect(text).toContain('quire_http_request_duration_seconds_count{route="/* (custom domain)",method="GET"} 3');
});

test("a request naming a registered but unverified domain is served nothing, and still logged", async () => {
  const other = await registerUser(server.url);
  await publish(other);
  const pending = "pending.custom.example.test";
  const set = await other.client.put(`/api/v1/workspaces/${other.workspaceId}/custom-domain`, { domain: pending });
  expect(set.body.status).not.toBe("verified");
  const res = await fetch(server.url + "/guide", { headers: { host: pending, "x-forwarded-for": nextIp() } });
  expect(res.status).toBe(404);
  expect(await logLine(res.headers.get("x-request-id")!)).toMatchObject({ method: "GET", path: "/guide", status: 404 });
});
