import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestServer, type TestServer } from "../../helpers/server.ts";
import { registerUser, type TestUser } from "../../helpers/factories.ts";
import { Client } from "../../helpers/client.ts";
import { apiKey, eventually, get, publish, rawGet, writeManifest, writePage } from "./support.ts";

let server: TestServer;
let owner: TestUser;
let missingBody: string;

beforeAll(async () => {
  server = await startTestServer();
  owner = await registerUser(server.url);
  await publish(owner);
  await writePage(owner, "index.md", { title: "Home", body: "# Home\n\nWelcome to the docs.\n", description: "The start" });
  await writePage(owner, "guides/intro.md", { title: "Intro", body: "# Intro\n\n## Install\n\nRun it.\n\n## Configure\n\nSet it. See [[guides/draft]] and [home](../index.md).\n" });
  await writePage(owner, "guides/draft.md", { title: "Secret draft", body: "unreleased zanzibar plans\n", publish: false });
  missingBody = (await get(server, `/p/${owner.workspaceSlug}/no-such-page`)).text;
}, 30_000);
afterAll(() => server?.close());

const site = (path = "") => `/p/${owner.workspaceSlug}${path}`;

describe("pages and the published switch", () => {
  test("the root serves index.md; a page serves its HTML with title, description, canonical and OG tags", async () => {
    const home = await get(server, site("/"));
    expect(home.status).toBe(200);
    expect(home.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(home.text).toContain("Welcome to the docs.");
    const intro = await get(server, site("/guides/intro"));
    expect(intro.status).toBe(200);
    expect(intro.text).toContain(`<title>Intro · `);
    expect(intro.text).toContain(`<link rel="canonical" href="${server.config.baseUrl}/p/${owner.workspaceSlug}/guides/intro">`);
    expect(intro.text).toContain(`<meta property="og:title" content="Intro">`);
    expect(intro.text).toContain(`<meta name="twitter:card" content="summary">`);
    // The table of contents, the current page marked in the navigation, previous/next.
    expect(intro.text).toMatch(/class="page-toc"[\s\S]*href="#install"/);
    expect(intro.text).toMatch(/aria-current="page">Intro</);
    expect(intro.text).toContain(`rel="prev"`);
    expect(intro.text).toContain("Last updated");
    // A link to an unpublished page is visibly broken, never a link that reveals it.
    expect(intro.text).not.toContain("guides/draft\"");
  });

  test("an unpublished page, a missing page and a hidden file answer the same 404", async () => {
    for (const path of ["/guides/draft", "/guides/draft.md", "/nothing", "/.quire/publish.yaml", "/.git/config"]) {
      const r = await get(server, site(path));
      expect(r.status).toBe(404);
      expect(r.text).toBe(missingBody);
    }
  });

  test("an unpublished workspace answers 404 on every site URL; publishing turns it on", async () => {
    const other = await registerUser(server.url);
    await writePage(other, "page.md", { title: "P", body: "hello\n" });
    for (const path of ["/", "/page", "/page.md", "/sitemap.xml", "/llms.txt", "/search?q=hello", "/_quire/site.css"]) {
      const r = await get(server, `/p/${other.workspaceSlug}${path}`);
      expect(r.status).toBe(404);
      expect(r.text).toBe(missingBody);
    }
    await publish(other);
    expect((await get(server, `/p/${other.workspaceSlug}/page`)).status).toBe(200);
    await other.client.put(`/api/v1/workspaces/${other.workspaceId}/admin/settings`, { published: false });
    expect((await get(server, `/p/${other.workspaceSlug}/page`)).status).toBe(404);
  });

  test("the Markdown twin: .md and Accept: text/markdown answer the page without its frontmatter", async () => {
    const raw = await get(server, site("/guides/intro.md"));
    expect(raw.status).toBe(200);
    expect(raw.headers.get("content-type")).toBe("text/markdown; charset=utf-8");
    expect(raw.text.startsWith("# Intro")).toBe(true);
    expect(raw.text).not.toContain("publish:");
    const negotiated = await get(server, site("/guides/intro"), { accept: "text/markdown" });
    expect(negotiated.headers.get("content-type")).toBe("text/markdown; charset=utf-8");
    expect(negotiated.text).toBe(raw.text);
  });
});

describe("headers", () => {
  test("public cache, a strong ETag of the bytes, 304 on If-None-Match, the same bytes and policy for every reader", async () => {
    const a = await get(server, site("/guides/intro"));
    const b = await get(server, site("/guides/intro"), { "user-agent": "Another/1.0", "accept-language": "fr" });
    expect(a.headers.get("cache-control")).toBe("public, max-age=300");
    expect(a.headers.get("vary")).toBe("Accept, Cookie, Authorization");
    expect(a.headers.get("x-content-type-options")).toBe("nosniff");
    const etag = a.headers.get("etag")!;
    expect(etag).toMatch(/^"[0-9a-f]{32}"$/);
    expect(b.headers.get("etag")).toBe(etag);
    // One immutable response per page version: no per-response nonce in the bytes or the policy.
    expect(b.text).toBe(a.text);
    expect(new Bun.CryptoHasher("sha256").update(a.text).digest("hex").slice(0, 32)).toBe(etag.slice(1, -1));
    const csp = a.headers.get("content-security-policy")!;
    expect(b.headers.get("content-security-policy")).toBe(csp);
    expect(csp).not.toContain("nonce-");
    expect(csp).not.toMatch(/script-src[^;]*unsafe-inline/);
    expect(csp).toContain("style-src-attr 'unsafe-inline'");
    expect(csp).toMatch(/style-src 'self';/);
    // Every inline script the browser runs is allowed by its hash; the others are the site's own files or JSON data.
    const hashes = [...csp.matchAll(/'sha256-([^']+)'/g)].map((m) => m[1]);
    const scripts = [...a.text.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)];
    expect(scripts.length).toBeGreaterThan(0);
    for (const [, attrs, text] of scripts) {
      expect(attrs).not.toContain("nonce");
      if (/\bsrc="/.test(attrs!)) expect(attrs).toMatch(/src="\/p\/[^"]+\/_quire\/[^"]+\?v=/);
      else if (/type="application\/json"/.test(attrs!)) continue;
      else expect(hashes).toContain(new Bun.CryptoHasher("sha256").update(text!).digest("base64"));
    }
    const cached = await get(server, site("/guides/intro"), { "if-none-match": etag });
    expect(cached.status).toBe(304);
    expect(cached.text).toBe("");
    expect(cached.headers.get("etag")).toBe(etag);
    // The policy of a version never changes, so a 304 may carry it: it is the same one.
    expect(cached.headers.get("content-security-policy")).toBe(csp);
  });

  test("a request with a cookie or an Authorization header is marked private, no-store, even when its page is the public one", async () => {
    const anon = await get(server, site("/guides/intro"));
    const cookie = await get(server, site("/guides/intro"), { cookie: "quire_consent=granted" });
    expect(cookie.status).toBe(200);
    expect(cookie.headers.get("cache-control")).toBe("private, no-store");
    expect(cookie.text).toBe(anon.text);
    const bearer = await get(server, site("/guides/intro"), { authorization: "Bearer not-a-key" });
    expect(bearer.headers.get("cache-control")).not.toContain("public");
  });

  test("an edit changes the ETag", async () => {
    const before = (await get(server, site("/guides/intro"))).headers.get("etag");
    const page = await owner.client.get(`/api/v1/content/${owner.workspaceSlug}/guides/intro.md`);
    await owner.client.put(`/api/v1/content/${owner.workspaceSlug}/guides/intro.md`, { body: page.body.content.replace("Run it.", "Run it twice."), lastKnownHash: page.body.content_hash });
    const after = await get(server, site("/guides/intro"));
    expect(after.text).toContain("Run it twice.");
    expect(after.headers.get("etag")).not.toBe(before);
  });
});

