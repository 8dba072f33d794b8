/**
 * A restriction in a workspace whose git remote is public is refused (docs/decisions/restricted-folders.md):
 * the forge's public repository API is asked, through the outbound guard, against loopback
 * stand-ins of a GitHub Enterprise Server and a self-managed GitLab that also serve the workspaces'
 * git traffic. Public → refused even when the admin confirms, and nothing changes; private or
 * unknown (404), slow, down or on another host → the admin must confirm, then it is set.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { loadConfig, ConfigError } from "../../../src/config.ts";
import { RemoteVisibility } from "../../../src/access/restrictions/remote-visibility.ts";
import { startTestServer, TEST_ENV, type TestServer } from "../../helpers/server.ts";
import { registerUser, type TestUser } from "../../helpers/factories.ts";
import { git, startGitHttpRemote, type GitHttpRemote } from "../../helpers/git-remote.ts";
import { memberWithRole } from "../support.ts";
import { GIT_ENV, createFromRemote, settled } from "../../git/support.ts";
import { createKey, httpClient, refused, ok, type McpClient } from "../../mcp/fixture.ts";
import { startForgeStandin, type ForgeStandin } from "./forge-standin.ts";

let server: TestServer;
let owner: TestUser;
let ana: TestUser;
let github: ForgeStandin;
let gitlab: ForgeStandin;
const remotes: GitHttpRemote[] = [];
const ws: Record<string, { id: string; slug: string }> = {};
const publicJson = (base: string) => Response.json({ private: false, visibility: "public", html_url: `${base}/acme/handbook` });

async function gitRemote(): Promise<GitHttpRemote> {
  const r = await startGitHttpRemote({ branch: "main" });
  remotes.push(r);
  return r;
}

beforeAll(async () => {
  github = startForgeStandin("github", {
    "acme/handbook": { visibility: "public", git: await gitRemote() },
    "acme/notes": { visibility: "private", git: await gitRemote() },
    // Would say "public", but only after 5 s: too late to count.
    "acme/slow": { visibility: "public", git: await gitRemote(), delayMs: 5000 },
    "acme/broken": { visibility: "public", answer: () => Response.json({ message: "Server Error" }, { status: 500 }) },
    "acme/moved": { visibility: "public", answer: (base) => Response.redirect(`${base}/api/v3/repos/acme/handbook`, 301) },
    "acme/huge": {
      visibility: "public",
      answer: () => Response.json({ private: false, visibility: "public", description: "x".repeat(100 * 1024) }),
    },
    "acme/odd": { visibility: "public", answer: () => new Response("<html>public</html>", { headers: { "content-type": "text/html" } }) },
  });
  gitlab = startForgeStandin("gitlab", {
    "group/sub/docs": { visibility: "public", git: await gitRemote() },
    "group/internal": { visibility: "private", git: await gitRemote() },
  });
  server = await startTestServer({ ...GIT_ENV, GITHUB_API_URL: github.api, GITLAB_API_URL: gitlab.api });
  owner = await registerUser(server.url, { name: "Ada Admin", email: "ada.admin@example.test" });
  const plain = await gitRemote();
  for (const [slug, remote] of [
    ["gh-public", github.remote("acme/handbook")],
    ["gh-private", github.remote("acme/notes")],
    ["gh-slow", github.remote("acme/slow")],
    ["gl-public", gitlab.remote("group/sub/docs")],
    ["gl-private", gitlab.remote("group/internal")],
    ["elsewhere", plain.url],
  ] as const) {
    const r = await createFromRemote(owner, slug, remote);
    expect(r.status).toBe(201);
    ws[slug] = r.body;
  }
  ana = await memberWithRole(server, owner, ws["gh-public"]!.id, "editor");
  await settled(server);
});

afterAll(async () => {
  await server?.close();
  await github?.stop();
  await gitlab?.stop();
  for (const r of remotes) await r.close();
});

const put = (slug: string, extra: Record<string, unknown> = {}, path = "hr/") =>
  owner.client.put(`/api/v1/workspaces/${ws[slug]!.id}/access`, { path, entries: [{ who: owner.email, level: "edit" }], ...extra });

/** What a refused change must leave alone: the rules, the audit, the file and the commits. */
async function state(slug: string) {
  const id = ws[slug]!.id;
  const dir = server.services.ledger.dir(id).root;
  return {
    rules: server.services.db.query("SELECT path, entries FROM access_rules WHERE workspace_id = ?").all(id),
    audit: server.services.db.query("SELECT COUNT(*) AS n FROM activity WHERE workspace_id = ? AND action = 'access_changed'").get(id),
    file: existsSync(join(dir, ".quire/access.yaml")),
    head: (await git(["rev-parse", "HEAD"], { cwd: dir })).trim(),
  };
}

const PUBLIC = "This workspace's git remote is public";
const CONFIRM = "Confirm the remote is private with confirm_private_remote: true";

