/**
 * Conflicts of files that are not pages: the raw download serves the exact bytes (typed by
 * extension, nosniff, as an attachment), and conflict keys never collide — the same path
 * conflicting in two workspaces in the same second, or twice in one workspace, are separate
 * conflicts, each with its own artifacts.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { registerUser, type TestUser } from "../helpers/factories.ts";
import { IdeClone, startGitHttpRemote, type GitHttpRemote } from "../helpers/git-remote.ts";
import { GIT_ENV, createFromRemote, settled } from "./support.ts";

let server: TestServer;
let owner: TestUser;
let remote: GitHttpRemote;
let ide: IdeClone;
let one: { id: string; slug: string };
let two: { id: string; slug: string };
beforeAll(async () => {
  server = await startTestServer(GIT_ENV);
  owner = await registerUser(server.url, { name: "Grace Hopper", email: "grace@example.test" });
  // No pages: two clones of one repository would each inject their own page ids and conflict on those.
  remote = await startGitHttpRemote({ branch: "main", files: { "notes.txt": "shared notes\n" } });
  ide = await IdeClone.clone(remote.url);
  ide.writeFile("assets/logo.png", png(0));
  ide.writeFile("assets/data.bin", new Uint8Array([0, 1, 2, 0xff]));
  await ide.commit("Add assets");
  await ide.push();
  one = (await createFromRemote(owner, "first", remote.url)).body;
  two = (await createFromRemote(owner, "second", remote.url)).body;
  await settled(server);
  for (const ws of [one, two]) {
    // Auto-commit off: the local bytes stay uncommitted, so both pulls are plain fast-forwards.
    expect((await owner.client.put(`/api/v1/workspaces/${ws.id}/admin/settings`, { git_auto_commit: false })).status).toBe(200);
  }
});
afterAll(async () => {
  await server.close();
  await ide.close();
  await remote.close();
});

/** Bytes that are not UTF-8 (a PNG signature, then invalid sequences and a NUL). */
function png(marker: number): Uint8Array {
  return new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, marker, 0xff, 0xfe, 0xc3, 0x28, 0x00, 0x80, 0xbf, marker]);
}
const hex = (bytes: ArrayBuffer | Uint8Array) => Buffer.from(bytes as ArrayBuffer).toString("hex");
const dirOf = (ws: { id: string }) => server.services.ledger.dir(ws.id).root;
const conflictsOf = async (ws: { id: string }) => {
  const list = await owner.client.get(`/api/v1/workspaces/${ws.id}/conflicts`);
  expect(list.status).toBe(200);
  return list.body.conflicts as Array<{ path: string; page_id: string; timestamp: string }>;
};
const download = (c: { page_id: string; timestamp: string }, version: string) =>
  fetch(`${server.url}/api/v1/conflicts/${c.page_id}/${c.timestamp}/${version}`, { headers: { authorization: `Bearer ${owner.accessToken}` } });

test("the same file conflicting in two workspaces in the same second: two conflicts, each with its own bytes", async () => {
  await ide.pull();
  ide.writeFile("assets/logo.png", png(9));
  ide.writeFile("assets/data.bin", new Uint8Array([9, 9, 0xff]));
  await ide.commit("Change the assets in the IDE");
  await ide.push();
  writeFileSync(join(dirOf(one), "assets/logo.png"), png(1));
  writeFileSync(join(dirOf(two), "assets/logo.png"), png(2));
  writeFileSync(join(dirOf(one), "assets/data.bin"), new Uint8Array([1, 0xff]));
  // Both pulls start right after a second begins, so their timestamps are the same second.
  await Bun.sleep(1000 - (Date.now() % 1000) + 10);
  const [a, b] = await Promise.all([server.services.gitSync.trigger(one.id, { reason: "manual" }), server.services.gitSync.trigger(two.id, { reason: "manual" })]);
  expect(a).toMatchObject({ status: "conflict", conflicts: 2 });
  expect(b).toMatchObject({ status: "conflict", conflicts: 1 });

  const first = (await conflictsOf(one)).find((c) => c.path === "assets/logo.png")!;
  const [second] = await conflictsOf(two);
  expect(second!.path).toBe("assets/logo.png");
  expect(first.page_id).toMatch(/^file-assets-logo-png-[0-9a-f]{10}$/);
  expect(`${first.page_id}-${first.timestamp}`).not.toBe(`${second!.page_id}-${second!.timestamp}`);
  // Each workspace's artifacts are its own: ours is that workspace's local file.
  expect(hex(await (await download(first, "ours")).arrayBuffer())).toBe(hex(png(1)));
  expect(hex(await (await download(second!, "ours")).arrayBuffer())).toBe(hex(png(2)));
  const inspect = await owner.client.get(`/api/v1/workspaces/${two.id}/sync/conflicts/${second!.page_id}-${second!.timestamp}`);
  expect(inspect.status).toBe(200);
  expect(hex(Buffer.from(inspect.body.ours, "base64"))).toBe(hex(png(2)));
  // Another workspace's conflict is not reachable through this one.
  expect((await owner.client.get(`/api/v1/workspaces/${one.id}/sync/conflicts/${second!.page_id}-${second!.timestamp}`)).status).toBe(404);
});

test("the raw download of a binary conflict is the exact bytes, typed by extension, nosniff, as an attachment", async () => {
  const c = (await conflictsOf(one)).find((x) => x.path === "assets/logo.png")!;
  const theirs = await download(c, "theirs");
  expect(theirs.status).toBe(200);
  expect(theirs.headers.get("content-type")).toBe("image/png");
  expect(theirs.headers.get("x-content-type-options")).toBe("nosniff");
  expect(theirs.headers.get("content-disposition")).toBe('attachment; filename="theirs-logo.png"');
  expect(hex(await theirs.arrayBuffer())).toBe(hex(png(9)));

  const bin = (await conflictsOf(one)).find((x) => x.path === "assets/data.bin")!;
  const ours = await download(bin, "ours");
  expect(ours.headers.get("content-type")).toBe("application/octet-stream");
  expect(ours.headers.get("content-disposition")).toBe('attachment; filename="ours-data.bin"');
  expect(hex(await ours.arrayBuffer())).toBe("01ff");
  expect((await download(bin, "base")).status).toBe(404);
});

test("two occurrences of one conflict in the same second are both kept", async () => {
  const store = server.services.gitSync.conflicts;
  const meta = { workspace_id: two.id, path: "index.md", page_id: "01M7ZD1DBH53PHKQWZZD66XXZ0", timestamp: "20260101T120000Z", theirs_deleted: false, remote_commit: "0".repeat(40) };
  const a = store.save(meta, { ours: new TextEncoder().encode("first ours"), theirs: new TextEncoder().encode("first theirs"), base: null });
  const b = store.save(meta, { ours: new TextEncoder().encode("second ours"), theirs: new TextEncoder().encode("second theirs"), base: null });
  expect(a.timestamp).toBe("20260101T120000Z");
  expect(b.timestamp).toBe("20260101T120001Z");
  expect(store.read(store.get(a.page_id, a.timestamp), "ours").toString()).toBe("first ours");
  expect(store.read(store.get(b.page_id, b.timestamp), "ours").toString()).toBe("second ours");
  const listed = (await conflictsOf(two)).filter((c) => c.page_id === meta.page_id).map((c) => c.timestamp);
  expect(listed).toEqual(["20260101T120000Z", "20260101T120001Z"]);
  store.remove(a);
  store.remove(b);
});
