/**
 * Versions the git remote no longer holds: after a force-push rewrote the remote's branch, and while
 * Quire cannot push its merge back (a protected branch refuses it), the page's versions made in
 * Quire are still listed from the local history and marked `on_remote: false`; versions the remote
 * still holds stay `true`; a workspace without a remote says `null`.
 */
import { afterAll, beforeAll, describe, expect, test, setDefaultTimeout } from "bun:test";
import { chmodSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { localOnly } from "../../src/history/remote-reach.ts";
import type { CommitInfo } from "../../src/history/git-objects.ts";
import { remoteWorkspace, settled, type RemoteWorkspace } from "../git/support.ts";

setDefaultTimeout(30_000);

describe("the walk", () => {
  // a ← b ← c; b ← d ← e, where e also merges f (whose parent is a).
  const graph: Record<string, { parents: string[]; t: number }> = {
    a: { parents: [], t: 1 },
    b: { parents: ["a"], t: 2 },
    c: { parents: ["b"], t: 3 },
    d: { parents: ["b"], t: 4 },
    f: { parents: ["a"], t: 5 },
    e: { parents: ["d", "f"], t: 6 },
    // A merge on the remote side that brings in f later: f is then on the remote too.
    g: { parents: ["c", "f"], t: 7 },
  };
  const read = async (oid: string): Promise<CommitInfo | null> =>
    graph[oid] ? { oid, tree: "", parents: graph[oid]!.parents, message: "", author: { name: "", email: "", timestamp: graph[oid]!.t } } : null;

  test("commits reachable from HEAD and not from the remote, merges included", async () => {
    expect(await localOnly(read, "e", "c")).toEqual(new Set(["d", "e", "f"]));
    expect(await localOnly(read, "e", "g")).toEqual(new Set(["d", "e"]));
    expect(await localOnly(read, "c", "e")).toEqual(new Set(["c"]));
    expect(await localOnly(read, "c", "c")).toEqual(new Set());
  });

  test("a walk longer than its cap answers unknown, not a guess", async () => {
    expect(await localOnly(read, "e", "c", 2)).toBeNull();
  });
});

describe("a force-pushed remote", () => {
  let rw: RemoteWorkspace;
  let base: string;
  beforeAll(async () => {
    rw = await remoteWorkspace("reach");
    base = `/api/v1/workspaces/${rw.ws.id}`;
  });
  afterAll(async () => rw?.close());

  const history = async (path: string) => (await rw.owner.client.get(`${base}/history?path=${encodeURIComponent(path)}`)).body;
  const idle = async () => {
    await settled(rw.server);
    await rw.server.services.versionIndex.idle(rw.ws.id);
  };

  test("versions removed from the remote stay listed and are marked; the rest stay on the remote", async () => {
    const made = await rw.owner.client.post(`/api/v1/content/${rw.ws.slug}/plan.md`, { title: "Plan", body: "First.\n" });
    expect(made.status).toBe(201);
    const page = (await rw.owner.client.get(`/api/v1/content/${rw.ws.slug}/plan.md`)).body;
    expect((await rw.owner.client.put(`/api/v1/content/${rw.ws.slug}/plan.md`, { body: "Second.\n", lastKnownHash: page.content_hash })).status).toBe(200);
    await rw.server.services.gitSync.trigger(rw.ws.id, { reason: "manual" });
    await idle();
    const pushed = await history("plan.md");
    expect(pushed.items.length).toBe(2);
    expect(pushed.items.map((v: any) => v.on_remote)).toEqual([true, true]);
    const imported = (await history("index.md")).items;
    expect(imported.every((v: any) => v.on_remote === true)).toBe(true);

    // Someone rewrites the remote back to its first commit, then the branch is protected.
    await rw.ide.git(["fetch", "--quiet", "origin"]);
    const first = (await rw.ide.git(["rev-list", "--max-parents=0", "origin/main"])).trim().split("\n")[0]!;
    await rw.ide.git(["reset", "--quiet", "--hard", first]);
    rw.ide.writeFile("rewritten.md", "# Rewritten\n");
    await rw.ide.git(["add", "rewritten.md"]);
    await rw.ide.commit("Rewrite the history");
    await rw.ide.git(["push", "--quiet", "--force", "origin", "HEAD:refs/heads/main"]);
    const hook = join(rw.remote.bareDir, "hooks", "pre-receive");
    writeFileSync(hook, "#!/bin/sh\necho 'main is protected' >&2\nexit 1\n");
    chmodSync(hook, 0o755);

    const result = await rw.server.services.gitSync.trigger(rw.ws.id, { reason: "manual" });
    expect(result.status).toBe("failed");
    await idle();
    const after = await history("plan.md");
    expect(after.items.map((v: any) => v.commit)).toEqual(pushed.items.map((v: any) => v.commit));
    expect(after.items.map((v: any) => v.on_remote)).toEqual([false, false]);
    // The remote's first commit is still there: the versions it holds are not marked.
    const index = (await history("index.md")).items;
    expect(index.at(-1)).toMatchObject({ on_remote: true });
  });

  test("a workspace without a remote has nothing to ask", async () => {
    const own = (await rw.owner.client.get(`/api/v1/workspaces/${rw.owner.workspaceId}/history?path=welcome.md`)).body;
    expect(own.items.length).toBeGreaterThan(0);
    expect(own.items.every((v: any) => v.on_remote === null)).toBe(true);
  });
});
