import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, writeFileSync } from "node:fs";
import { Database } from "bun:sqlite";
import { startTestServer, tempDir, type TestServer } from "../helpers/server.ts";
import { Client } from "../helpers/client.ts";
import { registerUser, type TestUser } from "../helpers/factories.ts";
import { addMember, snapshot, starterWorkspace, writeLedgerPage } from "../collab/support.ts";

let server: TestServer;
let owner: TestUser;
let ws: { id: string; slug: string };
const publish = (page: ReturnType<typeof snapshot>, workspaceId = ws.id) =>
  server.services.bus.publishChange({ kind: "upsert", workspace_id: workspaceId, page });
const searchFor = (client: Client, q: string, extra = "", workspaceId = ws.id) =>
  client.get(`/api/v1/workspaces/${workspaceId}/search?q=${encodeURIComponent(q)}${extra}`);

beforeAll(async () => {
  server = await startTestServer();
  owner = await registerUser(server.url);
  ws = starterWorkspace(server, owner.id);
});
afterAll(() => server.close());

describe("search results", () => {
  test("a page published by the ledger is found at once, with its fields, a score and a marked snippet", async () => {
    const page = snapshot({
      path: "guides/deploy.md",
      title: "Deploying to production",
      description: "Ship it",
      tags: ["ops"],
      body: "Before you begin, read the checklist.\n\nThe **deployment** pipeline builds a single binary and copies it to the host.",
    });
    publish(page);
    const r = await searchFor(owner.client, "deployment pipeline");
    expect(r.status).toBe(200);
    expect(r.body.items.length).toBeGreaterThanOrEqual(1);
    const hit = r.body.items[0];
    expect(hit).toEqual({
      page_id: page.page_id,
      path: "guides/deploy.md",
      title: "Deploying to production",
      description: "Ship it",
      score: expect.any(Number),
      snippet: expect.stringContaining("<mark>deployment</mark> <mark>pipeline</mark>"),
    });
    expect(hit.score).toBeGreaterThan(0);
  });

  test("English stemming and stop words: other forms of a word match, stop words alone match nothing", async () => {
    publish(snapshot({ title: "Configuring webhooks", body: "Each webhook delivery is retried." }));
    const forms = await searchFor(owner.client, "configuration");
    expect(forms.body.items.map((i: any) => i.title)).toContain("Configuring webhooks");
    const retry = await searchFor(owner.client, "retries");
    expect(retry.body.items.map((i: any) => i.title)).toContain("Configuring webhooks");
    const stop = await searchFor(owner.client, "the and of");
    expect(stop.status).toBe(200);
    expect(stop.body.items).toEqual([]);
  });

  test("one-letter slips in words of five letters or more still match; short words must be right", async () => {
    publish(snapshot({ title: "Environment variables", body: "Set the environment before the installation. The API answers in JSON." }));
    for (const typo of ["enviroment", "environmnt", "instalation", "installatin"]) {
      const r = await searchFor(owner.client, typo);
      expect(r.body.items.map((i: any) => i.title)).toContain("Environment variables");
    }
    const short = await searchFor(owner.client, "apx");
    expect(short.body.items.map((i: any) => i.title)).not.toContain("Environment variables");
    const twoSlips = await searchFor(owner.client, "envaronmant");
    expect(twoSlips.body.items.map((i: any) => i.title)).not.toContain("Environment variables");
  });

  test("a match in the title outranks the same word in a body", async () => {
    publish(snapshot({ title: "Zebra crossing", body: "Nothing to see." }));
    publish(snapshot({ title: "Animals", body: "A long page about many animals, one of them the zebra, among lions and giraffes." }));
    const r = await searchFor(owner.client, "zebra");
    expect(r.body.items.map((i: any) => i.title)).toEqual(["Zebra crossing", "Animals"]);
  });

  test("tags and descriptions are searched", async () => {
    publish(snapshot({ title: "Tagged page", tags: ["kubernetes"], description: "Helm charts explained" }));
    expect((await searchFor(owner.client, "kubernetes")).body.items[0].title).toBe("Tagged page");
    expect((await searchFor(owner.client, "helm")).body.items[0].title).toBe("Tagged page");
  });

  test("limit caps the results; default is 20", async () => {
    for (let i = 0; i < 25; i++) publish(snapshot({ title: `Walrus ${i}`, body: "walrus facts" }));
    expect((await searchFor(owner.client, "walrus")).body.items).toHaveLength(20);
    expect((await searchFor(owner.client, "walrus", "&limit=3")).body.items).toHaveLength(3);
    expect((await searchFor(owner.client, "walrus", "&limit=100")).body.items).toHaveLength(25);
  });

  test("remove and reset changes are applied", async () => {
    const a = snapshot({ title: "Ephemeral quokka" });
    publish(a);
    expect((await searchFor(owner.client, "quokka")).body.items).toHaveLength(1);
    server.services.bus.publishChange({ kind: "remove", workspace_id: ws.id, page_id: a.page_id });
    expect((await searchFor(owner.client, "quokka")).body.items).toHaveLength(0);
    publish(snapshot({ title: "Moved quokka", path: "old/place.md" }));
    const kept = snapshot({ title: "Quokka after reset", path: "new/place.md" });
    const other = await registerUser(server.url);
    const ws2 = starterWorkspace(server, other.id);
    server.services.bus.publishChange({ kind: "upsert", workspace_id: ws2.id, page: snapshot({ title: "Quokka elsewhere" }) });
    server.services.bus.publishChange({ kind: "reset", workspace_id: ws2.id, pages: [kept] });
    const r = await searchFor(other.client, "quokka", "", ws2.id);
    expect(r.body.items.map((i: any) => i.title)).toEqual(["Quokka after reset"]);
  });
});

