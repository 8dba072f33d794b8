/**
 * The published site behind a real shared cache: Debian's nginx as a caching reverse proxy
 * (`proxy_cache`) on loopback, configured only with what any operator writes — nothing that
 * knows Quire's cookies or pages. What may be stored is decided by the site's own headers
 * (docs/decisions/site-caching.md): public pages are stored and revalidated (304) after a publish,
 * a new publish shows within SITE_CACHE_MAX_AGE, members' pages and any request with a cookie or
 * Authorization are never stored — also by a cache that ignores `Vary` — and theme files are
 * stored for good under versioned URLs (nothing to purge).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { freePort, startTestServer, tempDir, type TestServer } from "../../helpers/server.ts";
import { registerUser, type TestUser } from "../../helpers/factories.ts";
import { apiKey, publish, writePage } from "./support.ts";

/** How long (seconds) a public page may be reused by a cache: short, so expiry happens within the test. */
const MAX_AGE = 2;
/** Long enough for a stored copy to go stale: nginx counts freshness in whole seconds (a copy is fresh while the clock's second ≤ stored + max-age). */
const STALE_MS = (MAX_AGE + 1) * 1000 + 200;
const NGINX = ["/usr/sbin/nginx", "/usr/bin/nginx"].find((p) => existsSync(p));

let server: TestServer;
let owner: TestUser;
let closed: TestUser;
let nginx: ReturnType<typeof Bun.spawn> | undefined;
let folder: string;
/** The proxy that honours Vary, and one that ignores it (a cache that strips Vary). */
let honours: string;
let ignores: string;

async function siteCookie(user: TestUser): Promise<string> {
  const r = await user.client.post("/api/v1/site-session");
  expect(r.status).toBe(204);
  return r.headers.getSetCookie().find((c) => c.startsWith("quire_site="))!.split(";")[0]!;
}

interface Through {
  status: number;
  cache: string | null;
  headers: Headers;
  text: string;
}

/** A GET through a proxy; `cache` is nginx's $upstream_cache_status (MISS, HIT, EXPIRED, REVALIDATED, or null when the cache was not consulted). */
async function through(proxy: string, path: string, headers: Record<string, string> = {}): Promise<Through> {
  const res = await fetch(proxy + path, { headers, redirect: "manual" });
  return { status: res.status, cache: res.headers.get("x-cache"), headers: res.headers, text: await res.text() };
}

function nginxConf(quire: string, ports: [number, number]): string {
  const server = (port: number, zone: string, extra: string) => `
  server {
    listen 127.0.0.1:${port};
    location / {
      proxy_pass ${quire};
      proxy_cache ${zone};
      proxy_cache_revalidate on;
      proxy_http_version 1.1;
      ${extra}
      add_header X-Cache $upstream_cache_status always;
    }
  }`;
  return `worker_processes 1;
daemon off;
user root;
pid ${folder}/nginx.pid;
error_log ${folder}/error.log warn;
events { worker_connections 64; }
http {
  access_log off;
  client_body_temp_path ${folder}/body;
  proxy_temp_path ${folder}/proxy;
  fastcgi_temp_path ${folder}/fcgi;
  uwsgi_temp_path ${folder}/uwsgi;
  scgi_temp_path ${folder}/scgi;
  proxy_cache_path ${folder}/cache-a levels=1 keys_zone=honours:1m;
  proxy_cache_path ${folder}/cache-b levels=1 keys_zone=ignores:1m;
  ${server(ports[0], "honours", "")}
  ${server(ports[1], "ignores", "proxy_ignore_headers Vary;")}
}
`;
}

beforeAll(async () => {
  if (!NGINX) throw new Error("nginx is not installed: apt-get install nginx (.ci/run installs it)");
  server = await startTestServer({ SITE_CACHE_MAX_AGE: String(MAX_AGE) });
  owner = await registerUser(server.url);
  await publish(owner);
  await writePage(owner, "guide.md", { title: "Guide", body: "# Guide\n\nThe first edition.\n" });
  await writePage(owner, "other.md", { title: "Other", body: "# Other\n\nUnchanged text.\n" });
  closed = await registerUser(server.url);
  await publish(closed, { visibility: "authenticated" });
  await writePage(closed, "inside.md", { title: "Inside", body: "# Inside\n\nMembers' nebula notes.\n" });

  folder = tempDir("quire-cache-proxy-");
  chmodSync(folder, 0o755);
  for (const dir of ["cache-a", "cache-b"]) mkdirSync(join(folder, dir));
  const ports: [number, number] = [await freePort(), await freePort()];
  const conf = join(folder, "nginx.conf");
  writeFileSync(conf, nginxConf(server.url, ports));
  nginx = Bun.spawn([NGINX, "-c", conf, "-p", folder], { stdout: "ignore", stderr: "pipe" });
  honours = `http://127.0.0.1:${ports[0]}`;
  ignores = `http://127.0.0.1:${ports[1]}`;
  for (const proxy of [honours, ignores]) {
    for (let i = 0; ; i++) {
      try {
        await fetch(`${proxy}/api/health`);
        break;
      } catch (error) {
        if (i > 100) throw new Error(`nginx did not start: ${readFileSync(join(folder, "error.log"), "utf8")} ${String(error)}`);
        await Bun.sleep(50);
      }
    }
  }
}, 30_000);

