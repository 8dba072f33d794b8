/**
 * `quire serve` answers its first requests without loading what no request has needed yet
 * (docs/decisions/runtime-footprint.md): the composition root builds publishing, analytics,
 * billing, collaboration and external sign-in on first use, and the renderer, the MCP server and
 * the OpenID and WebAuthn libraries load with the first call that needs them (the web app's shell
 * names the sign-in providers, so the sign-in services themselves are built by then). The real command runs from source
 * with a preload that lists every module it loaded; the list after health, readiness, the web
 * app's shell and a registration must hold none of the modules below, and after a published-site
 * request it must hold the site's server, which shows the list sees lazily loaded modules at all.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { existsSync, readFileSync, rmSync } from "node:fs";
import { join, relative } from "node:path";
import { tempDir } from "../helpers/server.ts";
import { REPO, startServe } from "./spawn.ts";

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
  /^node_modules\/(mermaid|katex|prismjs|sanitize-html|openid-client|@simplewebauthn|@modelcontextprotocol|isomorphic-git|nodemailer)\//,
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

/** Asks the process for its list (SIGUSR2) and reads it. */
async function listNow(pid: number, file: string): Promise<string[]> {
  rmSync(file, { force: true });
  process.kill(pid, "SIGUSR2");
  for (let i = 0; i < 200 && !existsSync(file); i++) await Bun.sleep(10);
  return loaded(file);
}

test("serve answers health, readiness, the web app and a registration without the heavy modules; a site request loads the site's server", async () => {
  const list = join(dataDir, "..", `serve-loaded-${process.pid}-${Date.now()}.txt`);
  const serve = await startServe(dataDir, {
    cmd: [process.execPath, "--preload", join(REPO, "test/mcp/loaded-modules.ts"), join(REPO, "src/cli.ts")],
    env: { QUIRE_LOADED_MODULES: list },
  });
  try {
    expect((await fetch(`${serve.base}/api/health`)).status).toBe(200);
    expect((await fetch(`${serve.base}/api/ready`)).status).toBe(200);
    const shell = await fetch(`${serve.base}/`);
    await shell.arrayBuffer();
    expect(shell.status).toBe(200);
    const reg = await fetch(`${serve.base}/api/auth/register`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ name: "Imports", email: "imports@example.test", password: "a long enough password", terms_accepted: true }),
    });
    expect(reg.status).toBe(201);

    const atStart = await listNow(serve.pid, list);
    expect(atStart).toContain("src/services.ts");
    expect(heavy(atStart)).toEqual([]);

    await (await fetch(`${serve.base}/p/no-such-site/`)).arrayBuffer();
    const afterSite = await listNow(serve.pid, list);
    expect(afterSite).toContain("src/publish/site-server.ts");
    expect(heavy(afterSite).length).toBeGreaterThan(5);
  } finally {
    serve.proc.kill("SIGTERM");
    await serve.exited;
    rmSync(list, { force: true });
  }
}, 30_000);