describe("a workspace whose remote the forge calls public", () => {
  for (const [slug, asked] of [
    ["gh-public", "GET /api/v3/repos/acme/handbook"],
    ["gl-public", "GET /api/v4/projects/group%2Fsub%2Fdocs"],
  ] as const) {
    test(`${slug}: a restriction is refused even when the admin confirms, and nothing changes`, async () => {
      const before = await state(slug);
      const forge = slug.startsWith("gh") ? github : gitlab;
      const askedBefore = forge.apiRequests.length;
      for (const extra of [{}, { confirm_private_remote: true }]) {
        const res = await put(slug, extra);
        expect(res.status).toBe(400);
        expect(res.body.error).toBe("VALIDATION_ERROR");
        expect(res.body.message).toContain(PUBLIC);
        expect(res.body.message).toContain("anyone can clone every page");
      }
      expect(forge.apiRequests.slice(askedBefore)).toEqual([asked, asked]);
      await settled(server);
      expect(await state(slug)).toEqual(before);
      expect(before.rules).toEqual([]);
      expect(before.file).toBe(false);
      expect((await owner.client.get(`/api/v1/workspaces/${ws[slug]!.id}/access`)).body.restricted).toEqual({});
    });
  }

  test("through MCP, quire_set_access is refused the same way and nothing changes", async () => {
    const admin: McpClient = await httpClient(`${server.url}/mcp`, (await createKey(owner, ["read", "write", "admin"])).key);
    const before = await state("gh-public");
    const text = await refused(admin, "quire_set_access", {
      workspace: ws["gh-public"]!.slug,
      path: "hr/",
      entries: [{ who: ana.email, level: "edit" }],
      confirm_private_remote: true,
    });
    expect(text).toContain("VALIDATION_ERROR");
    expect(text).toContain(PUBLIC);
    expect(await state("gh-public")).toEqual(before);
    // The same tool sets it where the remote is private and the admin confirms.
    await ok(admin, "quire_set_access", { workspace: ws["gl-private"]!.slug, path: "mcp/", entries: [{ who: owner.email, level: "edit" }], confirm_private_remote: true });
    await admin.close();
  });
});

describe("a remote the forge does not call public needs the admin to confirm it is private", () => {
  for (const [slug, asked] of [
    ["gh-private", "GET /api/v3/repos/acme/notes"],
    ["gl-private", "GET /api/v4/projects/group%2Finternal"],
  ] as const) {
    test(`${slug} (404 without credentials): refused without confirmation, set with it, committed and pushed`, async () => {
      const forge = slug.startsWith("gh") ? github : gitlab;
      const before = await state(slug);
      const askedBefore = forge.apiRequests.length;
      const unconfirmed = await put(slug);
      expect(unconfirmed.status).toBe(400);
      expect(unconfirmed.body.details.field).toBe("confirm_private_remote");
      expect(unconfirmed.body.message).toContain(CONFIRM);
      expect(await state(slug)).toEqual(before);
      const confirmed = await put(slug, { confirm_private_remote: true });
      expect(confirmed.status).toBe(200);
      expect(forge.apiRequests.slice(askedBefore)).toEqual([asked, asked]);
      await settled(server);
      const after = await state(slug);
      expect(after.rules).toHaveLength(before.rules.length + 1);
      expect(after.file).toBe(true);
      expect(after.head).not.toBe(before.head);
    });
  }

  test("a forge slower than 3 s is not waited for: confirmation is asked for within the timeout", async () => {
    const askedBefore = github.apiRequests.length;
    const started = performance.now();
    const res = await put("gh-slow");
    const took = performance.now() - started;
    expect(res.status).toBe(400);
    expect(res.body.details.field).toBe("confirm_private_remote");
    expect(github.apiRequests.slice(askedBefore)).toEqual(["GET /api/v3/repos/acme/slow"]);
    expect(took).toBeGreaterThan(2900);
    expect(took).toBeLessThan(4500);
  });

  test("a remote on another host: confirmation is asked for and no forge is asked", async () => {
    const asked = github.apiRequests.length + gitlab.apiRequests.length;
    const res = await put("elsewhere");
    expect(res.status).toBe(400);
    expect(res.body.details.field).toBe("confirm_private_remote");
    expect((await put("elsewhere", { confirm_private_remote: true })).status).toBe(200);
    expect(github.apiRequests.length + gitlab.apiRequests.length).toBe(asked);
  });
});

describe("RemoteVisibility against the stand-in", () => {
  const on = (allowPrivate = true) => new RemoteVisibility({ githubApiUrl: github.api, gitlabApiUrl: gitlab.api, allowPrivate });

  test("an error, a redirect (even to a public repository), an oversized or non-JSON answer is not known", async () => {
    const v = on();
    expect(await v.knownPublic(github.remote("acme/handbook"))).toBe(true);
    for (const repo of ["acme/broken", "acme/moved", "acme/huge", "acme/odd", "acme/unknown"]) {
      const askedBefore = github.apiRequests.length;
      expect(await v.knownPublic(github.remote(repo))).toBe(false);
      // Asked once, and a redirect's target never.
      expect(github.apiRequests.slice(askedBefore)).toEqual([`GET /api/v3/repos/${repo}`]);
    }
  });

  test("an API on a loopback address is refused by the guard unless private addresses are allowed", async () => {
    const asked = github.apiRequests.length;
    expect(await on(false).knownPublic(github.remote("acme/handbook"))).toBe(false);
    expect(github.apiRequests.length).toBe(asked);
  });

  test("a forge that is down is not known, at once", async () => {
    const down = startForgeStandin("gitlab", { "group/docs": { visibility: "public" } });
    const v = new RemoteVisibility({ githubApiUrl: github.api, gitlabApiUrl: down.api, allowPrivate: true });
    expect(await v.knownPublic(down.remote("group/docs"))).toBe(true);
    await down.stop();
    const started = performance.now();
    expect(await v.knownPublic(down.remote("group/docs"))).toBe(false);
    expect(performance.now() - started).toBeLessThan(3000);
  });
});