afterAll(async () => {
  nginx?.kill("SIGTERM");
  await nginx?.exited;
  await server?.close();
});

describe("public pages", () => {
  test("are stored by the cache: the second reader is answered by it, with the same bytes, ETag and policy", async () => {
    const path = `/p/${owner.workspaceSlug}/guide`;
    const first = await through(honours, path);
    expect(first.status).toBe(200);
    expect(first.cache).toBe("MISS");
    expect(first.headers.get("cache-control")).toBe(`public, max-age=${MAX_AGE}`);
    const second = await through(honours, path);
    expect(second.cache).toBe("HIT");
    expect(second.text).toBe(first.text);
    expect(second.headers.get("etag")).toBe(first.headers.get("etag"));
    expect(second.headers.get("content-security-policy")).toBe(first.headers.get("content-security-policy"));
    // A browser revalidating its own copy is answered 304 by the cache itself.
    const revalidated = await through(honours, path, { "if-none-match": first.headers.get("etag")! });
    expect(revalidated.status).toBe(304);
    expect(revalidated.cache).toBe("HIT");
  });

  test("after a publish: the changed page shows within max-age, an unchanged one is revalidated with a 304", async () => {
    const guide = `/p/${owner.workspaceSlug}/guide`;
    const other = `/p/${owner.workspaceSlug}/other`;
    const before = await through(honours, guide);
    expect(before.text).toContain("The first edition.");
    const otherBefore = await through(honours, other);
    await Bun.sleep(STALE_MS); // both stored copies are now stale
    expect((await through(honours, other)).cache).toBe("REVALIDATED");

    const page = await owner.client.get(`/api/v1/content/${owner.workspaceSlug}/guide.md`);
    const put = await owner.client.put(`/api/v1/content/${owner.workspaceSlug}/guide.md`, {
      body: page.body.content.replace("The first edition.", "The second edition."),
      lastKnownHash: page.body.content_hash,
    });
    expect(put.status).toBe(200);
    // Still within max-age of the copy stored just now by the revalidation: the cache may answer it.
    const stored = await through(honours, other);
    expect(stored.cache).toBe("HIT");

    // The edited page: its copy is stale, the site's answer to the cache's conditional request is the new version.
    const after = await through(honours, guide);
    expect(after.cache).toBe("EXPIRED");
    expect(after.text).toContain("The second edition.");
    expect(after.headers.get("etag")).not.toBe(before.headers.get("etag"));

    // The page the edit did not change: once stale, the site answers the cache's If-None-Match with a 304.
    await Bun.sleep(STALE_MS);
    const kept = await through(honours, other);
    expect(kept.cache).toBe("REVALIDATED");
    expect(kept.status).toBe(200);
    expect(kept.text).toBe(otherBefore.text);
  });

  test("theme files have versioned URLs and are stored for good: a new build is a new URL, nothing to purge", async () => {
    const page = await through(honours, `/p/${owner.workspaceSlug}/guide`);
    const css = /<link rel="stylesheet" href="([^"]+site\.css\?v=[^"]+)">/.exec(page.text)![1]!;
    const first = await through(honours, css);
    expect(first.status).toBe(200);
    expect(first.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    expect((await through(honours, css)).cache).toBe("HIT");
    // Another version is another URL: the cache never answers it from the old file.
    const other = await through(honours, css.replace(/\?v=.*/, "?v=0000"));
    expect(other.cache).toBe("MISS");
  });
});

describe("what is never stored", () => {
  for (const [name, proxy] of [
    ["a cache honouring Vary", () => honours],
    ["a cache that ignores Vary", () => ignores],
  ] as const) {
    test(`members-only pages, by cookie or API key (${name})`, async () => {
      const path = `/p/${closed.workspaceSlug}/inside`;
      const cookie = await siteCookie(closed);
      const key = await apiKey(closed);
      const asMember: Array<Record<string, string>> = [{ cookie }, { cookie }, { authorization: `Bearer ${key}` }, { authorization: `Bearer ${key}` }];
      for (const headers of asMember) {
        const member = await through(proxy(), path, headers);
        expect(member.status).toBe(200);
        expect(member.text).toContain("Members' nebula notes.");
        expect(member.headers.get("cache-control")).toBe("private, no-store");
        expect(member.cache).toBe("MISS");
      }
      const anonymous = await through(proxy(), path);
      expect(anonymous.status).toBe(302);
      expect(anonymous.text).not.toContain("nebula");
      expect((await through(proxy(), `/p/${closed.workspaceSlug}/sitemap.xml`)).text).not.toContain("inside");
    });

    test(`a member's own page of a public site (an edit link) is never kept for others (${name})`, async () => {
      const path = `/p/${owner.workspaceSlug}/other?reader=${name.length}`;
      const cookie = await siteCookie(owner);
      for (let i = 0; i < 2; i++) {
        const member = await through(proxy(), path, { cookie });
        expect(member.text).toContain("Edit this page");
        expect(member.headers.get("cache-control")).toBe("private, no-store");
        expect(member.cache).toBe("MISS");
      }
      const anonymous = await through(proxy(), path);
      expect(anonymous.cache).toBe("MISS");
      expect(anonymous.text).not.toContain("Edit this page");
    });
  }
});
