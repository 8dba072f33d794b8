/**
 * Outbound webhook definitions: admins manage them, the secret is shown once, deliveries are
 * always empty, and a URL never leads to the server's own network — every address spelling the git
 * remote tests refuse (test/core/net/remote-ssrf.test.ts) is refused here too, with nothing stored.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { registerUser, type TestUser } from "../helpers/factories.ts";

let server: TestServer;
let owner: TestUser;
let outsider: TestUser;
beforeAll(async () => {
  server = await startTestServer();
  owner = await registerUser(server.url);
  outsider = await registerUser(server.url);
});
afterAll(() => server.close());

const hooks = () => `/api/v1/workspaces/${owner.workspaceId}/webhooks`;
const stored = () => server.services.db.query<{ n: number }, []>("SELECT COUNT(*) AS n FROM outbound_webhooks").get()!.n;

/** A name from /etc/hosts that points at loopback (other than "localhost", which is refused by name). */
function loopbackHostName(): string | null {
  for (const line of readFileSync("/etc/hosts", "utf8").split("\n")) {
    const [address, ...names] = line.replace(/#.*/, "").trim().split(/\s+/);
    if (!address || !/^127\.|^::1$/.test(address)) continue;
    const name = names.find((n) => n && n !== "localhost" && !n.endsWith(".localhost") && /^[a-z0-9.-]+$/i.test(n));
    if (name) return name;
  }
  return null;
}

async function expectRefused(urls: string[], reason: string) {
  const before = stored();
  for (const url of urls) {
    const r = await owner.client.post(hooks(), { url });
    expect({ url, status: r.status, error: r.body.error, field: r.body.details?.field, reason: r.body.details?.reason }).toEqual({
      url,
      status: 400,
      error: "VALIDATION_ERROR",
      field: "url",
      reason,
    });
  }
  expect(stored()).toBe(before);
}

describe("definitions", () => {
  test("create shows the secret once; list, read, change and delete; deliveries are always []", async () => {
    const created = await owner.client.post(hooks(), { url: "https://93.184.215.14/hooks/quire", events: ["page-created", "page-updated"], description: "CI" });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ url: "https://93.184.215.14/hooks/quire", events: ["page-created", "page-updated"], active: true, description: "CI" });
    expect(created.body.secret).toMatch(/^whsec_[A-Za-z0-9_-]{20,}$/);
    const id = created.body.id;

    const list = await owner.client.get(hooks());
    expect(list.status).toBe(200);
    expect(list.body.items.map((h: { id: string }) => h.id)).toEqual([id]);
    const one = await owner.client.get(`${hooks()}/${id}`);
    expect(one.body.id).toBe(id);
    for (const body of [list.text, one.text]) expect(body).not.toContain(created.body.secret);
    expect(JSON.stringify(list.body.items[0])).not.toContain("secret");

    const changed = await owner.client.put(`${hooks()}/${id}`, { active: false, url: "https://[2606:4700::1111]/h" });
    expect(changed.status).toBe(200);
    expect(changed.body).toMatchObject({ active: false, url: "https://[2606:4700::1111]/h", events: ["page-created", "page-updated"] });

    const deliveries = await owner.client.get(`${hooks()}/${id}/deliveries`);
    expect(deliveries.status).toBe(200);
    expect(deliveries.body).toEqual({ items: [], next_cursor: null });

    // A page change is not delivered anywhere (delivery is not active), and the log stays empty.
    const page = await owner.client.post(`/api/v1/content/${owner.workspaceSlug}/hooked.md`, { title: "Hooked" });
    expect(page.status).toBe(201);
    expect((await owner.client.get(`${hooks()}/${id}/deliveries`)).body.items).toEqual([]);

    expect((await owner.client.delete(`${hooks()}/${id}`)).status).toBe(204);
    expect((await owner.client.get(`${hooks()}/${id}`)).status).toBe(404);
    expect((await owner.client.get(`${hooks()}/${id}/deliveries`)).status).toBe(404);
  });

  test("another organization's admin sees 404; bad fields are 400 naming them", async () => {
    const created = await owner.client.post(hooks(), { url: "https://8.8.8.8/h" });
    const id = created.body.id;
    for (const r of [
      await outsider.client.get(hooks()),
      await outsider.client.post(hooks(), { url: "https://8.8.8.8/x" }),
      await outsider.client.get(`${hooks()}/${id}`),
      await outsider.client.put(`${hooks()}/${id}`, { active: false }),
      await outsider.client.delete(`${hooks()}/${id}`),
    ]) {
      expect(r.status).toBe(404);
      expect(r.body).toMatchObject({ error: "NOT_FOUND" });
    }
    // Their own workspace's id does not reach it either.
    expect((await outsider.client.get(`/api/v1/workspaces/${outsider.workspaceId}/webhooks/${id}`)).status).toBe(404);

    for (const [body, field] of [
      [{}, "url"],
      [{ url: "https://8.8.8.8/h", events: ["page-exploded"] }, "events.0"],
      [{ url: "https://8.8.8.8/h", events: [] }, "events"],
      [{ url: "https://8.8.8.8/h", secret: "mine" }, "secret"],
      [{ url: `https://8.8.8.8/${"a".repeat(2100)}` }, "url"],
      [{ url: "https://8.8.8.8/a b" }, "url"],
    ] as const) {
      const r = await owner.client.post(hooks(), body);
      expect({ field, status: r.status, got: r.body.details?.field }).toEqual({ field, status: 400, got: field });
    }
  });
});