describe("escaping", () => {
  test("markup in titles and bodies comes back escaped in snippets; only <mark> is markup", async () => {
    publish(
      snapshot({
        title: `<img src=x onerror=alert(1)> Mallory`,
        body: `Hello <script>alert("xss")</script> mallory & friends <b onclick="steal()">bold</b> 'quoted'`,
      }),
    );
    const r = await searchFor(owner.client, "mallory");
    expect(r.status).toBe(200);
    const { snippet, title } = r.body.items[0];
    expect(snippet).toContain("&lt;script&gt;alert(&quot;xss&quot;)&lt;/script&gt;");
    expect(snippet).toContain("<mark>mallory</mark> &amp; friends &lt;b onclick=&quot;steal()&quot;&gt;");
    expect(snippet).toContain("&#39;quoted&#39;");
    expect(snippet.replace(/<\/?mark>/g, "")).not.toMatch(/[<>]/);
    // The title is data, returned as stored; the snippet is the only field meant to be HTML.
    expect(title).toBe("<img src=x onerror=alert(1)> Mallory");
    expect(r.headers.get("content-type")).toContain("application/json");
  });

  test("a query holding markup is not reflected as markup", async () => {
    publish(snapshot({ title: "Scripts", body: "Use a script to automate." }));
    const r = await searchFor(owner.client, "<script>");
    expect(r.status).toBe(200);
    for (const item of r.body.items) expect(item.snippet.replace(/<\/?mark>/g, "")).not.toMatch(/[<>]/);
    expect(r.body.items.map((i: any) => i.title)).toContain("Scripts");
  });
});

describe("access and input", () => {
  test("search in another organization's workspace is 404, the same as a workspace that does not exist", async () => {
    const stranger = await registerUser(server.url);
    publish(snapshot({ title: "Secret plans", body: "classified" }));
    const r = await searchFor(stranger.client, "classified");
    expect(r.status).toBe(404);
    expect(r.body.error).toBe("NOT_FOUND");
    expect(r.body.request_id).toBeTruthy();
    const missing = await searchFor(stranger.client, "classified", "", "01ARZ3NDEKTSV4RRFFQ69G5FAV");
    expect(missing.status).toBe(404);
    expect(missing.body.message).toBe(r.body.message);
  });

  test("a workspace's search never returns another workspace's pages", async () => {
    const other = await registerUser(server.url);
    const otherWs = starterWorkspace(server, other.id);
    publish(snapshot({ title: "Platypus here" }));
    publish(snapshot({ title: "Platypus there" }), otherWs.id);
    const mine = await searchFor(owner.client, "platypus");
    expect(mine.body.items.map((i: any) => i.title)).toEqual(["Platypus here"]);
    const theirs = await searchFor(other.client, "platypus", "", otherWs.id);
    expect(theirs.body.items.map((i: any) => i.title)).toEqual(["Platypus there"]);
  });

  test("a viewer of the workspace may search; the slug works too", async () => {
    const viewer = await registerUser(server.url);
    addMember(server, ws.id, viewer.id, "viewer");
    publish(snapshot({ title: "Viewer visible armadillo" }));
    expect((await searchFor(viewer.client, "armadillo")).body.items).toHaveLength(1);
    expect((await searchFor(viewer.client, "armadillo", "", ws.slug)).body.items).toHaveLength(1);
  });

  test("without credentials 401", async () => {
    const r = await new Client(server.url).get(`/api/v1/workspaces/${ws.id}/search?q=x`);
    expect(r.status).toBe(401);
    expect(r.body.error).toBe("UNAUTHORIZED");
  });

  test("q is required; limit must be 1-100", async () => {
    const noQ = await owner.client.get(`/api/v1/workspaces/${ws.id}/search`);
    expect(noQ.status).toBe(400);
    expect(noQ.body.details.field).toBe("q");
    const blank = await searchFor(owner.client, "   ");
    expect(blank.status).toBe(400);
    expect(blank.body.details.field).toBe("q");
    for (const bad of ["0", "101", "abc", "2.5", "-1"]) {
      const r = await searchFor(owner.client, "x", `&limit=${bad}`);
      expect(r.status).toBe(400);
      expect(r.body.details.field).toBe("limit");
    }
  });

  test("the search rate limit headers are present", async () => {
    const r = await searchFor(owner.client, "anything");
    expect(r.headers.get("x-ratelimit-limit")).toBe("60");
  });
});

