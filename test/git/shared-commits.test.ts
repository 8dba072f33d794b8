/**
 * Saves that wait for the git worker share commits, one author per commit: three people saving the
 * same four pages from thirty connections at once. Every commit holds only its author's versions
 * (each file's blob says who wrote it), the history ends at exactly what the files hold, and every
 * save is listed in the message of the commit that carries it. The grouping rule itself is
 * checked on its own below (order kept per file, never mixed authors).
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { registerUser, type TestUser } from "../helpers/factories.ts";
import { git } from "../helpers/git-remote.ts";
import { groupByAuthor, sharedMessage } from "../../src/git/history-queue.ts";
import { GIT_ENV } from "./support.ts";

let server: TestServer;
let people: TestUser[];
beforeAll(async () => {
  server = await startTestServer(GIT_ENV);
  people = [
    await registerUser(server.url, { name: "Alice", email: "alice@example.test" }),
    await registerUser(server.url, { name: "Bram", email: "bram@example.test" }),
    await registerUser(server.url, { name: "Chen", email: "chen@example.test" }),
  ];
  for (const p of people.slice(1)) {
    server.services.db.query("INSERT INTO workspace_members (workspace_id, user_id, role, joined_at) VALUES (?, ?, 'editor', ?)").run(people[0]!.workspaceId, p.id, new Date().toISOString());
  }
});
afterAll(() => server.close());

test("a burst from three people: commits never mix authors, HEAD ends at the files, every save is named", async () => {
  const owner = people[0]!;
  const dir = server.services.ledger.dir(owner.workspaceId).root;
  const hashes = new Map<string, string>();
  for (let k = 0; k < 4; k++) {
    const r = await owner.client.post(`/api/v1/content/${owner.workspaceSlug}/shared/page-${k}`, { title: `Page ${k}`, body: "start\n" });
    expect(r.status).toBe(201);
    hashes.set(`shared/page-${k}.md`, r.body.content_hash);
  }
  await server.services.gitSync.idle();
  const start = (await git(["rev-parse", "HEAD"], { cwd: dir })).trim();
  let next = 0;
  let sent = 0;
  await Promise.all(
    Array.from({ length: 30 }, async (_, c) => {
      const who = people[c % 3]!;
      for (;;) {
        const i = next++;
        if (i >= 150) return;
        const path = `shared/page-${i % 4}.md`;
        // Read–modify–write as an editor does: a 409 names the current hash, and the save is retried.
        for (let attempt = 0; ; attempt++) {
          if (++sent % 20 === 0) server.services.rateLimiter.reset(); // 60 writes a minute per organization otherwise
          const r = await who.client.put(`/api/v1/content/${owner.workspaceSlug}/${path}`, { body: `by ${who.name} #${i}\n`, lastKnownHash: hashes.get(path) });
          if (r.status === 200) {
            hashes.set(path, r.body.content_hash);
            break;
          }
          expect(r.status).toBe(409);
          hashes.set(path, r.body.current_hash ?? r.body.details?.current_hash);
          expect(attempt).toBeLessThan(200);
        }
      }
    }),
  );
  await server.services.gitSync.idle();
  const commits = (await git(["rev-list", "--reverse", `${start}..HEAD`], { cwd: dir })).trim().split("\n");
  let named = 0;
  for (const c of commits) {
    const author = (await git(["show", "-s", "--format=%an", c], { cwd: dir })).trim();
    const message = await git(["show", "-s", "--format=%B", c], { cwd: dir });
    named += message.split("\n").filter((l) => /^Update shared\/page-\d\.md via web editor$/.test(l)).length;
    for (const path of (await git(["show", "--format=", "--name-only", c], { cwd: dir })).trim().split("\n")) {
      expect((await git(["show", `${c}:${path}`], { cwd: dir })).startsWith("---")).toBe(true);
      expect(await git(["show", `${c}:${path}`], { cwd: dir })).toContain(`by ${author} #`);
    }
  }
  expect(named).toBe(150);
  for (let k = 0; k < 4; k++) {
    const file = await Bun.file(`${dir}/shared/page-${k}.md`).text();
    expect(await git(["show", `HEAD:shared/page-${k}.md`], { cwd: dir })).toBe(file);
  }
  console.log(`150 saves from 3 people: ${commits.length} commits`);
}, 60_000);

test("the grouping rule: an author's later save joins only past other authors' saves of other files", () => {
  const save = (who: string, path: string, n: number) => ({ author: { name: who, email: `${who}@x` }, files: [{ path, data: String(n) }], n });
  const saves = [save("a", "1", 1), save("b", "2", 2), save("a", "3", 3), save("b", "1", 4), save("a", "1", 5), save("a", "4", 6)];
  // a's first commit takes saves 1, 3 and 6 ("4" is touched by no save it skipped), but not 5:
  // b's save 4 of file "1" comes before it. Then b's commit (2, 4), then a's save 5.
  expect(groupByAuthor(saves).map((g) => g.map((s) => s.n))).toEqual([[1, 3, 6], [2, 4], [5]]);
  // A batch (a write group, e.g. a version snapshot) stands alone: it takes no other save of its
  // author and joins none; the saves around it still group as before.
  const alone = { ...save("a", "9", 7), alone: true };
  expect(groupByAuthor([save("a", "1", 1), alone, save("a", "3", 3)]).map((g) => g.map((s) => s.n))).toEqual([[1, 3], [7]]);
  expect(groupByAuthor([alone, save("a", "1", 1), save("a", "3", 3)]).map((g) => g.map((s) => s.n))).toEqual([[7], [1, 3]]);
  expect(sharedMessage(["Create a.md via API", "Update b.md via API"])).toBe("Save 2 changes via API\n\nCreate a.md via API\nUpdate b.md via API");
  expect(sharedMessage(["Create a.md via API", "Update b.md via web editor"])).toStartWith("Save 2 changes via Quire\n\n");
});
