import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join, posix } from "node:path";
import { tempDir } from "../../helpers/server.ts";
import { cliEnv, CLI, REPO, runCli, startServe } from "../../cli/spawn.ts";
import { GENERATED, SECRET_TITLE } from "../export/support.ts";

/** `quire preview` as a real process: it serves the site from the files, beside a running server too. */
let root: string;
let dataDir: string;

beforeAll(async () => {
  root = tempDir("quire-preview-cli-");
  dataDir = join(root, "data");
  const init = await runCli(["init", "--workspace-name", "Handbook", "--slug", "handbook", "--data-dir", dataDir]);
  expect(init.code).toBe(0);
  const id = /id ([0-9A-HJKMNP-TV-Z]{26})/.exec(init.stdout)![1]!;
  for (const [path, text] of Object.entries(GENERATED)) {
    mkdirSync(join(dataDir, "workspaces", id, posix.dirname(path)), { recursive: true });
    writeFileSync(join(dataDir, "workspaces", id, path), text);
  }
});

afterAll(() => rmSync(root, { recursive: true, force: true }));

async function startPreviewCli(args: string[]) {
  const proc = Bun.spawn([process.execPath, CLI, "preview", "-p", "0", "--data-dir", dataDir, ...args], { cwd: REPO, env: cliEnv(), stdout: "pipe", stderr: "pipe" });
  const reader = proc.stdout.getReader();
  let out = "";
  while (!out.includes("\n")) {
    const { value, done } = await reader.read();
    if (done) break;
    out += new TextDecoder().decode(value);
  }
  const url = /(http:\/\/127\.0\.0\.1:\d+\/)/.exec(out)?.[1];
  return { proc, url, out };
}

describe("quire preview", () => {
  test("serves published pages from the files (new files without records too), drafts only with --drafts, beside a running server", async () => {
    const serve = await startServe(dataDir);
    const plain = await startPreviewCli(["-w", "handbook"]);
    const drafts = await startPreviewCli(["-w", "handbook", "--drafts"]);
    try {
      expect(plain.url).toBeDefined();
      const home = await fetch(plain.url!);
      expect(home.status).toBe(200);
      expect(home.headers.get("content-security-policy")).toContain("script-src 'nonce-");
      expect(await home.text()).toContain("Documentation home");
      expect((await fetch(`${plain.url}reference/api`)).status).toBe(200);
      expect((await fetch(`${plain.url}media.md`)).headers.get("content-type")).toBe("text/markdown; charset=utf-8");
      const hidden = await fetch(`${plain.url}secret/plan`);
      expect(hidden.status).toBe(404);
      expect(await hidden.text()).not.toContain(SECRET_TITLE);
      expect((await fetch(`${plain.url}..%2f..%2fquire.db`)).status).toBe(404);
      const draft = await fetch(`${drafts.url}secret/plan`);
      expect(draft.status).toBe(200);
      expect(await draft.text()).toContain("not published");
    } finally {
      for (const p of [plain.proc, drafts.proc]) p.kill("SIGINT");
      expect(await plain.proc.exited).toBe(0);
      expect(await drafts.proc.exited).toBe(0);
      serve.proc.kill("SIGTERM");
      await serve.exited;
    }
  }, 30_000);

  test("bad input: unknown workspace (1), bad port (2)", async () => {
    const unknown = await runCli(["preview", "-w", "nope", "-p", "0", "--data-dir", dataDir]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('No workspace "nope"');
    const badPort = await runCli(["preview", "-w", "handbook", "-p", "99999", "--data-dir", dataDir]);
    expect(badPort.code).toBe(2);
  });
});