/** The page ids the index file holds for a workspace, read straight from the file. */
function indexedPageIds(file: string, workspaceId: string): string[] {
  const db = new Database(file, { readonly: true });
  try {
    return db.query<{ page_id: string }, []>(`SELECT page_id FROM "d_${workspaceId}"`).all().map((r) => r.page_id);
  } finally {
    db.close();
  }
}

describe("persistence", () => {
  test("the index is written under DATA_DIR/search, survives a restart without re-reading files, and a corrupt file is rebuilt from the ledger", async () => {
    const dir = tempDir();
    let s = await startTestServer({}, { dataDir: dir, keepDir: true });
    const user = await registerUser(s.url);
    const w = starterWorkspace(s, user.id);
    const page = snapshot({ title: "Persistent narwhal", body: "narwhal tusks" });
    // The ledger's record and file exist too, as they would after a real write.
    writeLedgerPage(s, w.id, page);
    s.services.bus.publishChange({ kind: "upsert", workspace_id: w.id, page });
    const file = s.services.search.indexFile(w.id);
    expect(file).toBe(`${dir}/search/index.db`);
    const deadline = Date.now() + 2000;
    while (!existsSync(file) && Date.now() < deadline) await Bun.sleep(25);
    expect(existsSync(file)).toBe(true);
    await s.close();
    expect(indexedPageIds(file, w.id)).toContain(page.page_id);

    // The file is loaded as it is: no page file is read for the index.
    s = await startTestServer({}, { dataDir: dir, keepDir: true });
    const client = new Client(s.url);
    client.token = (await client.post("/api/auth/login", { email: user.email, password: user.password })).body.access_token;
    const r = await client.get(`/api/v1/workspaces/${w.id}/search?q=tusks`);
    expect(r.body.items.map((i: any) => i.page_id)).toEqual([page.page_id]);
    expect(s.services.search.loadedFrom(w.id)).toBe("file");
    await s.close();

    // A corrupt file: the index is rebuilt from the pages table and the files on disk.
    writeFileSync(file, "{ not a database");
    s = await startTestServer({}, { dataDir: dir });
    const c2 = new Client(s.url);
    c2.token = (await c2.post("/api/auth/login", { email: user.email, password: user.password })).body.access_token;
    const rebuilt = await c2.get(`/api/v1/workspaces/${w.id}/search?q=tusks`);
    expect(rebuilt.body.items.map((i: any) => i.page_id)).toEqual([page.page_id]);
    expect(s.services.search.loadedFrom(w.id)).toBe("ledger");
    await s.close();
  });

  test("rebuild() re-reads the ledger and writes the file at once", async () => {
    const user = await registerUser(server.url);
    const w = starterWorkspace(server, user.id);
    const page = snapshot({ title: "Rebuilt capybara", path: "animals/capybara.md", body: "Capybaras are calm." });
    writeLedgerPage(server, w.id, page);
    const result = server.services.search.rebuild(w.id);
    expect(result.pages).toBeGreaterThanOrEqual(1);
    expect(indexedPageIds(server.services.search.indexFile(w.id), w.id)).toContain(page.page_id);
    const r = await searchFor(user.client, "capybara", "", w.id);
    expect(r.body.items[0]).toMatchObject({ page_id: page.page_id, path: "animals/capybara.md", title: "Rebuilt capybara" });
    expect(r.body.items[0].snippet).toContain("<mark>Capybaras</mark>");
  });
});

describe("abuse", () => {
  test("a query of hundreds of misspelt words is cut to its first words and answers quickly", async () => {
    publish(snapshot({ title: "Cheetah sprint", body: "fast" }));
    const junk = Array.from({ length: 120 }, (_, i) => `qzxv${String.fromCharCode(97 + (i % 26))}w`).join(" ");
    const started = performance.now();
    const r = await searchFor(owner.client, `cheetah ${junk}`.slice(0, 500));
    expect(r.status).toBe(200);
    expect(r.body.items.map((i: any) => i.title)).toContain("Cheetah sprint");
    expect(performance.now() - started).toBeLessThan(1000);
  });
});
