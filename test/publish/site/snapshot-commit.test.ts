/**
 * A version snapshot is one git commit (docs/architecture.md §9 "new ids, one commit"): every published page
 * is copied through the ledger (new ids, records, search) and history gets exactly one commit
 * holding all the copies, named after the version and authored by the admin. A copy that fails
 * stops the snapshot without losing what was already written: those copies are in the one commit.
 */
import { OPEN } from "../../../src/access/restrictions/visibility.ts";
import { afterAll, beforeAll, expect, test } from "bun:test";
import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { startTestServer, type TestServer } from "../../helpers/server.ts";
import { registerUser, type TestUser } from "../../helpers/factories.ts";
import { git } from "../../helpers/git-remote.ts";
import { PENDING_MARKER } from "../../../src/git/history-queue.ts";
import { waitFor } from "../../git/support.ts";
import { publish, writePage } from "./support.ts";

let server: TestServer;
let owner: TestUser;
let dir: string;

const head = async () => (await git(["rev-parse", "HEAD"], { cwd: dir })).trim();
const commitsSince = async (from: string) => (await git(["rev-list", `${from}..HEAD`], { cwd: dir })).trim().split("\n").filter(Boolean);
const filesOf = async (oid: string) => (await git(["show", "--name-only", "--format=", oid], { cwd: dir })).trim().split("\n").filter(Boolean).sort();
const livePaths = (prefix: string) =>
  server.services.ledger.records
    .liveIn(owner.workspaceId)
    .map((r) => r.path)
    .filter((p) => p.startsWith(prefix))
    .sort();

beforeAll(async () => {
  server = await startTestServer();
  owner = await registerUser(server.url, { name: "Ada Admin", email: "ada@example.test" });
  dir = server.services.ledger.dir(owner.workspaceId).root;
  await publish(owner);
  for (const name of ["alpha", "beta", "gamma", "delta", "epsilon"]) await writePage(owner, `snap/${name}.md`, { title: name, body: `# ${name}\n\ntext of ${name}\n` });
  await server.services.gitSync.idle();
}, 30_000);
afterAll(() => server?.close());

test("a snapshot of N published pages is exactly one commit holding the N copies, named for the version, by the admin", async () => {
  const published = server.services.site.model(server.services.workspaces.byId(owner.workspaceId)!, null)!.pages.map((p) => p.rel);
  expect(published.length).toBeGreaterThanOrEqual(5);
  const before = await head();

  const r = await owner.client.post(`/api/v1/workspaces/${owner.workspaceId}/versions`, { slug: "v1", name: "Version 1", snapshot: true });
  expect(r.status).toBe(201);
  await server.services.gitSync.idle();

  const commits = await commitsSince(before);
  expect(commits).toHaveLength(1);
  const expected = published.map((rel) => `versions/v1/${rel}`).sort();
  expect(await filesOf(commits[0]!)).toEqual(expected);
  const [subject, author] = (await git(["show", "-s", "--format=%s%n%an <%ae>", commits[0]!], { cwd: dir })).trim().split("\n");
  expect(subject).toContain("Version 1");
  expect(subject).toContain("v1");
  expect(author).toBe("Ada Admin <ada@example.test>");
  // Still ledger writes: each copy has its own record with a new id, and search finds the copies.
  expect(livePaths("versions/v1/")).toEqual(expected);
  const ids = new Set(server.services.ledger.records.liveIn(owner.workspaceId).map((row) => row.id));
  expect(ids.size).toBe(server.services.ledger.records.liveIn(owner.workspaceId).length);
  const found = await owner.client.get(`/api/v1/workspaces/${owner.workspaceId}/search?q=epsilon`);
  expect(found.status).toBe(200);
  expect(JSON.stringify(found.body)).toContain("versions/v1/snap/epsilon.md");
});

test("a copy that fails stops the snapshot: no version, and the copies already written are all in one commit", async () => {
  const published = server.services.site
    .model(server.services.workspaces.byId(owner.workspaceId)!, null)!
    .pages.map((p) => p.rel)
    .filter((rel) => !rel.startsWith("versions/"));
  // A folder where the fourth copy would go: that copy is refused (something is already there).
  const blocked = published[3]!;
  mkdirSync(join(dir, "versions/v2", blocked), { recursive: true });
  const before = await head();

  const r = await owner.client.post(`/api/v1/workspaces/${owner.workspaceId}/versions`, { slug: "v2", name: "Version 2", snapshot: true });
  expect(r.status).toBe(409);
  expect((await owner.client.get(`/api/v1/workspaces/${owner.workspaceId}/versions/v2`)).status).toBe(404);
  await server.services.gitSync.idle();

  const copied = livePaths("versions/v2/");
  expect(copied).toEqual(published.slice(0, 3).map((rel) => `versions/v2/${rel}`).sort());
  const commits = await commitsSince(before);
  expect(commits).toHaveLength(1);
  expect(await filesOf(commits[0]!)).toEqual(copied);
});

test("while a group's writes are on disk and not yet handed to git, the crash marker stays (a crash is repaired at start)", async () => {
  const marker = join(dir, ".git", PENDING_MARKER);
  await server.services.gitSync.idle();
  await waitFor(() => !existsSync(marker), 5000, "the marker of the earlier commits to go");
  const before = await head();
  const ws = server.services.workspaces.byId(owner.workspaceId)!;
  const group = server.services.ledger.beginGroup(ws.id, "Import two pages");
  const access = { workspace: ws, role: "admin" as const, visibility: OPEN, actor: { id: owner.id, name: "Ada Admin" }, origin: "API" as const, group };
  expect(existsSync(marker)).toBe(true);
  await server.services.ledger.importPage(access, "grouped/one.md", "---\ntitle: One\n---\n\none\n");
  await Bun.sleep(1500); // past the index update that would otherwise remove the marker
  expect(existsSync(marker)).toBe(true);
  expect(await commitsSince(before)).toHaveLength(0);
  await server.services.ledger.importPage(access, "grouped/two.md", "---\ntitle: Two\n---\n\ntwo\n");
  server.services.ledger.endGroup(access, group);
  await server.services.gitSync.idle();
  const commits = await commitsSince(before);
  expect(commits).toHaveLength(1);
  expect(await filesOf(commits[0]!)).toEqual(["grouped/one.md", "grouped/two.md"]);
  await waitFor(() => !existsSync(marker), 5000, "the marker to go once the batch is committed");
});
