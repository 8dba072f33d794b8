/**
 * `quire mcp` answers the handshake and tools/list before it loads what no tool has needed yet
 * (docs/architecture.md §11: start → tools/list < 300 ms). The real command runs from source with a preload
 * that lists every module it loaded; the list after tools/list must hold none of the heavy parts
 * (the services, HTTP, git, search, publishing, sign-in), and after a tool call it must hold them,
 * which shows the list sees lazily loaded modules at all. Services that cannot be built end the
 * process as they did when they were built at start.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { startTestServer } from "../helpers/server.ts";
import { registerUser, type TestUser } from "../helpers/factories.ts";
import { CLI, REPO, cliEnv } from "../cli/spawn.ts";
import { createKey } from "./fixture.ts";

/** Loaded only once a call needs them: each is a path (from the repository) a start must not load. */
const NOT_AT_START = [
  /^src\/services\.ts$/,
  /^src\/http\//,
  /^src\/web\//,
  /^src\/realtime\//,
  /^src\/publish\/(?!schemas\.ts$)/,
  /^src\/git\/(?!schemas\.ts$|remote-token\.ts$)/,
  /^src\/identity\/(?!api-keys\.ts$|api-key-setup\.ts$|users\.ts$|schemas\.ts$)/,
  /^src\/search\/(?!schemas\.ts$)/,
  /^src\/content\/(ledger|reconcile|file-watcher|uploads|agent-pages|frontmatter)\.ts$/,
  /^src\/ops\/(?!instance-lock\.ts$|runstate\.ts$)/,
  /^src\/(analytics|billing|mail|webhooks)\//,
  /^node_modules\/(isomorphic-git|mermaid|katex|elysia|openid-client|@simplewebauthn|marked|prismjs|sanitize-html|jose|fflate)\//,
];

let dataDir: string;
let owner: TestUser;
let key: string;

beforeAll(async () => {
  const server = await startTestServer({}, { keepDir: true });
  owner = await registerUser(server.url);
  key = (await createKey(owner, ["read", "write", "delete"])).key;
  dataDir = server.dataDir;
  await server.close();
});
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

function loaded(file: string): string[] {
  return readFileSync(file, "utf8")
    .split("\n")
    .filter((l) => l !== "")
    .map((p) => relative(REPO, p));
}

const heavy = (modules: string[]) => modules.filter((m) => NOT_AT_START.some((re) => re.test(m)));

/** `quire mcp` from source with line-by-line JSON-RPC on its pipes. */
function spawnMcp(env: Record<string, string>, preload = false) {
  const proc = Bun.spawn([process.execPath, ...(preload ? ["--preload", join(import.meta.dir, "loaded-modules.ts")] : []), CLI, "mcp", "-w", owner.workspaceSlug], {
    cwd: REPO,
    env: cliEnv({ DATA_DIR: dataDir, QUIRE_API_KEY: key, ...env }),
    stdin: "pipe",
    stdout: "pipe",
    stderr: "pipe",
  });
  const reader = proc.stdout.getReader();
  const decoder = new TextDecoder();
  let buffered = "";
  const answer = async (id: number): Promise<any> => {
    for (;;) {
      const nl = buffered.indexOf("\n");
      if (nl >= 0) {
        const message = JSON.parse(buffered.slice(0, nl));
        buffered = buffered.slice(nl + 1);
        if (message.id === id) return message;
        continue;
      }
      const { value, done } = await reader.read();
      if (done) return null;
      buffered += decoder.decode(value);
    }
  };
  const send = (message: object) => {
    proc.stdin.write(JSON.stringify({ jsonrpc: "2.0", ...message }) + "\n");
    proc.stdin.flush();
  };
  return { proc, answer, send };
}

test("the handshake and tools/list load none of the heavy modules; the first tool call loads the services", async () => {
  const list = join(dataDir, "..", `loaded-${process.pid}-${Date.now()}.txt`);
  const { proc, answer, send } = spawnMcp({ QUIRE_LOADED_MODULES: list }, true);

  send({ id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "test", version: "1" } } });
  expect((await answer(1)).result.serverInfo.name).toBe("quire");
  send({ method: "notifications/initialized" });
  send({ id: 2, method: "tools/list" });
  expect((await answer(2)).result.tools).toHaveLength(30);

  proc.kill("SIGUSR2");
  for (let i = 0; i < 200 && !existsSync(list); i++) await Bun.sleep(10);
  const atStart = loaded(list);
  expect(atStart).toContain("src/mcp/server.ts");
  expect(heavy(atStart)).toEqual([]);

  send({ id: 3, method: "tools/call", params: { name: "quire_list_pages", arguments: {} } });
  const called = await answer(3);
  expect(called.result.isError).toBeUndefined();
  expect(called.result.structuredContent.items.length).toBeGreaterThan(0);
  proc.stdin.end();
  expect(await proc.exited).toBe(0);
  const afterCall = loaded(list);
  expect(afterCall).toContain("src/services.ts");
  expect(heavy(afterCall).length).toBeGreaterThan(10);
  rmSync(list, { force: true });
}, 30_000);

test("services that cannot be built at the first call end the process with exit 1 and the reason, after a handshake that needed none", async () => {
  const badKey = join(dataDir, "..", `bad-signing-key-${process.pid}.pem`);
  writeFileSync(badKey, "not a PEM key\n");
  const { proc, answer, send } = spawnMcp({ JWT_KEY_PATH: badKey });
  send({ id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "test", version: "1" } } });
  expect((await answer(1)).result.serverInfo.name).toBe("quire");
  send({ id: 2, method: "tools/list" });
  expect((await answer(2)).result.tools).toHaveLength(30);
  send({ id: 3, method: "tools/call", params: { name: "quire_list_pages", arguments: {} } });
  const called = await answer(3);
  // The call is answered as failed if the process was still there to answer it; either way it ends.
  if (called !== null) expect(called.result.isError).toBe(true);
  expect(await proc.exited).toBe(1);
  expect(await new Response(proc.stderr).text()).toContain("could not start the MCP server");
  rmSync(badKey, { force: true });
}, 30_000);