describe("which API a remote is asked at", () => {
  const cloud = new RemoteVisibility();
  test("github.com and gitlab.com by default, in every remote form", () => {
    for (const remote of [
      "https://github.com/acme/handbook",
      "https://github.com/acme/handbook.git",
      "https://x-access-token:secret@github.com/acme/handbook.git/",
      "git@github.com:acme/handbook.git",
      "ssh://git@github.com/acme/handbook.git",
      "ssh://git@github.com:22/acme/handbook.git",
      "HTTPS://GitHub.com/acme/handbook",
    ]) {
      expect([remote, cloud.apiUrlFor(remote)]).toEqual([remote, "https://api.github.com/repos/acme/handbook"]);
    }
    expect(cloud.apiUrlFor("https://gitlab.com/group/sub/docs.git")).toBe("https://gitlab.com/api/v4/projects/group%2Fsub%2Fdocs");
    expect(cloud.apiUrlFor("git@gitlab.com:group/docs.git")).toBe("https://gitlab.com/api/v4/projects/group%2Fdocs");
  });

  test("anything else is not asked", () => {
    for (const remote of [
      "https://bitbucket.org/acme/handbook.git",
      "https://github.com.evil.test/acme/handbook.git",
      "https://evilgithub.com/acme/handbook.git",
      "https://api.github.com/repos/acme/handbook",
      "https://github.com:8443/acme/handbook.git",
      "https://github.com/acme/handbook/tree/main",
      "https://github.com/acme",
      "https://github.com/acme/%2e%2e",
      "https://github.com/acme/handbook?x=1",
      "/srv/git/handbook.git",
      "file:///srv/git/handbook.git",
      "https://gitlab.com/group",
    ]) {
      expect([remote, cloud.apiUrlFor(remote)]).toEqual([remote, null]);
    }
  });

  test("a GitHub Enterprise or self-managed GitLab host follows the configured API", () => {
    const own = new RemoteVisibility({ githubApiUrl: "https://ghe.example.com/api/v3", gitlabApiUrl: "https://example.com/gitlab/api/v4", allowPrivate: false });
    expect(own.apiUrlFor("https://ghe.example.com/acme/handbook.git")).toBe("https://ghe.example.com/api/v3/repos/acme/handbook");
    expect(own.apiUrlFor("git@ghe.example.com:acme/handbook.git")).toBe("https://ghe.example.com/api/v3/repos/acme/handbook");
    expect(own.apiUrlFor("https://example.com/gitlab/group/docs.git")).toBe("https://example.com/gitlab/api/v4/projects/group%2Fdocs");
    expect(own.apiUrlFor("https://example.com/other/docs.git")).toBeNull();
    // Only the configured hosts: github.com is not asked when the API is an Enterprise Server's.
    expect(own.apiUrlFor("https://github.com/acme/handbook.git")).toBeNull();
    const dataResidency = new RemoteVisibility({ githubApiUrl: "https://api.octo.ghe.com", gitlabApiUrl: "https://gitlab.com/api/v4", allowPrivate: false });
    expect(dataResidency.apiUrlFor("https://octo.ghe.com/acme/handbook")).toBe("https://api.octo.ghe.com/repos/acme/handbook");
  });

  test("GITHUB_API_URL and GITLAB_API_URL: https, plain http only with GIT_ALLOWLIST_PRIVATE", () => {
    expect(loadConfig(TEST_ENV).git).toMatchObject({ githubApiUrl: "https://api.github.com", gitlabApiUrl: "https://gitlab.com/api/v4" });
    expect(loadConfig({ ...TEST_ENV, GITHUB_API_URL: "https://ghe.example.com/api/v3/" }).git.githubApiUrl).toBe("https://ghe.example.com/api/v3");
    expect(() => loadConfig({ ...TEST_ENV, GITLAB_API_URL: "http://gitlab.internal/api/v4" })).toThrow(
      'GITLAB_API_URL must be an https URL (http only with GIT_ALLOWLIST_PRIVATE=true) (got "http://gitlab.internal/api/v4")',
    );
    expect(() => loadConfig({ ...TEST_ENV, GITHUB_API_URL: "https://token@ghe.example.com/api/v3" })).toThrow(ConfigError);
    expect(loadConfig({ ...TEST_ENV, ...GIT_ENV, GITLAB_API_URL: "http://gitlab.internal/api/v4" }).git.gitlabApiUrl).toBe("http://gitlab.internal/api/v4");
  });
});
