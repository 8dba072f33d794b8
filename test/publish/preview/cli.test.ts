import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { chmodSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
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

describe("quire preview: a page that fails", () => {
  test("a page file that cannot be read shows the error in place (500) and the preview keeps serving", async () => {
    // A real failure: the file's permissions. Root reads any file, so as root the preview runs as
    // `nobody` (the data directory is opened up for it first).
    const own = tempDir("quire-preview-fail-");
    const data = join(own, "data");
    const init = await runCli(["init", "--workspace-name", "Handbook", "--slug", "handbook", "--data-dir", data]);
    expect(init.code).toBe(0);
    const id = /id ([0-9A-HJKMNP-TV-Z]{26})/.exec(init.stdout)![1]!;
    const page = join(data, "workspaces", id, "locked.md");
    writeFileSync(page, "---\ntitle: Locked away\npublish: true\n---\n\nNever shown.\n");
    writeFileSync(join(data, "workspaces", id, "open.md"), "---\ntitle: Open page\npublish: true\n---\n\nReadable.\n");
    const asRoot = process.getuid?.() === 0;
    const home = join(own, "home");
    mkdirSync(home);
    if (asRoot) Bun.spawnSync(["chmod", "-R", "a+rwX", own]);
    chmodSync(page, 0o000);
    const cmd = [process.execPath, CLI, "preview", "-w", "handbook", "-p", "0", "--data-dir", data];
    const proc = Bun.spawn(asRoot ? ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", ...cmd] : cmd, {
      cwd: REPO,
      env: cliEnv({ HOME: home }),
      stdout: "pipe",
      stderr: "pipe",
    });
    try {
      const reader = proc.stdout.getReader();
      let out = "";
      while (!out.includes("\n")) {
        const { value, done } = await reader.read();
        if (done) break;
        out += new TextDecoder().decode(value);
      }
      const url = /(http:\/\/127\.0\.0\.1:\d+\/)/.exec(out)?.[1];
      expect(url).toBeDefined();
      const failed = await fetch(`${url}locked`);
      expect(failed.status).toBe(500);
      expect(failed.headers.get("content-security-policy")).toContain("script-src 'nonce-");
      const html = await failed.text();
      expect(html).toContain("This page could not be rendered");
      expect(html).toContain("<code>locked.md</code>");
      expect(html).toContain("EACCES");
      expect(html).toContain(`src="/_quire/preview.js"`); // fixing the file reloads the tab
      expect(html).not.toContain("Never shown");
      // Still serving: the other pages, and the failed one once it can be read again.
      const other = await fetch(`${url}open`);
      expect(other.status).toBe(200);
      expect(await other.text()).toContain(`href="/locked"`); // listed in the navigation under its file name
      chmodSync(page, 0o644);
      const fixed = await fetch(`${url}locked`);
      expect(fixed.status).toBe(200);
      expect(await fixed.text()).toContain("Never shown");
    } finally {
      proc.kill("SIGINT");
      await proc.exited;
      rmSync(own, { recursive: true, force: true });
    }
  }, 30_000);
});
