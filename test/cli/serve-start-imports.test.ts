/**
 * `quire serve` answers its first requests without loading what no request has needed yet
 * (docs/decisions/runtime-footprint.md): the composition root builds publishing, analytics,
 * billing, collaboration and external sign-in on first use, and the renderer, the MCP server and
 * the OpenID and WebAuthn libraries load with the first call that needs them (the web app's shell
 * names the sign-in providers, so the sign-in services themselves are built by then). The real command runs from source
 * with a preload that lists every module it loaded; the list after health, readiness and the web
 * app's shell must hold none of the modules below, nor after a registration but for the git library
 * (the starter workspace's first commit), and after a published-site
 * request it must hold the site's server, which shows the list sees lazily loaded modules at all.
 * No request schema (lazyInput) is built before a request of its kind, and no answer schema
 * (lazyOutput) before the OpenAPI document is first asked for, which builds them all.
 * A restart on that data directory, whose workspace now has commits, must not load the git
 * library either: the page-history index asks every workspace for its HEAD at start, and reads it
 * from the ref files; and a sign-in there checks the password without loading the native argon2
 * addon.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { existsSync, readFileSync, rmSync } from "node:fs";
import { join, relative } from "node:path";
import { openReadOnly } from "../../src/db/database.ts";
import { tempDir } from "../helpers/server.ts";
import { REPO, startServe, waitFor } from "./spawn.ts";

/** Loaded only once a request needs them: each is a path (from the repository) a start must not load. */
const NOT_AT_START = [
  /^src\/publish\/(site-server|services)\.ts$/,
  /^src\/publish\/(render\/(?!cache\.ts$)|quality\/|export\/|preview\/)/,
  /^src\/publish\/site\/(render-page|feeds|site-assets|vendor)\.ts$/,
  /^src\/analytics\/(?!input\.ts$|schemas\.ts$)/,
  /^src\/billing\/(?!schemas\.ts$|personal-data\.ts$)/,
  /^src\/identity\/account-deletion\.ts$/,
  /^src\/collab\/(services|comments|people|templates|mentions|activity-writer)\.ts$/,
  /^src\/mcp\/(?!http\.ts$)/,
  /(^|\/)node_modules\/(mermaid|katex|prismjs|sanitize-html|openid-client|@simplewebauthn|@modelcontextprotocol|isomorphic-git|nodemailer)\//,
];

let dataDir: string;
beforeAll(() => {
  dataDir = tempDir("quire-serve-imports-");
});
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

const loaded = (file: string): string[] =>
  readFileSync(file, "utf8")
    .split("\n")
    .filter((l) => l !== "")
    .map((p) => relative(REPO, p));

const heavy = (modules: string[]) => modules.filter((m) => NOT_AT_START.some((re) => re.test(m)));
/** isomorphic-git's one CommonJS file (test/mcp/loaded-modules.ts lists `require.cache` too). */
const GIT_LIBRARY = /(^|\/)node_modules\/isomorphic-git\//;

/** @node-rs/argon2 (its loader and the native binding it picks). */
const ARGON2_ADDON = /(^|\/)node_modules\/@node-rs\/argon2/;

/** Asks the process for its list (SIGUSR2) and reads it. */
async function listNow(pid: number, file: string): Promise<string[]> {
  rmSync(file, { force: true });
  process.kill(pid, "SIGUSR2");
  for (let i = 0; i < 200 && !existsSync(file); i++) await Bun.sleep(10);
  return loaded(file);
}

test("serve answers health, readiness, the web app and a registration without the heavy modules; a site request loads the site's server", async () => {
  const list = join(dataDir, "..", `serve-loaded-${process.pid}-${Date.now()}.txt`);
  const built = `${list}.schemas`;
  const serve = await startServe(dataDir, {
    cmd: [process.execPath, "--preload", join(REPO, "test/mcp/loaded-modules.ts"), join(REPO, "src/cli.ts")],
    env: { QUIRE_LOADED_MODULES: list, QUIRE_BUILT_SCHEMAS: built },
  });
  try {
    expect((await fetch(`${serve.base}/api/health`)).status).toBe(200);
    expect((await fetch(`${serve.base}/api/ready`)).status).toBe(200);
    const shell = await fetch(`${serve.base}/`);
    await shell.arrayBuffer();
    expect(shell.status).toBe(200);
    // Nothing heavy before the first registration, the git library included.
    expect(heavy(await listNow(serve.pid, list))).toEqual([]);
    // Nor any of the domains' schemas: no request has been validated yet, and the answer schemas
    // only describe answers. The page tree's node is the one exception: it refers to itself (and
    // defers its children on its own).
    expect(loaded(built)).toEqual(["src/content/schemas.ts: treeNodeOutput"]);
    const reg = await fetch(`${serve.base}/api/auth/register`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ name: "Imports", email: "imports@example.test", password: "a long enough password", terms_accepted: true }),
    });
    expect(reg.status).toBe(201);

    const atStart = await listNow(serve.pid, list);
    expect(atStart).toContain("src/services.ts");
    // A registration creates the person's starter workspace, whose first commit may load the git library by now.
    expect(heavy(atStart).filter((m) => !GIT_LIBRARY.test(m))).toEqual([]);
    // The registration built the request schema it was validated with, and no answer schema;
    // the schemas of requests nobody has made are still not built.
    const afterRegistration = loaded(built);
    expect(afterRegistration).toContain("src/identity/schemas.ts: registerInput");
    expect(afterRegistration.filter((s) => s.endsWith("Output"))).toEqual(["src/content/schemas.ts: treeNodeOutput"]);
    expect(afterRegistration).not.toContain("src/content/schemas.ts: createPageInput");
    // The OpenAPI document is generated from every route's request and answer schemas.
    expect((await fetch(`${serve.base}/api/openapi.json`)).status).toBe(200);
    await listNow(serve.pid, list);
    expect(loaded(built)).toEqual(expect.arrayContaining(["src/identity/schemas.ts: meOutput", "src/content/schemas.ts: createPageInput"]));

    await (await fetch(`${serve.base}/p/no-such-site/`)).arrayBuffer();
    const afterSite = await listNow(serve.pid, list);
    expect(afterSite).toContain("src/publish/site-server.ts");
    expect(heavy(afterSite).length).toBeGreaterThan(5);
  } finally {
    serve.proc.kill("SIGTERM");
    await serve.exited;
    rmSync(list, { force: true });
    rmSync(built, { force: true });
  }
}, 30_000);

