import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { Client } from "../helpers/client.ts";
import { errorOf, signUp } from "./support.ts";
import { startGitHub, type GitHubPerson, type GitHubStandIn } from "./github-standin.ts";

/** GitHub sign-in (including Enterprise Server's URL layout) against a stand-in speaking GitHub's shapes. */
let github: GitHubStandIn;
let server: TestServer;
const stamp = Date.now();
let nextId = 1000;
const person = (over: Partial<GitHubPerson> & { email: string; verified?: boolean }): GitHubPerson => ({
  id: nextId++,
  login: `octo${nextId}`,
  name: over.name ?? null,
  publicEmail: over.publicEmail ?? null,
  emails: over.emails ?? [
    { email: `secondary.${nextId}@example.test`, primary: false, verified: true, visibility: null },
    { email: over.email, primary: true, verified: over.verified ?? true, visibility: "private" },
  ],
});

beforeAll(async () => {
  github = startGitHub();
  server = await startTestServer({ ...github.env });
});
afterAll(async () => {
  await server?.close();
  await github?.close();
});

/** start → GitHub's authorize → Quire's callback (as the browser would follow it). */
async function viaGitHub(c: Client, opts: { link?: boolean; mangleCode?: boolean } = {}) {
  const start = await c.post("/api/auth/oidc/github", opts.link ? { link: true } : {});
  expect(start.status).toBe(200);
  const authorize = await fetch(start.body.url, { redirect: "manual" });
  const callback = new URL(authorize.headers.get("location")!);
  if (opts.mangleCode) callback.searchParams.set("code", "not-the-code");
  const back = await c.get(callback.pathname + callback.search);
  expect(back.status).toBe(303);
  return { start, landing: new URL(back.headers.get("location")!) };
}

async function claim(c: Client, landing: URL) {
  const r = await c.post("/api/auth/oidc/claim", { code: landing.searchParams.get("oidc_code") });
  expect(r.status).toBe(200);
  c.token = r.body.access_token;
  return r.body;
}

describe("GitHub", () => {
  test("the authorize URL asks for user:email with PKCE at OIDC_GITHUB_URL", async () => {
    const r = await new Client(server.url).post("/api/auth/oidc/github", {});
    const url = new URL(r.body.url);
    expect(url.origin + url.pathname).toBe(`${github.url}/login/oauth/authorize`);
    expect(url.searchParams.get("scope")).toBe("read:user user:email");
    expect(url.searchParams.get("code_challenge_method")).toBe("S256");
    expect(url.searchParams.get("redirect_uri")).toBe(`${server.config.baseUrl}/api/auth/oidc/github/callback`);
  });

  test("a private primary email (`email: null` on /user) still names the account; signing in again by id finds it", async () => {
    const octo = person({ email: `private.${stamp}@example.test`, name: "Octo Private" });
    github.signInAs(octo);
    const c = new Client(server.url);
    await claim(c, (await viaGitHub(c)).landing);
    const me = (await c.get("/api/auth/me")).body.user;
    expect(me).toMatchObject({ email: `private.${stamp}@example.test`, name: "Octo Private", has_password: false, email_verified: true });

    // The person changes their primary email at GitHub: the numeric id still leads to the same account.
    github.signInAs({ ...octo, emails: [{ email: `changed.${stamp}@example.test`, primary: true, verified: true, visibility: "private" }] });
    const again = new Client(server.url);
    await claim(again, (await viaGitHub(again)).landing);
    expect((await again.get("/api/auth/me")).body.user.id).toBe(me.id);
  });

  test("an unverified primary email creates nothing and links nothing", async () => {
    const existing = await signUp(server.url, { email: `unverified.${stamp}@example.test` });
    github.signInAs(person({ email: `unverified.${stamp}@example.test`, verified: false }));
    expect((await viaGitHub(new Client(server.url))).landing.searchParams.get("oidc_error")).toBe("email_unverified");
    expect(server.services.identities.ofUser(existing.id)).toEqual([]);
    github.signInAs(person({ email: `nobody.${stamp}@example.test`, verified: false }));
    expect((await viaGitHub(new Client(server.url))).landing.searchParams.get("oidc_error")).toBe("email_unverified");
    expect(server.services.users.byEmail(`nobody.${stamp}@example.test`)).toBeNull();
  });

  test("GitHub's errors come with HTTP 200 (bad_verification_code): the sign-in is refused, not taken for a token", async () => {
    github.signInAs(person({ email: `badcode.${stamp}@example.test` }));
    const before = server.services.db.query("SELECT COUNT(*) AS n FROM users").get();
    const { landing } = await viaGitHub(new Client(server.url), { mangleCode: true });
    expect(landing.searchParams.get("oidc_error")).toBe("provider_error");
    expect(server.services.db.query("SELECT COUNT(*) AS n FROM users").get()).toEqual(before);
    expect(server.logs.some((l) => l.includes("bad_verification_code"))).toBe(true);
  });

  test("link from the profile, list the methods, unlink; the last method cannot be removed", async () => {
    const u = await signUp(server.url, { email: `linker.${stamp}@example.test` });
    github.signInAs(person({ email: `someone-else.${stamp}@example.test` }));
    const { landing } = await viaGitHub(u.client, { link: true });
    expect(landing.pathname).toBe("/account");
    expect(landing.searchParams.get("linked")).toBe("github");
    const methods = await u.client.get("/api/auth/methods");
    expect(methods.body).toEqual({
      password: true,
      passkeys: 0,
      providers: [{ id: "github", name: "GitHub", linked: true, email: `someone-else.${stamp}@example.test`, linked_at: expect.any(String), last_used_at: expect.any(String) }],
    });
    expect((await u.client.delete("/api/auth/oidc/github")).status).toBe(204);
    expect((await u.client.get("/api/auth/methods")).body.providers[0].linked).toBe(false);

    // An account made by GitHub has GitHub as its only method.
    github.signInAs(person({ email: `only.${stamp}@example.test` }));
    const c = new Client(server.url);
    await claim(c, (await viaGitHub(c)).landing);
    const refused = errorOf(await c.delete("/api/auth/oidc/github"), 409, "CONFLICT");
    expect(refused.details.reason).toBe("last_method");
    // A password added later makes GitHub removable; the password signs in.
    expect((await c.post("/api/auth/password", { new_password: "added later, long enough" })).status).toBe(204);
    errorOf(await c.post("/api/auth/password", { new_password: "another one, long enough" }), 409, "CONFLICT");
    expect((await c.delete("/api/auth/oidc/github")).status).toBe(204);
    expect((await new Client(server.url).post("/api/auth/login", { email: `only.${stamp}@example.test`, password: "added later, long enough" })).status).toBe(200);
  });
});