describe("URLs that could reach the server's own network are refused", () => {
  test("schemes other than http(s), credentials in the URL, over-long and malformed URLs", async () => {
    await expectRefused(["ftp://8.8.8.8/x", "file:///etc/passwd", "gopher://8.8.8.8:70/_x", "javascript:alert(1)", "ssh://git@8.8.8.8/x"], "scheme");
    await expectRefused(["https://user:pass@8.8.8.8/h", "https://token@8.8.8.8/h", "https://:pw@8.8.8.8/h"], "credentials");
    await expectRefused(["not-a-url", "//8.8.8.8/x", "https://"], "invalid");
  });

  test("IPv4 private, shared, special and reserved ranges, and every spelling of loopback", async () => {
    await expectRefused(
      [
        "http://0.0.0.0/h", "http://10.0.0.1/h", "http://100.64.0.1/h", "http://127.0.0.1/h", "http://127.255.255.254:8080/h",
        "http://169.254.169.254/latest/meta-data", "http://172.16.0.1/h", "http://172.31.255.255/h", "http://192.0.0.8/h",
        "http://192.168.1.1/h", "http://198.18.0.1/h", "http://224.0.0.1/h", "http://240.0.0.1/h", "http://255.255.255.255/h",
        // decimal, octal, hex, short and percent-encoded forms (the URL parser turns them into 127.0.0.1)
        "http://2130706433/h", "http://0x7f.0.0.1/h", "http://0x7f000001/h", "http://0177.0.0.1/h", "http://017700000001/h",
        "http://127.1/h", "http://%31%32%37.0.0.1/h", "http://127.0.0.1./h",
      ],
      "private_network",
    );
  });

  test("IPv6 forms that lead to a private IPv4 address, and IPv6's own private ranges", async () => {
    await expectRefused(
      [
        "http://[::ffff:127.0.0.1]/h", "http://[0:0:0:0:0:ffff:7f00:1]/h", "http://[::ffff:a9fe:a9fe]/h", "https://[::ffff:10.0.0.1]/h",
        "http://[::127.0.0.1]/h", "http://[::ffff:0:127.0.0.1]/h", "http://[64:ff9b::7f00:1]/h", "http://[64:ff9b::169.254.169.254]/h",
        "http://[2002:7f00:1::1]/h", "http://[2002:c0a8:101::1]/h",
        "http://[::1]/h", "http://[::]/h", "http://[fc00::1]/h", "http://[fd12:3456::1]/h", "http://[fe80::1]/h", "http://[fec0::1]/h",
        "http://[ff02::1]/h", "http://[64:ff9b:1::1]/h", "http://[100::1]/h", "http://[2001:db8::1]/h", "http://[2001::1]/h",
      ],
      "private_network",
    );
  });

  test("names: localhost in every case and suffix, and a DNS name that resolves to loopback", async () => {
    const name = loopbackHostName();
    await expectRefused(["http://localhost/h", "http://LOCALHOST./h", "http://hooks.localhost:9000/h", ...(name ? [`http://${name}/h`, `https://${name}:8443/h`] : [])], "private_network");
  });

  test("an update to a private address is refused and the stored URL stays", async () => {
    const created = await owner.client.post(hooks(), { url: "https://1.1.1.1/h" });
    const r = await owner.client.put(`${hooks()}/${created.body.id}`, { url: "http://[::ffff:169.254.169.254]/latest" });
    expect(r.status).toBe(400);
    expect(r.body.details).toMatchObject({ field: "url", reason: "private_network" });
    expect((await owner.client.get(`${hooks()}/${created.body.id}`)).body.url).toBe("https://1.1.1.1/h");
  });
});

