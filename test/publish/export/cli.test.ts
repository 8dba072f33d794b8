import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join, posix } from "node:path";
import { tempDir } from "../../helpers/server.ts";
import { runCli, startServe } from "../../cli/spawn.ts";
import { GENERATED, linkProblems, PNG, SECRET_TITLE, unzip } from "./support.ts";

/**
 * `quire export` driven as a real process: with no server (it takes the data directory's lock),
 * beside a running `quire serve` (it reads; the same bytes come out), and with bad input.
 */
let root: string;
let dataDir: string;
let id: string;

beforeAll(async () => {
  root = tempDir("quire-export-cli-");
  dataDir = join(root, "data");
  const init = await runCli(["init", "--workspace-name", "Handbook", "--slug", "handbook", "--data-dir", dataDir]);
  expect(init.code).toBe(0);
  id = /id ([0-9A-HJKMNP-TV-Z]{26})/.exec(init.stdout)![1]!;
  const dir = join(dataDir, "workspaces", id);
  for (const [path, text] of Object.entries(GENERATED)) {
    mkdirSync(join(dir, posix.dirname(path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  mkdirSync(join(dir, "assets"), { recursive: true });
  writeFileSync(join(dir, "assets/logo.png"), PNG);
  writeFileSync(join(dir, "assets/shot.png"), PNG);
  expect((await runCli(["rebuild", "-w", id, "--data-dir", dataDir])).code).toBe(0);
});

afterAll(() => rmSync(root, { recursive: true, force: true }));

const exportTo = (file: string, extra: string[] = []) => runCli(["export", "-w", id, "-o", file, "--data-dir", dataDir, ...extra]);

describe("quire export", () => {
  test("with no server running: writes the ZIP and --json prints {file, pages, bytes, ms}; a second run gives the same bytes", async () => {
    const first = await exportTo(join(root, "one.zip"), ["--json"]);
    expect(first.code).toBe(0);
    const summary = JSON.parse(first.stdout);
    expect(Object.keys(summary).sort()).toEqual(["bytes", "file", "ms", "pages"]);
    expect(summary.file).toBe(join(root, "one.zip"));
    expect(summary.pages).toBe(Object.keys(GENERATED).length - 1); // the unpublished page is not exported
    const bytes = readFileSync(join(root, "one.zip"));
    expect(summary.bytes).toBe(bytes.length);
    const files = unzip(bytes);
    expect(linkProblems(files)).toEqual([]);
    expect([...files.values()].some((b) => new TextDecoder().decode(b).includes(SECRET_TITLE))).toBe(false);

    const second = await exportTo(join(root, "two.zip"), ["--threads", "2"]); // worker threads: the same bytes
    expect(second.code).toBe(0);
    expect(second.stdout).toMatch(/^Exported 5 page\(s\) to .*two\.zip \(.+\) in \d+ ms\n$/);
    expect(Buffer.compare(readFileSync(join(root, "two.zip")), bytes)).toBe(0);
  }, 60_000);

  test("the default file name is <site-slug>-export.zip in the working directory", async () => {
    const cwd = join(root, "cwd");
    mkdirSync(cwd);
    const res = await runCli(["export", "-w", id, "--data-dir", dataDir], { cwd });
    expect(res.code).toBe(0);
    expect(existsSync(join(cwd, "handbook-export.zip"))).toBe(true);
  }, 60_000);

  test("beside a running server: reads without writing and gives the same bytes", async () => {
    const serve = await startServe(dataDir);
    try {
      const res = await exportTo(join(root, "three.zip"));
      expect(res.stderr).toBe("");
      expect(res.code).toBe(0);
      expect(Buffer.compare(readFileSync(join(root, "three.zip")), readFileSync(join(root, "one.zip")))).toBe(0);
    } finally {
      serve.proc.kill("SIGTERM");
      expect(await serve.exited).toBe(0);
    }
  }, 60_000);

  test("bad input: invalid --base-url, --threads or workspace id (2), unknown workspace (1), unwritable output (1), output inside the data directory (2)", async () => {
    const badUrl = await exportTo(join(root, "x.zip"), ["--base-url", "ftp://example.com/"]);
    expect(badUrl.code).toBe(2);
    expect(badUrl.stderr).toContain("--base-url must be an absolute http(s) URL");
    const badThreads = await exportTo(join(root, "x.zip"), ["--threads", "-1"]);
    expect(badThreads.code).toBe(2);
    expect(badThreads.stderr).toContain("--threads must be a whole number from 0 to 64");
    const badId = await runCli(["export", "-w", "handbook", "--data-dir", dataDir]);
    expect(badId.code).toBe(2);
    expect(badId.stderr).toContain("--workspace must be a workspace id (ULID)");
    const unknown = await runCli(["export", "-w", "01ARZ3NDEKTSV4RRFFQ69G5FAV", "--data-dir", dataDir]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain("No workspace with id 01ARZ3NDEKTSV4RRFFQ69G5FAV");
    const unwritable = await exportTo(join(root, "no-such-folder", "x.zip"));
    expect(unwritable.code).toBe(1);
    expect(unwritable.stderr).toContain("cannot write");
    expect(existsSync(join(root, "no-such-folder"))).toBe(false);
    const inside = await exportTo(join(dataDir, "x.zip"));
    expect(inside.code).toBe(2);
    expect(inside.stderr).toContain("outside the data directory");
    expect(existsSync(join(dataDir, "x.zip"))).toBe(false);
  }, 60_000);
});
