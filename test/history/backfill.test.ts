/**
 * The version index's two readers give the same index (docs/decisions/page-history.md §2): a
 * history with renames (by frontmatter id), merges, pushes from a second clone with its own
 * author and clock, deletions, dot-folders, mode changes and out-of-order author times is
 * backfilled once through one streaming `git log` and once through isomorphic-git, and every row
 * of the index is compared, then again after more commits arrive as new heads.
 */
import { afterAll, beforeAll, describe, expect, test, setDefaultTimeout } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync, chmodSync, unlinkSync, renameSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { openDatabase, migrate, type Db } from "../../src/db/database.ts";
import { silentLogger } from "../../src/core/log.ts";
import { VersionIndex } from "../../src/history/version-index.ts";
import { GitObjects } from "../../src/history/git-objects.ts";
import { NativeLog } from "../../src/history/native-log.ts";

setDefaultTimeout(60_000);

const WS = "01HZX3K8R2V6J9Q4T7W1Y5B0NC";
let root: string;
let clock = 1_700_000_000;

async function git(dir: string, args: string[], who = "Ada <ada@example.test>", at?: number) {
  const [, name, email] = /^(.*) <(.*)>$/.exec(who)!;
  const when = `${at ?? clock} +0000`;
  const proc = Bun.spawn(["git", ...args], {
    cwd: dir,
    env: { PATH: process.env.PATH!, HOME: root, GIT_CONFIG_NOSYSTEM: "1", GIT_AUTHOR_NAME: name!, GIT_AUTHOR_EMAIL: email!, GIT_COMMITTER_NAME: name!, GIT_COMMITTER_EMAIL: email!, GIT_AUTHOR_DATE: when, GIT_COMMITTER_DATE: when },
    stdout: "pipe",
    stderr: "pipe",
  });
  const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  if (code !== 0) throw new Error(`git ${args.join(" ")}: ${err}`);
  return out.trim();
}

const page = (id: string | null, title: string, body: string) => `${id ? `---\nid: ${id}\ntitle: ${title}\n---\n\n` : ""}${body}\n`;
function write(dir: string, path: string, text: string) {
  mkdirSync(dirname(join(dir, path)), { recursive: true });
  writeFileSync(join(dir, path), text);
}
async function commit(dir: string, message: string, who?: string, at?: number) {
  await git(dir, ["add", "-A"]);
  await git(dir, ["commit", "-q", "--allow-empty", "-m", message], who, at);
  clock += 7;
}

interface Indexed {
  db: Db;
  index: VersionIndex;
}
function indexOf(work: string, reader: "native" | "isomorphic" | "auto"): Indexed {
  const db = openDatabase(join(root, `${reader}-${Math.random().toString(36).slice(2)}.db`));
  migrate(db);
  db.exec("PRAGMA foreign_keys = OFF"); // no workspace row: the index needs only the id
  // `auto` switches to git's log after 3 commits here, so the switch happens inside this small history.
  return { db, index: new VersionIndex({ db, log: silentLogger, workTree: () => work, reader, smallRun: 3 }) };
}
const rows = (db: Db) => ({
  versions: db.query("SELECT * FROM page_versions ORDER BY workspace_id, commit_id, path").all(),
  commits: db.query("SELECT * FROM history_commits ORDER BY commit_id").all(),
  frontier: db.query("SELECT * FROM history_frontier ORDER BY commit_id").all(),
});