describe("trusted hooks and restricted folders", () => {
  test("trusted is off unless an admin sets it; it is shown, changed alone, and checked", async () => {
    const created = await owner.client.post(hooks(), { url: "https://9.9.9.9/h" });
    expect(created.body.trusted).toBe(false);
    const id = created.body.id;
    const on = await owner.client.put(`${hooks()}/${id}`, { trusted: true });
    expect(on.body).toMatchObject({ trusted: true, url: "https://9.9.9.9/h", active: true });
    expect((await owner.client.get(`${hooks()}/${id}`)).body.trusted).toBe(true);
    const bad = await owner.client.put(`${hooks()}/${id}`, { trusted: "yes" });
    expect(bad.status).toBe(400);
    expect(bad.body.details?.field).toBe("trusted");
    expect((await owner.client.get(`${hooks()}/${id}`)).body.trusted).toBe(true);
    expect((await owner.client.post(hooks(), { url: "https://9.9.9.9/t", trusted: true })).body.trusted).toBe(true);
    for (const h of (await owner.client.get(hooks())).body.items) expect((await owner.client.delete(`${hooks()}/${h.id}`)).status).toBe(204);
  });

  test("what each hook would be sent for the workspace's real events: a hidden page's only to the trusted one", async () => {
    const slug = owner.workspaceSlug;
    const ws = owner.workspaceId;
    const open = await owner.client.post(hooks(), { url: "https://9.9.9.9/open", events: ["page-created", "page-updated", "page-moved", "page-deleted"] });
    const inner = await owner.client.post(hooks(), { url: "https://9.9.9.9/inner", trusted: true });
    const paused = await owner.client.post(hooks(), { url: "https://9.9.9.9/paused", trusted: true, active: false });
    expect([open.status, inner.status, paused.status]).toEqual([201, 201, 201]);
    expect((await owner.client.post(`/api/v1/content/${slug}/hr/salaries.md`, { title: "Salaries", body: "Bands." })).status).toBe(201);
    expect((await owner.client.post(`/api/v1/content/${slug}/notes.md`, { title: "Notes", body: "Open." })).status).toBe(201);
    expect((await owner.client.put(`/api/v1/workspaces/${ws}/access`, { path: "hr/", entries: [{ who: owner.email, level: "edit" }] })).status).toBe(200);

    const events: any[] = [];
    const stop = server.services.bus.onEvent((e) => events.push(e));
    const salaries = await owner.client.get(`/api/v1/content/${slug}/hr/salaries.md`);
    expect((await owner.client.put(`/api/v1/content/${slug}/hr/salaries.md`, { body: "New bands.", lastKnownHash: salaries.body.content_hash })).status).toBe(200);
    expect((await owner.client.patch(`/api/v1/content/${slug}/notes.md`, { new_path: "hr/notes.md" })).status).toBe(200);
    stop();
    const workspace = server.services.workspaces.byId(ws)!;
    const sent = events
      .filter((e) => ["page-updated", "page-moved"].includes(e.type))
      .map((e) => server.services.outboundWebhooks.deliveriesFor(workspace, e).map((d) => [d.url.replace("https://9.9.9.9/", ""), d.body.event, d.body.data.path ?? d.body.data.new_path]));
    expect(sent).toEqual([
      [["inner", "page-updated", "hr/salaries.md"]],
      [["open", "page-deleted", "notes.md"], ["inner", "page-moved", "hr/notes.md"]],
    ]);
    for (const h of (await owner.client.get(hooks())).body.items) expect((await owner.client.delete(`${hooks()}/${h.id}`)).status).toBe(204);
  });
});

describe("with WEBHOOK_ALLOWLIST_PRIVATE=true", () => {
  test("an operator may point webhooks at the internal network", async () => {
    const open = await startTestServer({ WEBHOOK_ALLOWLIST_PRIVATE: "true" });
    try {
      const admin = await registerUser(open.url);
      const r = await admin.client.post(`/api/v1/workspaces/${admin.workspaceId}/webhooks`, { url: "http://10.0.0.5:8080/hook" });
      expect(r.status).toBe(201);
      // Scheme and credential rules still hold.
      expect((await admin.client.post(`/api/v1/workspaces/${admin.workspaceId}/webhooks`, { url: "http://u:p@10.0.0.5/h" })).status).toBe(400);
    } finally {
      await open.close();
    }
  });
});