describe("visibility", () => {
  let priv: TestUser;
  beforeAll(async () => {
    priv = await registerUser(server.url);
    await publish(priv, { visibility: "authenticated" });
    await writePage(priv, "secret.md", { title: "Members only", body: "internal quasar notes\n" });
  });

  test("anonymous readers are sent to sign in and back; feeds stay closed", async () => {
    const r = await get(server, `/p/${priv.workspaceSlug}/secret`);
    expect(r.status).toBe(302);
    expect(r.headers.get("location")).toBe(`/login?next=${encodeURIComponent(`/p/${priv.workspaceSlug}/secret`)}`);
    for (const path of ["/sitemap.xml", "/rss.xml", "/llms.txt", "/search?q=quasar"]) {
      expect((await get(server, `/p/${priv.workspaceSlug}${path}`)).status).toBe(302);
    }
  });

  test("a member's API key reads it, never stored by a shared cache; a non-member's key gets the missing page's 404", async () => {
    const key = await apiKey(priv);
    const r = await get(server, `/p/${priv.workspaceSlug}/secret`, { authorization: `Bearer ${key}` });
    expect(r.status).toBe(200);
    expect(r.headers.get("cache-control")).toBe("private, no-store");
    const search = await get(server, `/p/${priv.workspaceSlug}/search?q=quasar`, { authorization: `Bearer ${key}` });
    expect(JSON.parse(search.text).items.map((i: { title: string }) => i.title)).toEqual(["Members only"]);
    const stranger = await registerUser(server.url);
    const strangerKey = await apiKey(stranger);
    for (const path of ["/secret", "/", "/sitemap.xml"]) {
      const denied = await get(server, `/p/${priv.workspaceSlug}${path}`, { authorization: `Bearer ${strangerKey}` });
      expect(denied.status).toBe(404);
      expect(denied.text).toBe(missingBody);
    }
  });

  test("the app's site cookie opens the site for a signed-in member, and closes with the session", async () => {
    const c = new Client(server.url).withToken(priv.accessToken);
    const set = await c.post("/api/v1/site-session");
    expect(set.status).toBe(204);
    const cookie = set.headers.get("set-cookie")!;
    expect(cookie).toMatch(/^quire_site=[^;]+; Path=\/p\/; HttpOnly; SameSite=Lax/);
    const value = cookie.split(";")[0]!;
    expect((await get(server, `/p/${priv.workspaceSlug}/secret`, { cookie: value })).status).toBe(200);
    // A forged cookie is nobody.
    expect((await get(server, `/p/${priv.workspaceSlug}/secret`, { cookie: value.replace(/.$/, (ch) => (ch === "a" ? "b" : "a")) })).status).toBe(302);
    // Signing out revokes the session: the cookie stops working at once.
    await c.post("/api/auth/logout");
    expect((await get(server, `/p/${priv.workspaceSlug}/secret`, { cookie: value })).status).toBe(302);
  });

  test("robots.txt of a public site names its sitemap", async () => {
    const r = await get(server, site("/robots.txt"));
    expect(r.text).toContain(`Sitemap: ${server.config.baseUrl}/p/${owner.workspaceSlug}/sitemap.xml`);
  });
});

