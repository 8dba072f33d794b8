/**
 * GET /api/openapi.json documents every /api route the app registers, and is a valid OpenAPI 3.1
 * document. A route added without its entry (beside it, in src/http/routes/) fails here by name. The answers
 * it documents are checked too: real answers of the real server, for every route whose answer has
 * a schema and for the error shape, must validate against the schema the served document gives.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Validator } from "@seriousme/openapi-schema-validator";
// The JSON Schema 2020-12 validator the OpenAPI validator itself is built on (locked through it).
import Ajv2020 from "ajv/dist/2020.js";
import { startTxtDns, type TxtDns } from "../helpers/txt-dns.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { Client, type ApiResponse } from "../helpers/client.ts";
import { registerUser } from "../helpers/factories.ts";
import { createApp } from "../../src/app.ts";
import { OUTPUTS, routeCoverage, routeKey } from "../../src/http/openapi.ts";
import { API_ROUTES } from "../../src/http/routes/openapi.ts";

// A custom domain is proved by a TXT record: a local DNS server answers the records set here.
let dns: TxtDns;
let server: TestServer;
beforeAll(async () => {
  dns = await startTxtDns();
  server = await startTestServer({ CUSTOM_DOMAIN_RESOLVER: dns.resolver });
});
afterAll(async () => {
  await server?.close();
  await dns?.close();
});

describe("the OpenAPI document", () => {
  test("every /api route the app registers is in the route table (the failure names each missing one)", () => {
    const { missing, stale } = routeCoverage(API_ROUTES, createApp(server.services).routes);
    expect(missing, `routes without an OpenAPI entry (the …Docs of their file in src/http/routes/):\n${missing.join("\n")}`).toEqual([]);
    // And nothing documented that no longer exists.
    expect(stale, `entries of API_ROUTES with no route behind them:\n${stale.join("\n")}`).toEqual([]);
  });

  test("a route added without its entry is reported as exactly its method and path", () => {
    const app = createApp(server.services)
      .get("/api/v1/workspaces/:id/new-report", () => ({}))
      .post("/api/v1/things/", () => ({}))
      .get("/p/not-api", () => "");
    expect(routeCoverage(API_ROUTES, app.routes)).toEqual({ missing: ["GET /api/v1/workspaces/:id/new-report", "POST /api/v1/things"], stale: [] });
    expect(routeKey("GET", "/api/v1/api-keys/")).toBe("GET /api/v1/api-keys");
  });

  test("is served publicly, is valid OpenAPI 3.1, and carries each route's input schema", async () => {
    const res = await new Client(server.url).get("/api/openapi.json");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("application/json");
    const doc = res.body;
    expect(doc.openapi).toBe("3.1.0");

    const validator = new Validator();
    const result = await validator.validate(doc);
    expect({ valid: result.valid, errors: result.errors }).toEqual({ valid: true, errors: undefined });

    const operations = Object.values(doc.paths as Record<string, Record<string, unknown>>).reduce((n, ops) => n + Object.keys(ops).length, 0);
    expect(operations).toBe(Object.keys(API_ROUTES).length);

    // Generated from the zod schemas the services validate with: required fields, limits, enums.
    const register = doc.paths["/api/auth/register"].post.requestBody.content["application/json"].schema;
    expect(register.required).toEqual(expect.arrayContaining(["name", "email", "password", "terms_accepted"]));
    const days = doc.paths["/api/v1/workspaces/{id}/analytics/pages"].get.parameters.find((p: { name: string }) => p.name === "days");
    expect(days.schema).toMatchObject({ minimum: 1, maximum: 90, default: 30 });
    const search = doc.paths["/api/v1/workspaces/{id}/search"].get.parameters.find((p: { name: string }) => p.name === "q");
    expect(search.required).toBe(true);
    const page = doc.paths["/api/v1/content/{workspace}/{path}"];
    expect(Object.keys(page).sort()).toEqual(["delete", "get", "patch", "post", "put"]);
    expect(page.post.requestBody.content["application/json"].schema.required).toContain("title");
    const hook = doc.paths["/api/v1/workspaces/{id}/webhooks"].post.requestBody.content["application/json"].schema;
    expect(hook.properties.url.maxLength).toBe(2048);
    expect(doc.paths["/api/v1/billing/plans"].get.summary).toContain("Cloud edition only");
  });
});

describe("the documented answers are the real answers", () => {
  type Doc = { paths: Record<string, Record<string, { responses: Record<string, any> }>>; components: Record<string, unknown> };
  let doc: Doc;
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
  /** "METHOD /api/…" (as in API_ROUTES) → the statuses checked. */
  const checked = new Map<string, Set<number>>();

  beforeAll(async () => {
    doc = (await new Client(server.url).get("/api/openapi.json")).body;
  });

  /** The schema the served document gives for this route and status (OpenAPI path form). */
  function documented(method: string, openApiPath: string, status: number): Record<string, unknown> {
    const answer = doc.paths[openApiPath]?.[method.toLowerCase()]?.responses?.[String(status)];
    const schema = answer?.content?.["application/json"]?.schema;
    expect(schema, `${method} ${openApiPath} documents no JSON answer for ${status}`).toBeDefined();
    return schema;
  }

  function validator(schema: Record<string, unknown>) {
    // References point into the document's components: validate with them beside the schema.
    return ajv.compile({ ...schema, components: doc.components });
  }

  /** Asserts the answer validates against the documented schema for its status, and notes the route. */
  function expectDocumented(route: string, r: ApiResponse): void {
    const [method, path] = route.split(" ") as [string, string];
    const openApiPath = path.replace(/:([A-Za-z_]+)/g, "{$1}").replace(/\*$/, "{path}");
    const validate = validator(documented(method, openApiPath, r.status));
    const valid = validate(r.body);
    expect({ route, status: r.status, errors: valid ? null : validate.errors }).toEqual({ route, status: r.status, errors: null });
    if (!checked.has(route)) checked.set(route, new Set());
    checked.get(route)!.add(r.status);
  }

  test("sign-in, pages, the tree, workspaces, search, comments, activity, members and errors answer exactly as documented", async () => {
    // Registration, sign-in, refresh and who am I.
    const email = `documented.${Date.now()}@example.test`;
    const visitor = new Client(server.url);
    const registered = await visitor.post("/api/auth/register", { name: "Documented", email, password: "a documented password", terms_accepted: true });
    expect(registered.status).toBe(201);
    expectDocumented("POST /api/auth/register", registered);
    const login = await visitor.post("/api/auth/login", { email, password: "a documented password" });
    expect(login.status).toBe(200);
    expectDocumented("POST /api/auth/login", login);
    const refreshed = await new Client(server.url).post("/api/auth/refresh", { refresh_token: login.body.refresh_token });
    expect(refreshed.status).toBe(200);
    expectDocumented("POST /api/auth/refresh", refreshed);
    expectDocumented("GET /api/auth/me", await new Client(server.url).get("/api/auth/me", { token: refreshed.body.access_token }));
    // The sign-in screen's configuration, the providers, the caller's sessions and methods.
    expectDocumented("GET /api/auth/config", await visitor.get("/api/auth/config"));
    expectDocumented("GET /api/auth/providers", await visitor.get("/api/auth/providers"));
    const sessions = await new Client(server.url).get("/api/auth/sessions", { token: refreshed.body.access_token });
    expect(sessions.body.items.filter((s: { current: boolean }) => s.current).length).toBe(1);
    expectDocumented("GET /api/auth/sessions", sessions);
    const methods = await new Client(server.url).get("/api/auth/methods", { token: refreshed.body.access_token });
    expect(methods.body.password).toBe(true);
    expectDocumented("GET /api/auth/methods", methods);
    // A reset link asked for (the same answer for every address).
    expectDocumented("POST /api/auth/forgot-password", await visitor.post("/api/auth/forgot-password", { email }));
    expectDocumented("POST /api/auth/login", await new Client(server.url).post("/api/auth/login", { email, password: "not the password" }));
    // API keys: the secret once, then only the prefix.
    const signedIn = new Client(server.url).withToken(refreshed.body.access_token);
    const key = await signedIn.post("/api/v1/api-keys", { name: "ci", scopes: ["read"] });
    expect(key.status).toBe(201);
    expectDocumented("POST /api/v1/api-keys", key);
    expectDocumented("POST /api/v1/api-keys/:id/rotate", await signedIn.post(`/api/v1/api-keys/${key.body.id}/rotate`));
    const keys = await signedIn.get("/api/v1/api-keys");
    expect(keys.body.items.length).toBe(1);
    expectDocumented("GET /api/v1/api-keys", keys);
    // The password changed: every session of the account is signed out, this one too.
    const changedPassword = await new Client(server.url).post("/api/auth/change-password", { current_password: "a documented password", new_password: "another documented password" }, { token: refreshed.body.access_token });
    expect([changedPassword.status, changedPassword.body.revoked_sessions]).toEqual([200, 2]);
    expectDocumented("POST /api/auth/change-password", changedPassword);

    const owner = await registerUser(server.url);
    const c = owner.client;
    const ws = owner.workspaceSlug;

    // Page object: created, read, updated, moved.
    const created = await c.post(`/api/v1/content/${ws}/guide/intro.md`, { title: "Intro", body: "Hello documented world\n", tags: ["docs"] });
    expect(created.status).toBe(201);
    expectDocumented("POST /api/v1/content/:workspace/*", created);
    const read = await c.get(`/api/v1/content/${ws}/guide/intro.md`);
    expect(read.status).toBe(200);
    expectDocumented("GET /api/v1/content/:workspace/*", read);
    const updated = await c.put(`/api/v1/content/${ws}/guide/intro.md`, { body: "Hello again\n", lastKnownHash: read.body.content_hash, frontmatter: { tags: ["docs", "intro"] } });
    expect(updated.status).toBe(200);
    expectDocumented("PUT /api/v1/content/:workspace/*", updated);
    const putCreated = await c.put(`/api/v1/content/${ws}/guide/by-put.md`, { body: "Made by PUT\n", frontmatter: { title: "By PUT" } });
    expect(putCreated.status).toBe(201);
    expectDocumented("PUT /api/v1/content/:workspace/*", putCreated);
    const moved = await c.request("PATCH", `/api/v1/content/${ws}/guide/intro.md`, { json: { new_path: "guide/start.md" } });
    expect(moved.status).toBe(200);
    expectDocumented("PATCH /api/v1/content/:workspace/*", moved);
    const aliased = await c.post(`/api/v1/content/${ws}/move`, { path: "guide/start.md", new_path: "guide/first.md" });
    expect(aliased.status).toBe(200);
    expectDocumented("POST /api/v1/content/:workspace/move", aliased);

    // A file uploaded (multipart).
    const form = new FormData();
    form.append("file", new File([new TextEncoder().encode("plain notes\n")], "notes.txt", { type: "text/plain" }));
    const uploaded = await c.request("POST", `/api/v1/content/${ws}/uploads`, { body: form });
    expect(uploaded.status).toBe(201);
    expectDocumented("POST /api/v1/content/:workspace/uploads", uploaded);

    // The tree (nested folders), the workspace and its list, a new workspace.
    const tree = await c.get(`/api/v1/content/${ws}/tree`);
    expect(tree.body.items.some((n: { children?: unknown[] }) => (n.children?.length ?? 0) > 0)).toBe(true);
    expectDocumented("GET /api/v1/content/:workspace/tree", tree);
    expectDocumented("GET /api/v1/workspaces", await c.get("/api/v1/workspaces"));
    expectDocumented("GET /api/v1/workspaces/:id", await c.get(`/api/v1/workspaces/${owner.workspaceId}`));
    const second = await c.post("/api/v1/workspaces", { name: "Second", slug: `second-${Date.now()}` });
    expect(second.status).toBe(201);
    expectDocumented("POST /api/v1/workspaces", second);

    // Search, once the new page is indexed.
    let found: ApiResponse | undefined;
    for (let i = 0; i < 50 && !(found?.body.items?.length > 0); i++) {
      if (i > 0) await Bun.sleep(50);
      found = await c.get(`/api/v1/workspaces/${owner.workspaceId}/search?q=again`);
    }
    expect(found!.body.items.length).toBeGreaterThan(0);
    expectDocumented("GET /api/v1/workspaces/:id/search", found!);

    // Comments (a thread resolved and reopened), the activity feed, members.
    const comment = await c.post(`/api/v1/workspaces/${owner.workspaceId}/comments`, { page_path: "guide/first.md", body: "Looks right" });
    expect(comment.status).toBe(201);
    expectDocumented("POST /api/v1/workspaces/:id/comments", comment);
    expectDocumented("GET /api/v1/comments/:id", await c.get(`/api/v1/comments/${comment.body.id}`));
    expectDocumented("PUT /api/v1/comments/:id", await c.put(`/api/v1/comments/${comment.body.id}`, { body: "Looks right to me" }));
    expectDocumented("POST /api/v1/comments/:id/resolve", await c.post(`/api/v1/comments/${comment.body.id}/resolve`));
    expectDocumented("POST /api/v1/comments/:id/unresolve", await c.post(`/api/v1/comments/${comment.body.id}/unresolve`));
    const comments = await c.get(`/api/v1/workspaces/${owner.workspaceId}/comments`);
    expect(comments.body.items.length).toBe(1);
    expectDocumented("GET /api/v1/workspaces/:id/comments", comments);
    const activity = await c.get(`/api/v1/workspaces/${owner.workspaceId}/activity?limit=5`);
    expect(activity.body.items.length).toBe(5);
    expect(typeof activity.body.next_cursor).toBe("string");
    expectDocumented("GET /api/v1/workspaces/:id/activity", activity);
    expectDocumented("GET /api/v1/workspaces/:id/page-activity", await c.get(`/api/v1/workspaces/${owner.workspaceId}/page-activity?page=guide/first.md`));
    expectDocumented("GET /api/v1/workspaces/:id/admin/members", await c.get(`/api/v1/workspaces/${owner.workspaceId}/admin/members`));

    // The error shape of docs/interfaces.md §7, with its codes: 400, 401, 404, 409 (and a page update's conflict fields).
    const invalid = await c.post(`/api/v1/content/${ws}/untitled.md`, { body: "no title" });
    expect(invalid.body.error).toBe("VALIDATION_ERROR");
    expectDocumented("POST /api/v1/content/:workspace/*", invalid);
    const anonymous = await new Client(server.url).get("/api/v1/workspaces");
    expect(anonymous.body.error).toBe("UNAUTHORIZED");
    expectDocumented("GET /api/v1/workspaces", anonymous);
    const missing = await c.get(`/api/v1/content/${ws}/no/such/page.md`);
    expect(missing.body.error).toBe("NOT_FOUND");
    expectDocumented("GET /api/v1/content/:workspace/*", missing);
    const taken = await c.post(`/api/v1/content/${ws}/guide/first.md`, { title: "Again" });
    expect(taken.body.error).toBe("CONFLICT");
    expectDocumented("POST /api/v1/content/:workspace/*", taken);
    const stale = await c.put(`/api/v1/content/${ws}/guide/first.md`, { body: "Late\n", lastKnownHash: read.body.content_hash });
    expect(stale.status).toBe(409);
    expect([stale.body.error, stale.body.your_hash, stale.body.current_hash]).toEqual(["CONFLICT", read.body.content_hash, updated.body.content_hash]);
    expectDocumented("PUT /api/v1/content/:workspace/*", stale);
    const badQuery = await c.get(`/api/v1/workspaces/${owner.workspaceId}/search`);
    expect(badQuery.status).toBe(400);
    expectDocumented("GET /api/v1/workspaces/:id/search", badQuery);
  });

  test("health, readiness, settings, invitations (and their acceptance), a role change, share links and outbound webhooks answer exactly as documented", async () => {
    const visitor = new Client(server.url);
    expectDocumented("GET /api/health", await visitor.get("/api/health"));
    expectDocumented("GET /api/ready", await visitor.get("/api/ready"));

    const owner = await registerUser(server.url);
    const c = owner.client;
    const ws = `/api/v1/workspaces/${owner.workspaceId}`;

    // Settings: read, a merge that touches a stored (JSON) key and a column, the secret regenerated.
    const settings = await c.get(`${ws}/admin/settings`);
    expect(settings.status).toBe(200);
    expectDocumented("GET /api/v1/workspaces/:id/admin/settings", settings);
    const changed = await c.put(`${ws}/admin/settings`, { theme: "forest", navigation: { top: ["guide"] }, sync_interval: 600, custom_domain: `docs-${Date.now()}.example.com` });
    expect([changed.status, changed.body.theme, changed.body.sync_interval]).toEqual([200, "forest", 600]);
    expectDocumented("PUT /api/v1/workspaces/:id/admin/settings", changed);
    const regenerated = await c.post(`${ws}/admin/settings/webhook-secret/regenerate`);
    expect(regenerated.body.webhook_secret).not.toBe(settings.body.webhook_secret);
    expectDocumented("POST /api/v1/workspaces/:id/admin/settings/webhook-secret/regenerate", regenerated);
    expectDocumented("PUT /api/v1/workspaces/:id/admin/settings", await c.put(`${ws}/admin/settings`, { webhook_secret: "mine" }));

    // Invitations: created (no email set up here, so the answer carries the link), then listed.
    const invited = await c.post(`${ws}/invitations`, { email: `invitee.${Date.now()}@example.test`, role: "editor" });
    expect(invited.status).toBe(201);
    expect(typeof invited.body.url).toBe("string");
    expectDocumented("POST /api/v1/workspaces/:id/invitations", invited);
    const invitations = await c.get(`${ws}/invitations`);
    expect(invitations.body.items.map((i: { id: string }) => i.id)).toEqual([invited.body.id]);
    expectDocumented("GET /api/v1/workspaces/:id/invitations", invitations);
    // Accepted by a new address (201: the account is made) and by an existing account (200).
    const token = (url: string) => url.slice(url.lastIndexOf("/") + 1);
    const accepted = await visitor.post("/api/auth/invitations/accept", { token: token(invited.body.url), name: "Invitee", password: "an invitee's password" });
    expect([accepted.status, accepted.body.workspace.role, typeof accepted.body.access_token]).toEqual([201, "editor", "string"]);
    expectDocumented("POST /api/auth/invitations/accept", accepted);
    const existing = await registerUser(server.url);
    const second = await c.post(`${ws}/invitations`, { email: existing.email, role: "viewer" });
    const joinedExisting = await new Client(server.url).post("/api/auth/invitations/accept", { token: token(second.body.url), password: existing.password });
    expect([joinedExisting.status, joinedExisting.body.user.id]).toEqual([200, existing.id]);
    expectDocumented("POST /api/auth/invitations/accept", joinedExisting);
    const spent = await new Client(server.url).post("/api/auth/invitations/accept", { token: token(second.body.url), password: existing.password });
    expect(spent.status).toBeGreaterThanOrEqual(400);
    expectDocumented("POST /api/auth/invitations/accept", spent);
    // A member's role changed: the member as listed.
    const promoted = await c.put(`${ws}/admin/members/${existing.id}/role`, { role: "commenter" });
    expect([promoted.status, promoted.body.role]).toEqual([200, "commenter"]);
    expectDocumented("PUT /api/v1/workspaces/:id/admin/members/:user_id/role", promoted);

    // Share links: created with its token once, listed without it, used by another account.
    const link = await c.post(`${ws}/share-links`, { role: "commenter", max_uses: 2 });
    expect(link.status).toBe(201);
    expectDocumented("POST /api/v1/workspaces/:id/share-links", link);
    const joiner = await registerUser(server.url);
    const used = await joiner.client.post(`/api/v1/share-links/${link.body.token}/use`);
    expect([used.status, used.body.role, used.body.joined]).toEqual([200, "commenter", true]);
    expectDocumented("POST /api/v1/share-links/:token/use", used);
    const links = await c.get(`${ws}/share-links`);
    expect(links.body.items[0].uses).toBe(1);
    expect(links.body.items[0].token).toBeUndefined();
    expectDocumented("GET /api/v1/workspaces/:id/share-links", links);
    // A page link: opened signed out, and a token that opens nothing.
    expect((await c.post(`/api/v1/content/${owner.workspaceSlug}/guide/shared.md`, { title: "Shared", body: "x" })).status).toBe(201);
    const pageLink = await c.post(`${ws}/share-links`, { role: "viewer", path: "guide/shared.md" });
    expect([pageLink.status, pageLink.body.path, pageLink.body.anyone]).toEqual([201, "guide/shared.md", true]);
    expectDocumented("POST /api/v1/workspaces/:id/share-links", pageLink);
    const shared = await new Client(server.url).get(`/api/v1/share-links/${pageLink.body.token}/page`);
    expect([shared.status, shared.body.level, shared.body.via]).toEqual([200, "view", "link"]);
    expectDocumented("GET /api/v1/share-links/:token/page", shared);
    const nothing = await new Client(server.url).get(`/api/v1/share-links/not-a-token/page`);
    expect(nothing.status).toBe(404);
    expectDocumented("GET /api/v1/share-links/:token/page", nothing);
    // A comment-level page link: its page's thread, signed in; signed out it asks to sign in.
    const commentLink = await c.post(`${ws}/share-links`, { role: "commenter", path: "guide/shared.md" });
    const linkThread = `/api/v1/share-links/${commentLink.body.token}/comments`;
    const added = await joiner.client.post(linkThread, { body: "Through the link" });
    expect([added.status, added.body.author.id]).toEqual([201, joiner.id]);
    expectDocumented("POST /api/v1/share-links/:token/comments", added);
    expectDocumented("GET /api/v1/share-links/:token/comments", await joiner.client.get(linkThread));
    const signedOut = await new Client(server.url).post(linkThread, { body: "Anonymous" });
    expect(signedOut.status).toBe(401);
    expectDocumented("POST /api/v1/share-links/:token/comments", signedOut);

    // Outbound webhooks: the secret once, then the definition, the list, a change, the empty log.
    const hook = await c.post(`${ws}/webhooks`, { url: "https://8.8.4.4/quire", events: ["page-created"], description: "CI" });
    expect(hook.status).toBe(201);
    expect(hook.body.secret).toStartWith("whsec_");
    expectDocumented("POST /api/v1/workspaces/:id/webhooks", hook);
    expectDocumented("GET /api/v1/workspaces/:id/webhooks/:wid", await c.get(`${ws}/webhooks/${hook.body.id}`));
    const hookChanged = await c.put(`${ws}/webhooks/${hook.body.id}`, { active: false });
    expect(hookChanged.body.active).toBe(false);
    expectDocumented("PUT /api/v1/workspaces/:id/webhooks/:wid", hookChanged);
    const hooks = await c.get(`${ws}/webhooks`);
    expect(hooks.body.items.length).toBe(1);
    expectDocumented("GET /api/v1/workspaces/:id/webhooks", hooks);
    expectDocumented("GET /api/v1/workspaces/:id/webhooks/:wid/deliveries", await c.get(`${ws}/webhooks/${hook.body.id}/deliveries`));
    const privateHook = await c.post(`${ws}/webhooks`, { url: "http://10.0.0.5/hook" });
    expect(privateHook.status).toBe(400);
    expectDocumented("POST /api/v1/workspaces/:id/webhooks", privateHook);
  });

  test("the published site's status, live pages, versions, custom domain and quality scan answer exactly as documented", async () => {
    const owner = await registerUser(server.url);
    const c = owner.client;
    const ws = `/api/v1/workspaces/${owner.workspaceId}`;
    expect((await c.put(`${ws}/admin/settings`, { published: true, visibility: "public" })).status).toBe(200);
    expect((await c.post(`/api/v1/content/${owner.workspaceSlug}/guide.md`, { title: "Guide", body: "# Guide\n" })).status).toBe(201);

    // Versions: a snapshot, the list, one, a new default.
    const v1 = await c.post(`${ws}/versions`, { slug: "v1", name: "Version 1", snapshot: true });
    expect(v1.status).toBe(201);
    expectDocumented("POST /api/v1/workspaces/:id/versions", v1);
    expect((await c.post(`${ws}/versions`, { slug: "v2", name: "Version 2", snapshot: true })).status).toBe(201);
    const versions = await c.get(`${ws}/versions`);
    expect(versions.body.items.length).toBe(2);
    expectDocumented("GET /api/v1/workspaces/:id/versions", versions);
    expectDocumented("GET /api/v1/workspaces/:id/versions/:slug", await c.get(`${ws}/versions/v1`));
    const made = await c.put(`${ws}/versions/v2/default`);
    expect(made.body.is_default).toBe(true);
    expectDocumented("PUT /api/v1/workspaces/:id/versions/:slug/default", made);

    // The custom domain: set (its record not there yet: failed), then proved by its TXT record.
    const domain = `docs-${Date.now()}.documented.example.test`;
    const set = await c.put(`${ws}/custom-domain`, { domain });
    expect(set.status).toBe(200);
    expect(set.body.status).not.toBe("verified");
    expectDocumented("PUT /api/v1/workspaces/:id/custom-domain", set);
    dns.records.set(set.body.verification.name, set.body.verification.value);
    const verified = await c.post(`${ws}/custom-domain/verify`);
    expect(verified.body.status).toBe("verified");
    expectDocumented("POST /api/v1/workspaces/:id/custom-domain/verify", verified);
    expectDocumented("GET /api/v1/workspaces/:id/custom-domain", await c.get(`${ws}/custom-domain`));

    // The Site screen's status (domain and versions in it) and the live pages across versions.
    const status = await c.get(`${ws}/site`);
    expect([status.body.published, status.body.custom_domain?.status, status.body.versions.length]).toEqual([true, "verified", 2]);
    expectDocumented("GET /api/v1/workspaces/:id/site", status);
    const live = await c.get(`${ws}/site/pages`);
    expect(live.body.pages.length).toBeGreaterThan(0);
    expectDocumented("GET /api/v1/workspaces/:id/site/pages", live);
    // The quality scan: a page with a dead link and no description (findings with lines), then one page.
    expect((await c.post(`/api/v1/content/${owner.workspaceSlug}/broken.md`, { title: "Broken", body: "See [the missing page](missing.md).\n" })).status).toBe(201);
    const quality = await c.get(`${ws}/quality`);
    expect(quality.body.findings.some((f: { kind: string; line?: number }) => f.kind === "dead_link" && f.line === 1)).toBe(true);
    expectDocumented("GET /api/v1/workspaces/:id/quality", quality);
    const onePage = await c.get(`${ws}/quality?path=broken.md`);
    expect(onePage.body.pages.map((p: { path: string }) => p.path)).toEqual(["broken.md"]);
    expectDocumented("GET /api/v1/workspaces/:id/quality", onePage);
    const noSuchVersion = await c.get(`${ws}/versions/v9`);
    expect(noSuchVersion.status).toBe(404);
    expectDocumented("GET /api/v1/workspaces/:id/versions/:slug", noSuchVersion);
  });

  test("analytics: the consent answer and the three reports, with views, searches and a consent counted, answer exactly as documented", async () => {
    const owner = await registerUser(server.url);
    const c = owner.client;
    const ws = `/api/v1/workspaces/${owner.workspaceId}`;
    expect((await c.put(`${ws}/admin/settings`, { published: true, visibility: "public" })).status).toBe(200);
    const consent = await new Client(server.url).post("/api/analytics/consent", { workspace: owner.workspaceSlug, granted: true });
    expect(consent.status).toBe(200);
    expectDocumented("POST /api/analytics/consent", consent);
    // Page views as the published site records them; searches from the app, one finding nothing.
    for (let i = 0; i < 3; i++) server.services.analytics.recordPageView({ workspaceId: owner.workspaceId, path: "/welcome", referrer: "https://news.example.org/item" });
    await server.services.search.whenIndexed(owner.workspaceId);
    for (const q of ["welcome", "zebraunicornxyz"]) expect((await c.get(`${ws}/search?q=${q}`)).status).toBe(200);

    const pages = await c.get(`${ws}/analytics/pages?days=7`);
    expect([pages.status, pages.body.total_views, pages.body.referrers.length]).toEqual([200, 3, 1]);
    expectDocumented("GET /api/v1/workspaces/:id/analytics/pages", pages);
    const searches = await c.get(`${ws}/analytics/searches?source=app`);
    expect([searches.body.searches, searches.body.no_results.length]).toEqual([2, 1]);
    expectDocumented("GET /api/v1/workspaces/:id/analytics/searches", searches);
    expectDocumented("GET /api/v1/workspaces/:id/analytics/searches", await c.get(`${ws}/analytics/searches`));
    const overview = await c.get(`${ws}/analytics/overview?days=7`);
    expect([overview.body.daily.length, overview.body.consents.granted]).toEqual([7, 1]);
    expectDocumented("GET /api/v1/workspaces/:id/analytics/overview", overview);
    const tooLong = await c.get(`${ws}/analytics/overview?days=365`);
    expect(tooLong.status).toBe(400);
    expectDocumented("GET /api/v1/workspaces/:id/analytics/overview", tooLong);
  });

  test("onboarding, templates, the workspace's people, who is viewing what, writing assist and the MCP client configuration answer exactly as documented", async () => {
    const owner = await registerUser(server.url);
    const c = owner.client;
    const ws = `/api/v1/workspaces/${owner.workspaceId}`;
    expectDocumented("GET /api/v1/users/me/onboarding", await c.get("/api/v1/users/me/onboarding"));
    const marked = await c.request("PATCH", "/api/v1/users/me/onboarding", { json: { steps: { create_page: true }, dismissed: true } });
    expect([marked.status, marked.body.dismissed, marked.body.steps.find((s: { id: string }) => s.id === "create_page").done]).toEqual([200, true, true]);
    expectDocumented("PATCH /api/v1/users/me/onboarding", marked);
    const templates = await c.get("/api/v1/templates");
    expect(templates.body.items.length).toBeGreaterThan(0);
    expectDocumented("GET /api/v1/templates", templates);
    const template = await c.get(`/api/v1/templates/${templates.body.items[0].id}`);
    expect(template.body.content.length).toBeGreaterThan(0);
    expectDocumented("GET /api/v1/templates/:id", template);
    expectDocumented("GET /api/v1/workspaces/:id/people", await c.get(`${ws}/people`));
    expect((await c.post(`${ws}/viewing`, { path: "welcome.md" })).status).toBe(204);
    const viewing = await c.get(`${ws}/viewing`);
    expect(viewing.body.items.map((v: { path: string }) => v.path)).toEqual(["welcome.md"]);
    expectDocumented("GET /api/v1/workspaces/:id/viewing", viewing);
    // Agents: writing assist with no model configured here (instructions for the agent), the MCP client configuration.
    const assist = await c.post("/api/ai/assist", { text: "Teh quick fox.", mode: "fix_grammar" });
    expect([assist.status, typeof assist.body.instructions, assist.body.text]).toEqual([200, "string", "Teh quick fox."]);
    expectDocumented("POST /api/ai/assist", assist);
    const mcp = await c.get("/api/v1/mcp/client-config");
    expect(mcp.body.http_url).toBe(`${server.config.baseUrl}/mcp`);
    expectDocumented("GET /api/v1/mcp/client-config", mcp);
  });

  /** Asserts the answer's status is the success status the served document gives the route (its one 2xx/3xx). */
  function expectDocumentedStatus(route: string, r: ApiResponse): void {
    const [method, path] = route.split(" ") as [string, string];
    const openApiPath = path.replace(/:([A-Za-z_]+)/g, "{$1}").replace(/\*$/, "{path}");
    const responses = doc.paths[openApiPath]?.[method.toLowerCase()]?.responses ?? {};
    const success = Object.keys(responses).filter((status) => Number(status) < 400);
    expect({ route, status: r.status }).toEqual({ route, status: Number(success[0]) });
  }

  test("routes that answer no JSON body answer the status their entry documents (204s, a raw file, this document)", async () => {
    const owner = await registerUser(server.url);
    const c = owner.client;
    const ws = `/api/v1/workspaces/${owner.workspaceId}`;
    const slug = owner.workspaceSlug;
    expectDocumentedStatus("GET /api/openapi.json", await c.get("/api/openapi.json"));
    expectDocumentedStatus("POST /api/auth/ws-token", await c.post("/api/auth/ws-token", {}));
    expectDocumentedStatus("POST /api/v1/workspaces/:id/viewing", await c.post(`${ws}/viewing`, { path: "welcome.md" }));
    expectDocumentedStatus("POST /api/v1/site-session", await c.post("/api/v1/site-session", {}));
    expectDocumentedStatus("DELETE /api/v1/site-session", await c.request("DELETE", "/api/v1/site-session"));
    const key = await c.post("/api/v1/api-keys", { name: "short-lived", scopes: ["read"] });
    expectDocumentedStatus("DELETE /api/v1/api-keys/:id", await c.request("DELETE", `/api/v1/api-keys/${key.body.id}`));
    const form = new FormData();
    form.append("file", new File([new TextEncoder().encode("raw notes\n")], "raw.txt", { type: "text/plain" }));
    const uploaded = await c.request("POST", `/api/v1/content/${slug}/uploads`, { body: form });
    expectDocumentedStatus("GET /api/v1/content/:workspace/uploads/:filename", await c.get(`/api/v1/content/${slug}/uploads/${uploaded.body.filename}`));
    expectDocumentedStatus("DELETE /api/v1/content/:workspace/*", await c.request("DELETE", `/api/v1/content/${slug}/welcome.md`));
    expectDocumentedStatus("POST /api/auth/logout", await c.post("/api/auth/logout", {}));
  });

  test("page history, a version, a diff, restore, the trash and workspace changes answer exactly as documented", async () => {
    const owner = await registerUser(server.url);
    const c = owner.client;
    const ws = `/api/v1/workspaces/${owner.workspaceId}`;
    const first = await c.post(`/api/v1/content/${owner.workspaceSlug}/history-doc.md`, { title: "History", body: "One.\n" });
    await c.put(`/api/v1/content/${owner.workspaceSlug}/history-doc.md`, { body: "Two.\n", lastKnownHash: first.body.content_hash });
    await server.services.gitSync.idle();
    await server.services.versionIndex.idle(owner.workspaceId);
    const list = await c.get(`${ws}/history?path=history-doc.md`);
    expect(list.body.items).toHaveLength(2);
    expectDocumented("GET /api/v1/workspaces/:id/history", list);
    const older = list.body.items[1].commit;
    expectDocumented("GET /api/v1/workspaces/:id/history/version", await c.get(`${ws}/history/version?path=history-doc.md&commit=${older}`));
    expectDocumented("GET /api/v1/workspaces/:id/history/diff", await c.get(`${ws}/history/diff?path=history-doc.md&from=${older}&words=true`));
    expectDocumented("GET /api/v1/workspaces/:id/history/blame", await c.get(`${ws}/history/blame?path=history-doc.md`));
    const current = await c.get(`/api/v1/content/${owner.workspaceSlug}/history-doc.md`);
    const restored = await c.post(`${ws}/history/restore`, { path: "history-doc.md", commit: older, last_known_hash: current.body.content_hash });
    expect(restored.status).toBe(200);
    expectDocumented("POST /api/v1/workspaces/:id/history/restore", restored);
    expect((await c.delete(`/api/v1/content/${owner.workspaceSlug}/history-doc.md`)).status).toBe(204);
    const trash = await c.get(`${ws}/trash`);
    expect(trash.body.items.length).toBe(1);
    expectDocumented("GET /api/v1/workspaces/:id/trash", trash);
    const back = await c.post(`${ws}/trash/restore`, { trash_id: first.body.page_id });
    expect(back.status).toBe(200);
    expectDocumented("POST /api/v1/workspaces/:id/trash/restore", back);
    await server.services.gitSync.idle();
    await server.services.versionIndex.idle(owner.workspaceId);
    expectDocumented("GET /api/v1/workspaces/:id/changes", await c.get(`${ws}/changes?since=2000-01-01`));
  });

  test("MCP authorization: a registration, the consent request and answer, tokens and connected apps answer exactly as documented", async () => {
    const person = await registerUser(server.url);
    const c = person.client;
    const redirect = "http://127.0.0.1:4567/callback";
    const registration = await c.post("/oauth/register", { client_name: "Documented Agent", redirect_uris: [redirect] }, { token: null });
    expect(registration.status).toBe(201);
    expectDocumented("POST /oauth/register", registration);
    const verifier = "documented-verifier-documented-verifier-0123456789";
    const challenge = new Bun.CryptoHasher("sha256").update(verifier).digest("base64url");
    const query = new URLSearchParams({ response_type: "code", client_id: registration.body.client_id, redirect_uri: redirect, code_challenge: challenge, code_challenge_method: "S256", resource: `${server.config.baseUrl}/mcp`, scope: "read" });
    const started = await c.get(`/oauth/authorize?${query}`, { token: null });
    expect(started.status).toBe(302);
    const id = new URL(started.headers.get("location")!, server.url).searchParams.get("request")!;
    const view = await c.get(`/api/v1/oauth/consent/${id}`);
    expectDocumented("GET /api/v1/oauth/consent/:id", view);
    const decided = await c.post(`/api/v1/oauth/consent/${id}`, { consent_token: view.body.consent_token, approve: true, scopes: ["read"], workspace_ids: [person.workspaceId] });
    expectDocumented("POST /api/v1/oauth/consent/:id", decided);
    const form = new URLSearchParams({ grant_type: "authorization_code", code: new URL(decided.body.redirect_to).searchParams.get("code")!, redirect_uri: redirect, client_id: registration.body.client_id, code_verifier: verifier });
    const tokens = await c.request("POST", "/oauth/token", { body: form.toString(), headers: { "content-type": "application/x-www-form-urlencoded" }, token: null });
    expectDocumented("POST /oauth/token", tokens);
    expectDocumented("GET /api/v1/oauth/grants", await c.get("/api/v1/oauth/grants"));
    expectDocumented("GET /api/v1/oauth/grants/organization", await c.get("/api/v1/oauth/grants/organization"));
  });

  test("restricted folders: the rules, a change and the effective access answer exactly as documented", async () => {
    const owner = await registerUser(server.url);
    const c = owner.client;
    const ws = `/api/v1/workspaces/${owner.workspaceId}`;
    const set = await c.put(`${ws}/access`, { path: "guides/", entries: [{ who: "group:editors", level: "edit" }] });
    expect(set.status).toBe(200);
    expectDocumented("PUT /api/v1/workspaces/:id/access", set);
    expectDocumented("GET /api/v1/workspaces/:id/access", await c.get(`${ws}/access`));
    expectDocumented("GET /api/v1/workspaces/:id/access/effective", await c.get(`${ws}/access/effective?path=guides/`));
    expectDocumented("GET /api/v1/workspaces/:id/access/members", await c.get(`${ws}/access/members?path=guides/`));
    expectDocumented("GET /api/v1/workspaces/:id/access/people", await c.get(`${ws}/access/people`));
  });

  test("every route whose answer has a schema was checked above with its success status", () => {
    const withSchema = Object.entries(API_ROUTES).filter(([, d]) => d.response).map(([k, d]) => [k, d.status ?? 200] as const);
    expect(withSchema.filter(([k, status]) => !checked.get(k)?.has(status)).map(([k]) => k)).toEqual([]);
    expect(withSchema.length).toBeGreaterThanOrEqual(40);
  });

  test("the documented schemas are exact: a field the server does not send, or a missing one, fails", async () => {
    const owner = await registerUser(server.url);
    const page = (await owner.client.get(`/api/v1/content/${owner.workspaceSlug}/welcome.md`)).body;
    const pageSchema = validator(documented("GET", "/api/v1/content/{workspace}/{path}", 200));
    expect(pageSchema(page)).toBe(true);
    expect(pageSchema({ ...page, surprise: 1 })).toBe(false);
    const { content_hash: _dropped, ...withoutHash } = page;
    expect(pageSchema(withoutHash)).toBe(false);
    const errorSchema = validator(documented("GET", "/api/v1/workspaces/{id}", 404));
    expect(errorSchema({ error: "NOT_FOUND", message: "x", request_id: "r" })).toBe(true);
    expect(errorSchema({ error: "NOT_A_CODE", message: "x", request_id: "r" })).toBe(false);
    // Every named output is published, and every error answer refers to the one Error schema.
    expect(Object.keys(doc.components.schemas as object).sort()).toEqual(OUTPUTS.map(([id]) => id).sort());
    for (const ops of Object.values(doc.paths)) {
      for (const op of Object.values(ops)) {
        for (const [status, answer] of Object.entries(op.responses)) {
          if (Number(status) >= 400) expect(answer.content["application/json"].schema).toEqual({ $ref: "#/components/schemas/Error" });
        }
      }
    }
  });
});