let work: string;
let ide: string;
let remote: string;

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), "quire-backfill-"));
  remote = join(root, "remote.git");
  work = join(root, "work");
  ide = join(root, "ide");
  mkdirSync(remote);
  await git(remote, ["init", "-q", "--bare", "-b", "main"]);
  mkdirSync(work);
  await git(work, ["init", "-q", "-b", "main"]);
  await git(work, ["remote", "add", "origin", remote]);

  write(work, "index.md", page("01HZX3K8R2V6J9Q4T7W1Y5B0AA", "Home", "# Home\n\nWelcome."));
  write(work, "guide/setup.md", page("01HZX3K8R2V6J9Q4T7W1Y5B0AB", "Setup", "Step one.\nStep two."));
  write(work, "notes.md", page(null, "", "A file pushed before it had an id."));
  write(work, ".quire/hidden.md", "not a page: a dot-folder\n");
  write(work, "assets/readme.txt", "not Markdown\n");
  await commit(work, "Initial commit via Quire");
  write(work, "index.md", page("01HZX3K8R2V6J9Q4T7W1Y5B0AA", "Home", "# Home\n\nWelcome, again.\nA second line."));
  await commit(work, "Update index.md via web editor");
  await git(work, ["push", "-q", "origin", "main"]);

  await git(root, ["clone", "-q", remote, ide]);
  // The IDE: its own author, a rename by id, a deletion, a mode change, a Markdown file in a dot-folder.
  renameSync(join(ide, "guide/setup.md"), join(ide, "guide/getting-started.md"));
  await commit(ide, "Rename setup", "Ide Person <ide@example.test>");
  unlinkSync(join(ide, "notes.md"));
  chmodSync(join(ide, "index.md"), 0o755);
  write(ide, ".github/template.md", "skipped\n");
  await commit(ide, "Drop notes", "Ide Person <ide@example.test>");
  write(ide, "guide/getting-started.md", page("01HZX3K8R2V6J9Q4T7W1Y5B0AB", "Getting started", "Step one.\nStep two, edited.\nStep three."));
  // A clock behind the server's: author times out of ancestry order.
  await commit(ide, "Edit getting started", "Ide Person <ide@example.test>", clock - 3600);
  await git(ide, ["push", "-q", "origin", "main"]);

  // Meanwhile the server's clone saves on its own, then pulls with a merge.
  write(work, "index.md", page("01HZX3K8R2V6J9Q4T7W1Y5B0AA", "Home", "# Home\n\nWelcome, again.\nA second line.\nA third."));
  await commit(work, "Update index.md via API");
  write(work, "guide/new.md", page("01HZX3K8R2V6J9Q4T7W1Y5B0AC", "New", "Fresh."));
  await commit(work, "Create guide/new.md via MCP", "Ada <ada@example.test>", clock - 7); // the same second as the one before
  await git(work, ["pull", "-q", "--no-rebase", "--no-edit", "origin", "main"]);
  clock += 7;
  // A page moved to a folder and edited in one commit, another deleted, a file that is not UTF-8.
  mkdirSync(join(work, "archive"), { recursive: true });
  renameSync(join(work, "guide/new.md"), join(work, "archive/new.md"));
  write(work, "archive/new.md", page("01HZX3K8R2V6J9Q4T7W1Y5B0AC", "New", "Fresh.\nMoved and edited."));
  unlinkSync(join(work, "index.md"));
  writeFileSync(join(work, "latin.md"), Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a]));
  await commit(work, "Move and delete via web editor\n\nWith a body\nof two lines.");
  await git(work, ["push", "-q", "origin", "main"]);
});

afterAll(() => {
  rmSync(root, { recursive: true, force: true });
});

async function backfill(reader: "native" | "isomorphic" | "auto"): Promise<Indexed> {
  const x = indexOf(work, reader);
  await x.index.catchUp(WS);
  await x.index.idle(WS);
  return x;
}