describe("site search", () => {
  test("finds published pages only, with the site's URLs", async () => {
    const r = await get(server, site("/search?q=zanzibar"));
    expect(r.status).toBe(200);
    expect(JSON.parse(r.text)).toEqual({ items: [] });
    const hits = JSON.parse((await get(server, site("/search?q=configure"))).text).items;
    expect(hits[0]).toMatchObject({ path: "guides/intro.md", url: `/p/${owner.workspaceSlug}/guides/intro`, title: "Intro" });
    expect((await get(server, site(`/search?q=${"x".repeat(300)}`))).status).toBe(400);
    // Search syntax from a reader is text, never an error.
    for (const q of [`"unbalanced`, "AND OR NOT", "* NEAR(", "title:secret", "-", "😀 zanzibar"]) {
      const r = await get(server, site(`/search?q=${encodeURIComponent(q)}`));
      expect(r.status).toBe(200);
      expect(JSON.parse(r.text).items.every((i: { path: string }) => i.path !== "guides/draft.md")).toBe(true);
    }
  });

  test("a forged Host header changes no link: canonical URLs come from BASE_URL", async () => {
    const r = await rawGet(server, site("/guides/intro"), { host: "evil.example" });
    expect(r.status).toBe(200);
    expect(r.body).not.toContain("evil.example");
    expect(r.body).toContain(`href="${server.config.baseUrl}/p/${owner.workspaceSlug}/guides/intro"`);
  });
});