describe("invite-only mode", () => {
  test("an unknown person is refused (signup_disabled) unless a pending invitation names their verified email; then they join", async () => {
    const closed = await startTestServer({ ...github.env, QUIRE_DISABLE_SIGNUP: "true" });
    try {
      github.signInAs(person({ email: `stranger.${stamp}@example.test` }));
      expect((await viaGitHubOn(closed)).landing.searchParams.get("oidc_error")).toBe("signup_disabled");

      // The owner (made directly: registration is closed) invites an address; its owner signs in with GitHub.
      const owner = await closed.services.auth.createAccount({ name: "Owner", email: `owner.${stamp}@example.test`, passwordHash: null, emailVerified: true, starter: true });
      const ws = closed.services.db.query<{ id: string }, [string]>("SELECT workspace_id AS id FROM workspace_members WHERE user_id = ?").get(owner.id)!;
      const tokens = await closed.services.auth.signIn(owner, { ip: "10.9.9.9", device: "" });
      const inv = await new Client(closed.url).post(`/api/v1/workspaces/${ws.id}/invitations`, { email: `invited.${stamp}@example.test`, role: "editor" }, { token: tokens.access_token });
      expect(inv.status).toBe(201);
      github.signInAs(person({ email: `invited.${stamp}@example.test` }));
      const c = new Client(closed.url);
      const { landing } = await viaGitHubOn(closed, c);
      await claim(c, landing);
      const list = await c.get("/api/v1/workspaces");
      expect(list.body.items.map((w: { id: string; role: string }) => [w.id, w.role])).toEqual([[ws.id, "editor"]]);
    } finally {
      await closed.close();
    }
  });
});

async function viaGitHubOn(target: TestServer, c = new Client(target.url)) {
  const start = await c.post("/api/auth/oidc/github", {});
  const authorize = await fetch(start.body.url, { redirect: "manual" });
  const callback = new URL(authorize.headers.get("location")!);
  const back = await c.get(callback.pathname + callback.search);
  return { landing: new URL(back.headers.get("location")!) };
}
