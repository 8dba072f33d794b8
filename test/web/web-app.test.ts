import { afterAll, beforeAll, expect, test } from "bun:test";
import { gunzipSync } from "bun";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { Client } from "../helpers/client.ts";

let server: TestServer;
let signupOff: TestServer;
beforeAll(async () => {
  [server, signupOff] = await Promise.all([startTestServer(), startTestServer({ QUIRE_DISABLE_SIGNUP: "true" })]);
});
afterAll(() => Promise.all([server.close(), signupOff.close()]));

function scriptsOf(html: string) {
  return [...html.matchAll(/<script([^>]*)>([\s\S]*?)<\/script>/g)].map((m) => ({ attrs: m[1]!, body: m[2]! }));
}

test("the app shell is served at / and at deep links, with a nonce CSP and no inline script", async () => {
  const c = new Client(server.url);
  for (const path of ["/", "/login", "/w/some-docs/p/guide/intro.md", "/settings/profile?tab=sessions"]) {
    const r = await c.get(path);
    expect(r.status).toBe(200);
    expect(r.headers.get("content-type")).toContain("text/html");
    expect(r.headers.get("x-content-type-options")).toBe("nosniff");
    expect(r.headers.get("cache-control")).toBe("no-store");
    const csp = r.headers.get("content-security-policy")!;
    const nonce = /'nonce-([^']+)'/.exec(csp)![1]!;
    expect(csp).toContain("default-src 'self'");
    expect(csp).toContain("object-src 'none'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toContain("unsafe-inline");
    expect(csp).not.toContain("unsafe-eval");
    for (const s of scriptsOf(r.text)) {
      // Executable scripts are external and carry the nonce; the only inline one is a JSON data block.
      if (s.attrs.includes('type="application/json"')) continue;
      expect(s.body).toBe("");
      expect(s.attrs).toContain(`nonce="${nonce}"`);
      expect(s.attrs).toMatch(/src="\/_app\/main-[a-z0-9]+\.js"/);
    }
  }
  const a = await c.get("/");
  const b = await c.get("/");
  expect(/'nonce-([^']+)'/.exec(a.headers.get("content-security-policy")!)![1]).not.toBe(
    /'nonce-([^']+)'/.exec(b.headers.get("content-security-policy")!)![1],
  );
});

test("hashed assets are cached for a year, typed, and gzipped when asked", async () => {
  const html = (await new Client(server.url).get("/")).text;
  const assets = [...html.matchAll(/(?:src|href)="(\/_app\/[^"]+)"/g)].map((m) => m[1]!);
  expect(assets.some((a) => a.endsWith(".js"))).toBe(true);
  expect(assets.some((a) => a.endsWith(".css"))).toBe(true);
  for (const asset of assets) {
    const plain = await fetch(server.url + asset, { headers: { "accept-encoding": "identity" } });
    expect(plain.status).toBe(200);
    expect(plain.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    expect(plain.headers.get("x-content-type-options")).toBe("nosniff");
    expect(plain.headers.get("content-type")).toMatch(asset.endsWith(".js") ? /^text\/javascript/ : /^text\/css/);
    const body = new Uint8Array(await plain.arrayBuffer());
    if (asset.endsWith(".js")) {
      const zipped = await fetch(server.url + asset, { headers: { "accept-encoding": "gzip" }, decompress: false } as RequestInit);
      expect(zipped.headers.get("content-encoding")).toBe("gzip");
      expect(gunzipSync(new Uint8Array(await zipped.arrayBuffer()))).toEqual(body);
    }
  }
  const missing = await new Client(server.url).get("/_app/main-doesnotexist.js");
  expect(missing.status).toBe(404);
  expect(missing.body.error).toBe("NOT_FOUND");
});

test("a page's address preloads the page screen's scripts; other addresses do not, and every preload is served", async () => {
  const c = new Client(server.url);
  const preloadsOf = (html: string) =>
    [...html.matchAll(/<link rel="modulepreload"([^>]*)>/g)].map((m) => ({ href: /href="([^"]+)"/.exec(m[1]!)![1]!, attrs: m[1]! }));
  const page = await c.get("/w/some-docs/p/guide/intro.md");
  const nonce = /'nonce-([^']+)'/.exec(page.headers.get("content-security-policy")!)![1]!;
  const pagePreloads = preloadsOf(page.text);
  // The rich editor's chunk and what it imports: at least the screen's own chunk, never the entry.
  expect(pagePreloads.length).toBeGreaterThan(0);
  const entry = /<script type="module"[^>]*src="([^"]+)"/.exec(page.text)![1]!;
  for (const p of pagePreloads) {
    expect(p.href).toMatch(/^\/_app\/chunk-[a-z0-9]+\.js$/);
    expect(p.href).not.toBe(entry);
    expect(p.attrs).toContain(`nonce="${nonce}"`);
    const r = await fetch(server.url + p.href);
    expect(r.status).toBe(200);
    expect(r.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
  }
  // The rich editor is among them (ProseMirror lives in the page screen's chunk).
  const texts = await Promise.all(pagePreloads.map(async (p) => (await fetch(server.url + p.href)).text()));
  expect(texts.some((t) => t.includes("ProseMirror"))).toBe(true);
  // Screens that open no page do not download the editor.
  for (const path of ["/", "/login", "/w/some-docs", "/w/some-docs/settings"]) {
    const hrefs = preloadsOf((await c.get(path)).text).map((p) => p.href);
    for (const p of pagePreloads) expect(hrefs).not.toContain(p.href);
  }
});

test("API, WebSocket and site paths never fall back to the app", async () => {
  const c = new Client(server.url);
  for (const path of ["/api/nope", "/api/v9/whatever/deep", "/api", "/ws"]) {
    const r = await c.get(path);
    expect(r.headers.get("content-type") ?? "").not.toContain("text/html");
    expect(r.text).not.toContain('id="root"');
  }
  // A site that does not exist is the published site's own 404 page for readers, never the app.
  const site = await c.get("/p/unknown-site/page");
  expect(site.status).toBe(404);
  expect(site.text).not.toContain('id="root"');
  const r = await c.get("/api/nope");
  expect(r.status).toBe(404);
  expect(r.body).toMatchObject({ error: "NOT_FOUND" });
  expect(typeof r.body.request_id).toBe("string");
  // Other methods on app paths are not swallowed by the fallback either.
  expect((await c.post("/login", {})).status).toBe(404);
  expect((await c.get("/api/health")).body.status).toBe("ok");
});

test("auth config tells the sign-in screens whether sign-up is open, also inside the shell", async () => {
  const open = await new Client(server.url).get("/api/auth/config");
  expect(open.status).toBe(200);
  expect(open.body).toEqual({ signup_enabled: true, email_enabled: false, providers: [], passkeys: false, ai_assist: false });
  const closed = await new Client(signupOff.url).get("/api/auth/config");
  expect(closed.body.signup_enabled).toBe(false);
  const html = (await new Client(signupOff.url).get("/login")).text;
  const boot = JSON.parse(/<script type="application\/json" id="quire-boot">([^<]*)<\/script>/.exec(html)![1]!);
  expect(boot.signup_enabled).toBe(false);
});