describe("paths with tricks", () => {
  test("traversal, encoded slashes, dot segments, NUL and double encoding never leave the site", async () => {
    const tricks = [
      "/..%2f..%2fapi%2fhealth",
      "/%2e%2e/%2e%2e/etc/passwd",
      "/guides%2fintro",
      "/guides%5cintro",
      "/%252e%252e/secret",
      "/guides/intro%00.md",
      "/%2equire/nav.yaml",
      "/guides/..%2f..%2f..%2fquire.db",
      "/%ff%fe",
      "/assets/..%2f..%2fquire.db",
      "/_quire/..%2f..%2fpackage.json",
    ];
    tricks.push("/../../api/health", "/guides/../../../etc/passwd", "//guides/intro");
    for (const t of tricks) {
      const r = await rawGet(server, site(t));
      // Dot segments (also %2e%2e) are resolved by the server's URL parser before routing, so a
      // few of these land outside /p/ (the app's shell answers there); none reaches a file or the site.
      if (/root:x:0|"name": "quire"|SQLite format|class="site-header"|zanzibar/.test(r.body)) throw new Error(`${t}: ${r.status} ${r.body.slice(0, 300)}`);
      expect(r.body).not.toMatch(/root:x:0|"name": "quire"|SQLite format|class="site-header"|zanzibar/);
      if (r.status === 404) expect(r.body).toBe(missingBody);
    }
  });

  test("a slug with tricks finds no site", async () => {
    for (const slug of [`${owner.workspaceSlug}%2f`, "UPPER", "a%00b", `${owner.workspaceSlug}%2f..`, `%20${owner.workspaceSlug}`]) {
      const r = await rawGet(server, `/p/${slug}/`);
      if (r.status !== 404) throw new Error(`${slug} answered ${r.status}`);
    }
  });
});