test("a restart on a data directory whose workspace has commits does not load the git library; a save does", async () => {
  // The first test registered a starter workspace. A plain start reads its history up to HEAD
  // (which loads the git library, for reading commits), so the measured restart has nothing to read.
  const first = await startServe(dataDir);
  try {
    const db = openReadOnly(join(dataDir, "quire.db"));
    try {
      const { id } = db.query<{ id: string }, []>("SELECT id FROM workspaces WHERE deleted_at IS NULL").get()!;
      const head = Bun.spawnSync(["git", "rev-parse", "HEAD"], { cwd: join(dataDir, "workspaces", id) }).stdout.toString().trim();
      expect(head).toMatch(/^[0-9a-f]{40}$/);
      const read = db.query<{ n: number }, [string, string]>("SELECT COUNT(*) AS n FROM history_commits WHERE workspace_id = ? AND commit_id = ?");
      await waitFor(() => read.get(id, head)!.n === 1, 15_000);
    } finally {
      db.close();
    }
  } finally {
    first.proc.kill("SIGTERM");
    await first.exited;
  }
  const list = join(dataDir, "..", `serve-restart-loaded-${process.pid}-${Date.now()}.txt`);
  const serve = await startServe(dataDir, {
    cmd: [process.execPath, "--preload", join(REPO, "test/mcp/loaded-modules.ts"), join(REPO, "src/cli.ts")],
    env: { QUIRE_LOADED_MODULES: list },
  });
  try {
    expect((await fetch(`${serve.base}/api/health`)).status).toBe(200);
    // The catch-up is queued at start; give it time to have asked for HEAD.
    for (let i = 0; i < 10; i++) {
      expect((await listNow(serve.pid, list)).filter((m) => GIT_LIBRARY.test(m))).toEqual([]);
      await Bun.sleep(100);
    }
    expect(await listNow(serve.pid, list)).toContain("src/history/version-index.ts");

    const login = await fetch(`${serve.base}/api/auth/login`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email: "imports@example.test", password: "a long enough password" }),
    });
    expect(login.status).toBe(200);
    // Checking a password uses the runtime's argon2; the native addon loads only to hash a new one.
    expect((await listNow(serve.pid, list)).filter((m) => ARGON2_ADDON.test(m))).toEqual([]);
    const token = ((await login.json()) as { access_token: string }).access_token;
    const auth = { authorization: `Bearer ${token}` };
    const { items: [ws] } = (await (await fetch(`${serve.base}/api/v1/workspaces`, { headers: auth })).json()) as { items: Array<{ slug: string }> };
    const saved = await fetch(`${serve.base}/api/v1/content/${ws!.slug}/restart-note.md`, {
      method: "PUT",
      headers: { ...auth, "content-type": "application/json" },
      body: JSON.stringify({ body: "# Restart note\n", frontmatter: { title: "Restart note" } }),
    });
    expect([saved.status, saved.status < 300 ? "" : await saved.text()]).toEqual([201, ""]);
    // The commit behind the save loads it: the list would see the library if it were loaded.
    let gitLoaded = false;
    for (let i = 0; i < 150 && !gitLoaded; i++) {
      gitLoaded = (await listNow(serve.pid, list)).some((m) => GIT_LIBRARY.test(m));
      if (!gitLoaded) await Bun.sleep(100);
    }
    expect(gitLoaded).toBe(true);
  } finally {
    serve.proc.kill("SIGTERM");
    await serve.exited;
    rmSync(list, { force: true });
  }
}, 45_000);