describe("backfill: native git log and isomorphic-git", () => {
  test("the native reader answers as isomorphic-git for every commit", async () => {
    const objects = new GitObjects(work);
    const head = await git(work, ["rev-parse", "HEAD"]);
    const native = NativeLog.open(new GitObjects(work), [head]);
    expect(native).not.toBeNull();
    try {
      const all = (await git(work, ["rev-list", "--all"])).split("\n");
      expect(all.length).toBeGreaterThan(8);
      for (const oid of all) {
        const a = await objects.commit(oid);
        const b = await native!.commit(oid);
        expect(b).toEqual(a);
        if (a!.parents.length > 1) continue;
        const byPath = <T extends { path: string }>(x: T[]) => x.sort((p, q) => (p.path < q.path ? -1 : 1));
        const changes = byPath(await native!.changes(b!));
        expect(changes).toEqual(byPath(await objects.changes(a!)));
        for (const c of changes) for (const blob of [c.before, c.after]) if (blob) expect(await native!.blob(blob)).toEqual(await objects.blob(blob));
      }
      expect(await native!.commit("0".repeat(40))).toBeNull();
    } finally {
      native!.close();
    }
  });

  test("every reader writes the same rows (auto: isomorphic-git for the first commits, then git's log)", async () => {
    const a = await backfill("native");
    const b = await backfill("isomorphic");
    const c = await backfill("auto");
    const ra = rows(a.db);
    expect(ra.versions.length).toBeGreaterThan(8);
    expect(ra.versions).toContainEqual(expect.objectContaining({ change: "renamed", path: "guide/getting-started.md", old_path: "guide/setup.md" }));
    expect(ra.versions).toContainEqual(expect.objectContaining({ change: "renamed", path: "archive/new.md", old_path: "guide/new.md", author_name: "Ada" }));
    expect(ra.versions).toContainEqual(expect.objectContaining({ change: "deleted", path: "notes.md", author_email: "ide@example.test" }));
    expect(ra.versions.some((v: any) => v.path.startsWith(".") || v.path.endsWith(".txt"))).toBe(false);
    expect(ra.versions).toEqual(rows(b.db).versions);
    expect(ra.commits).toEqual(rows(b.db).commits);
    expect(rows(c.db)).toEqual(ra);
    expect(ra.frontier).toEqual([]);

    // New heads afterwards (a save, then a pull with a merge): read by each the same way.
    write(ide, "guide/getting-started.md", page("01HZX3K8R2V6J9Q4T7W1Y5B0AB", "Getting started", "Step one, from the IDE again."));
    await git(ide, ["pull", "-q", "--no-rebase", "origin", "main"]);
    await commit(ide, "IDE edit", "Ide Person <ide@example.test>");
    await git(ide, ["push", "-q", "origin", "main"]);
    write(work, "archive/new.md", page("01HZX3K8R2V6J9Q4T7W1Y5B0AC", "New", "Edited on the server."));
    await commit(work, "Update archive/new.md via web editor");
    const saved = await git(work, ["rev-parse", "HEAD"]);
    for (const x of [a, b, c]) x.index.committed(WS, saved);
    for (const x of [a, b, c]) await x.index.idle(WS);
    await git(work, ["pull", "-q", "--no-rebase", "--no-edit", "origin", "main"]);
    const merged = await git(work, ["rev-parse", "HEAD"]);
    for (const x of [a, b, c]) x.index.committed(WS, merged);
    for (const x of [a, b, c]) await x.index.idle(WS);
    const after = rows(a.db);
    expect(after.versions.length).toBe(ra.versions.length + 2);
    expect(after).toEqual(rows(b.db));
    expect(after).toEqual(rows(c.db));
    for (const x of [a, b, c]) {
      await x.index.stop();
      x.db.close();
    }
  });

  test("a shallow clone is read by isomorphic-git (git log would show its edge without parents)", async () => {
    const shallow = join(root, "shallow");
    await git(root, ["clone", "-q", "--depth", "2", `file://${remote}`, shallow]);
    const head = await git(shallow, ["rev-parse", "HEAD"]);
    expect(NativeLog.open(new GitObjects(shallow), [head])).toBeNull();
    const a = indexOf(shallow, "native");
    const b = indexOf(shallow, "isomorphic");
    for (const x of [a, b]) {
      await x.index.catchUp(WS);
      await x.index.idle(WS);
    }
    expect(rows(a.db)).toEqual(rows(b.db));
    for (const x of [a, b]) {
      await x.index.stop();
      x.db.close();
    }
  });
});
