/**
 * A file that is not a page (an image under assets/) changed on both sides: never merged, the
 * local version stays in the work tree, and the pull records a conflict like a page's — both
 * sides stored byte for byte, listed, inspectable (base64), resolvable either way.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { TestServer } from "../helpers/server.ts";
import type { TestUser } from "../helpers/factories.ts";
import { git, IdeClone, type GitHttpRemote } from "../helpers/git-remote.ts";
import { remoteWorkspace, type RemoteWorkspace, recordEvents, row, settled, waitFor } from "./support.ts";

let server: TestServer;
let owner: TestUser;
let remote: GitHttpRemote;
let ide: IdeClone;
let ws: { id: string; slug: string };
let dir: string;
let fixture: RemoteWorkspace;
beforeAll(async () => {
  fixture = await remoteWorkspace("assets");
  ({ server, owner, remote, ide, ws, dir } = fixture);
});
afterAll(() => fixture.close());

/** Bytes that are not UTF-8 (a PNG signature, then a marker and invalid sequences). */
const png = (marker: number) => new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, marker, 0xff, 0xfe, 0xc3, 0x28, 0x00, marker]);
const blobId = (bytes: Uint8Array) => createHash("sha1").update(`blob ${bytes.length}\0`).update(bytes).digest("hex");
const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString("hex");
/** The file in the work tree, as hex. */
const onDisk = (path: string) => hex(readFileSync(join(dir, path)));
const sha256 = (bytes: Uint8Array) => `sha256:${createHash("sha256").update(bytes).digest("hex")}`;
/** The blob id the remote's branch holds at `path`. */
const remoteBlob = (path: string) => git(["rev-parse", `refs/heads/main:${path}`], { cwd: remote.bareDir }).then((s) => s.trim());

const autoCommit = async (on: boolean) => expect((await owner.client.put(`/api/v1/workspaces/${ws.id}/admin/settings`, { git_auto_commit: on })).status).toBe(200);

/**
 * The image reaches both sides, then the IDE pushes `theirs` while the folder gets `ours` on disk.
 * A file changed on disk is committed by itself a moment later (docs/decisions/git-commits.md §7) unless
 * auto-commit is off: `committed` says which of the two histories the pull meets.
 */
async function changeOnBothSides(path: string, base: Uint8Array, ours: Uint8Array, theirs: Uint8Array, committed: boolean) {
  await settled(server);
  await ide.pull();
  ide.writeFile(path, base);
  await ide.commit(`Add ${path}`);
  await ide.push();
  expect((await server.services.gitSync.trigger(ws.id, { reason: "manual" })).status).toBe("completed");
  expect(onDisk(path)).toBe(hex(base));
  await settled(server);
  await ide.pull();
  ide.writeFile(path, theirs);
  await ide.commit(`Change ${path} in the IDE`);
  await ide.push();
  if (!committed) await autoCommit(false);
  writeFileSync(join(dir, path), ours);
  if (committed) {
    await waitFor(async () => ((await git(["log", "-1", "--format=%s"], { cwd: dir })).trim() === `Update ${path} via filesystem` ? true : null), 5000, "the disk commit");
  }
}

test("recorded as a conflict: local bytes kept, both sides stored and listed, kept_remote writes theirs exactly and pushes it", async () => {
  const [base, ours, theirs] = [png(1), png(2), png(3)];
  // Uncommitted local bytes (auto-commit off): the pull is a fast-forward and leaves them uncommitted;
  // turning auto-commit back on commits them as the pending edit.
  await changeOnBothSides("assets/diagram.png", base, ours, theirs, false);
  const events = recordEvents(server, ws.id);
  const result = await server.services.gitSync.trigger(ws.id, { reason: "manual" });
  await autoCommit(true);
  expect(result).toMatchObject({ status: "conflict", conflicts: 1 });
  expect(onDisk("assets/diagram.png")).toBe(hex(ours));
  expect(row(server, ws.id).sync_status).toBe("conflict");
  expect(events.find((e) => e.type === "conflict-detected")?.payload).toEqual({ workspace_id: ws.id, path: "assets/diagram.png" });
  expect(server.logs.some((l) => l.includes("git sync conflict") && l.includes("assets/diagram.png"))).toBe(true);

  const list = await owner.client.get(`/api/v1/workspaces/${ws.id}/conflicts`);
  expect(list.status).toBe(200);
  expect(list.body.conflicts).toHaveLength(1);
  const c = list.body.conflicts[0];
  expect(c).toMatchObject({ path: "assets/diagram.png", ours_hash: sha256(ours), theirs_hash: sha256(theirs) });
  expect(c.page_id).toMatch(/^file-assets-diagram-png-[0-9a-f]{10}$/);

  const inspect = await owner.client.get(`/api/v1/workspaces/${ws.id}/sync/conflicts/${c.page_id}-${c.timestamp}`);
  expect(inspect.status).toBe(200);
  expect(inspect.body).toMatchObject({ encoding: "base64", path: "assets/diagram.png", theirs_deleted: false });
  expect(hex(Buffer.from(inspect.body.ours, "base64"))).toBe(hex(ours));
  expect(hex(Buffer.from(inspect.body.theirs, "base64"))).toBe(hex(theirs));
  expect(hex(Buffer.from(inspect.body.base, "base64"))).toBe(hex(base));
  // Until it is resolved the remote holds the local version (committed once auto-commit was back on).
  await settled(server);
  expect(await remoteBlob("assets/diagram.png")).toBe(blobId(ours));
  expect((await remote.log()).map((c) => c.subject)).toContain("Commit the pending edit of assets/diagram.png (auto-commit turned on) via Quire");

  const resolved = await owner.client.post(`/api/v1/workspaces/${ws.id}/sync/conflicts/${c.page_id}-${c.timestamp}/resolve`, { resolution: "kept_remote" });
  expect(resolved.status).toBe(200);
  expect(resolved.body).toMatchObject({ resolution: "kept_remote", path: "assets/diagram.png", sync_status: "synced" });
  expect(onDisk("assets/diagram.png")).toBe(hex(theirs));
  await settled(server);
  expect(await remoteBlob("assets/diagram.png")).toBe(blobId(theirs));
  const [top] = await remote.log();
  expect(top).toMatchObject({ subject: "Update assets/diagram.png via web editor (conflict resolved)", author_name: "Grace Hopper" });
  expect((await owner.client.get(`/api/v1/workspaces/${ws.id}/conflicts`)).body.conflicts).toEqual([]);
});

test("kept_local keeps the local bytes, which the remote already has from the merge", async () => {
  const [base, ours, theirs] = [png(4), png(5), png(6)];
  // The local bytes were committed from disk first: the pull is a real merge, the conflict the same.
  await changeOnBothSides("assets/photo.png", base, ours, theirs, true);
  expect((await server.services.gitSync.trigger(ws.id, { reason: "manual" })).status).toBe("conflict");
  const c = (await owner.client.get(`/api/v1/workspaces/${ws.id}/conflicts`)).body.conflicts[0];
  const resolved = await owner.client.post(`/api/v1/workspaces/${ws.id}/sync/conflicts/${c.page_id}-${c.timestamp}/resolve`, { resolution: "kept_local" });
  expect(resolved.status).toBe(200);
  expect(resolved.body.sync_status).toBe("synced");
  await settled(server);
  expect(onDisk("assets/photo.png")).toBe(hex(ours));
  expect(await remoteBlob("assets/photo.png")).toBe(blobId(ours));
  expect(row(server, ws.id).sync_status).toBe("synced");
});