describe("manifests", () => {
  test("publish.yaml wins over frontmatter; a malformed one is logged and ignored", async () => {
    writeManifest(server, owner, "publish.yaml", "pages:\n  guides/draft.md: true\n  guides/intro.md: false\n");
    await eventually(async () => {
      expect((await get(server, site("/guides/draft"))).status).toBe(200);
      expect((await get(server, site("/guides/intro"))).status).toBe(404);
    });
    writeManifest(server, owner, "publish.yaml", "pages: [unclosed\n  : :\n");
    await eventually(async () => {
      expect((await get(server, site("/guides/intro"))).status).toBe(200);
      expect((await get(server, site("/guides/draft"))).status).toBe(404);
    });
    expect(server.logs.some((l) => l.includes("site manifest ignored") && l.includes("publish.yaml"))).toBe(true);
    const status = await owner.client.get(`/api/v1/workspaces/${owner.workspaceId}/site`);
    expect(status.body.problems.join("\n")).toContain(".quire/publish.yaml: not valid YAML");
    writeManifest(server, owner, "publish.yaml", "");
  });

  test("nav.yaml orders the navigation; a malformed one falls back to the page tree", async () => {
    writeManifest(server, owner, "nav.yaml", "- heading: Start here\n- file: guides/intro.md\n  title: Introduction\n- link: Status\n  url: https://status.example.com\n- file: index.md\n");
    await eventually(async () => {
      const r = await get(server, site("/guides/intro"));
      const nav = /<nav id="sidebar"[\s\S]*?<\/nav>/.exec(r.text)![0];
      expect(nav).toContain("Start here");
      expect(nav.indexOf("Start here")).toBeLessThan(nav.indexOf("Introduction"));
      expect(nav).toContain(`href="https://status.example.com"`);
    });
    writeManifest(server, owner, "nav.yaml", "- section: Broken\n  children: 42\n");
    await eventually(async () => {
      const fallback = await get(server, site("/guides/intro"));
      expect(fallback.status).toBe(200);
      expect(fallback.text).toMatch(/aria-current="page">Intro</);
    });
    writeManifest(server, owner, "nav.yaml", "");
  });

  test("redirects.yaml answers 301; a loop and a malformed file answer 404 and keep the site up", async () => {
    writeManifest(server, owner, "redirects.yaml", "redirects:\n  old-intro: guides/intro\n  loop-a: loop-b\n  loop-b: loop-a\n  away: https://example.com/elsewhere\n");
    await eventually(async () => {
      const moved = await get(server, site("/old-intro"));
      expect(moved.status).toBe(301);
      expect(moved.headers.get("location")).toBe(`/p/${owner.workspaceSlug}/guides/intro`);
    });
    expect((await get(server, site("/away"))).headers.get("location")).toBe("https://example.com/elsewhere");
    const loop = await get(server, site("/loop-a"));
    expect(loop.status).toBe(404);
    writeManifest(server, owner, "redirects.yaml", "- 1\n- [2\n");
    await eventually(async () => expect((await get(server, site("/old-intro"))).status).toBe(404));
    expect((await get(server, site("/guides/intro"))).status).toBe(200);
    writeManifest(server, owner, "redirects.yaml", "");
  });

  test("a page move leaves a 301 behind", async () => {
    await writePage(owner, "moving.md", { title: "Moving", body: "on the move\n" });
    const r = await owner.client.post(`/api/v1/content/${owner.workspaceSlug}/move`, { path: "moving.md", new_path: "guides/moved.md" });
    expect(r.status).toBe(200);
    const old = await get(server, site("/moving"));
    expect(old.status).toBe(301);
    expect(old.headers.get("location")).toBe(`/p/${owner.workspaceSlug}/guides/moved`);
  });
});

describe("uploads", () => {
  test("an upload a published page of a public site references is public; others are not", async () => {
    const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3, 4]);
    const upload = async () => {
      const form = new FormData();
      form.append("file", new File([png], "pic.png", { type: "image/png" }));
      const r = await owner.client.request("POST", `/api/v1/content/${owner.workspaceSlug}/uploads`, { body: form });
      expect(r.status).toBe(201);
      return r.body as { filename: string; url: string };
    };
    const shown = await upload();
    const hidden = await upload();
    await writePage(owner, "gallery.md", { title: "Gallery", body: `![a picture](${shown.url})\n` });
    await writePage(owner, "private-gallery.md", { title: "Private", body: `![x](${hidden.url})\n`, publish: false });
    expect((await get(server, shown.url)).status).toBe(200);
    expect((await get(server, site(`/assets/${shown.filename}`))).status).toBe(200);
    expect((await get(server, hidden.url)).status).toBe(401);
    expect((await get(server, site(`/assets/${hidden.filename}`))).status).toBe(404);
    const gallery = await get(server, site("/gallery"));
    expect(gallery.text).toContain(`/p/${owner.workspaceSlug}/assets/${shown.filename}`);
  });
});

describe("rate limit", () => {
  test("600 requests per minute per IP on /p/", async () => {
    const ip = "10.250.1.1";
    let last = 0;
    for (let i = 0; i < 601; i++) last = (await get(server, site("/robots.txt"), { "x-forwarded-for": ip })).status;
    expect(last).toBe(429);
  }, 30_000);
});
