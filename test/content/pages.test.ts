import { afterAll, beforeAll, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { activityRows, fileOf, livePage, owner, pageRows, recordBus } from "./support.ts";
import { createHash } from "node:crypto";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

const sha = (text: string) => "sha256:" + createHash("sha256").update(text).digest("hex");

test("create writes the file with id and title first, answers 201 with the page object, events after commit", async () => {
  const o = await owner(server);
  const bus = recordBus(server, o.wsId);
  const r = await o.client.post(`${o.base}/notes/first`, { title: "First: note", body: "Hello *world*\n", tags: ["a", "b c"], description: "Short" });
  bus.stop();
  expect(r.status).toBe(201);
  const id = r.body.page_id;
  expect(id).toMatch(/^[0-9A-HJKMNP-TV-Z]{26}$/);
  const onDisk = `---\nid: ${id}\ntitle: "First: note"\ndescription: Short\ntags: [a, b c]\n---\n\nHello *world*\n`;
  expect(fileOf(o, "notes/first.md")).toBe(onDisk);
  expect(r.body).toMatchObject({
    path: "notes/first.md",
    title: "First: note",
    description: "Short",
    content: "Hello *world*\n",
    tags: ["a", "b c"],
    status: "draft",
    publish: false,
    content_hash: sha(onDisk),
    frontmatter_hash: sha(`---\nid: ${id}\ntitle: "First: note"\ndescription: Short\ntags: [a, b c]\n---\n`),
  });
  expect(r.body.created_at).toMatch(/Z$/);
  expect(livePage(server, o.wsId, "notes/first.md")).toMatchObject({ id, content_hash: sha(onDisk) });
  const act = activityRows(server, o.wsId).filter((a) => a.page_id === id);
  expect(act).toHaveLength(1);
  expect(act[0]).toMatchObject({ action: "page_created", actor_id: o.id, actor_name: o.name, page_path: "notes/first.md" });
  expect(JSON.parse(act[0]!.details)).toEqual({ origin: "web editor" });
  expect(bus.events).toEqual([
    { type: "page-created", workspace_id: o.wsId, payload: { workspace_id: o.wsId, path: "notes/first.md", actor: { id: o.id, name: o.name } } },
  ]);
  expect(bus.changes).toHaveLength(1);
  expect(bus.changes[0]).toMatchObject({ kind: "upsert", workspace_id: o.wsId, page: { page_id: id, path: "notes/first.md", title: "First: note", body: "Hello *world*\n" } });
});

test("create with publish: true writes publish and status published; a missing title or a taken path is refused", async () => {
  const o = await owner(server);
  const r = await o.client.post(`${o.base}/pub.md`, { title: "Pub", publish: true });
  expect(r.status).toBe(201);
  expect(fileOf(o, "pub.md")).toBe(`---\nid: ${r.body.page_id}\ntitle: Pub\npublish: true\nstatus: published\n---\n\n`);
  expect(r.body).toMatchObject({ publish: true, status: "published", content: "" });

  const noTitle = await o.client.post(`${o.base}/other`, { body: "x" });
  expect(noTitle.status).toBe(400);
  expect(noTitle.body).toMatchObject({ error: "VALIDATION_ERROR", details: { field: "title" } });
  expect(typeof noTitle.body.request_id).toBe("string");
  expect(fileOf(o, "other.md")).toBeNull();

  const blank = await o.client.post(`${o.base}/other`, { title: "   " });
  expect(blank.status).toBe(400);

  const taken = await o.client.post(`${o.base}/pub`, { title: "Again" });
  expect(taken.status).toBe(409);
  expect(taken.body.error).toBe("CONFLICT");
  expect(fileOf(o, "pub.md")).toContain("title: Pub\n");

  // A file put there outside Quire (not yet reconciled) also takes the path.
  writeFileSync(join(o.dir, "outside.md"), "# hi\n");
  expect((await o.client.post(`${o.base}/outside`, { title: "X" })).status).toBe(409);
  expect(fileOf(o, "outside.md")).toBe("# hi\n");

  const badJson = await o.client.request("POST", `${o.base}/bad`, { body: "{nope", headers: { "content-type": "application/json" } });
  expect(badJson.status).toBe(400);
  expect(badJson.body.error).toBe("VALIDATION_ERROR");
});

test("create, update and move refuse a field they do not have (400 naming it) and write nothing, rather than dropping what was sent", async () => {
  const o = await owner(server);
  const before = pageRows(server, o.wsId).length;
  for (const [body, field] of [
    [{ title: "Notes", content: "Sent as content, the read field's name" }, "content"],
    [{ title: "Notes", tag: ["ops"] }, "tag"],
    [{ title: "Notes", body: "x", status: "published" }, "status"],
  ] as const) {
    const r = await o.client.post(`${o.base}/strict.md`, body);
    expect({ field, status: r.status, error: r.body.error, named: r.body.details?.field }).toEqual({ field, status: 400, error: "VALIDATION_ERROR", named: field });
    expect(r.body.message).toContain(field);
  }
  expect(fileOf(o, "strict.md")).toBeNull();
  expect(pageRows(server, o.wsId).length).toBe(before);
  // Every documented field together is accepted.
  const ok = await o.client.post(`${o.base}/strict.md`, { title: "Notes", body: "Body\n", description: "D", publish: false, tags: ["ops"] });
  expect(ok.status).toBe(201);

  // Update and move are closed too: `content` for `body` must not answer 200 having changed nothing.
  const fileAfterCreate = fileOf(o, "strict.md");
  const update = await o.client.put(`${o.base}/strict.md`, { content: "New text\n", lastKnownHash: ok.body.content_hash });
  expect({ status: update.status, error: update.body.error, field: update.body.details?.field }).toEqual({ status: 400, error: "VALIDATION_ERROR", field: "content" });
  const move = await o.client.request("PATCH", `${o.base}/strict.md`, { json: { new_path: "moved.md", overwrite: true } });
  expect({ status: move.status, field: move.body.details?.field }).toEqual({ status: 400, field: "overwrite" });
  const alias = await o.client.post(`${o.base}/move`, { path: "strict.md", new_path: "moved.md", force: true });
  expect({ status: alias.status, field: alias.body.details?.field }).toEqual({ status: 400, field: "force" });
  expect(fileOf(o, "strict.md")).toBe(fileAfterCreate);
  expect(fileOf(o, "moved.md")).toBeNull();
  // Both spellings of the hash stay accepted.
  const snake = await o.client.put(`${o.base}/strict.md`, { body: "New text\n", last_known_hash: ok.body.content_hash });
  expect(snake.status).toBe(200);
});

test("GET returns the page object; missing pages and unknown workspaces are 404; no token is 401", async () => {
  const o = await owner(server);
  const created = await o.client.post(`${o.base}/guides/read-me`, { title: "Read me", body: "Body\n", tags: ["t"] });
  const r = await o.client.get(`${o.base}/guides/read-me`);
  expect(r.status).toBe(200);
  expect(r.body).toEqual(created.body);
  expect((await o.client.get(`${o.base}/guides/read-me.md`)).body.page_id).toBe(created.body.page_id);
  expect((await o.client.get(`${o.base}/guides/nothing`)).status).toBe(404);
  const unknown = await o.client.get(`/api/v1/content/no-such-workspace/x`);
  expect(unknown.status).toBe(404);
  expect(unknown.body.error).toBe("NOT_FOUND");
  const anon = await o.client.get(`${o.base}/guides/read-me`, { token: null });
  expect(anon.status).toBe(401);
});

test("PUT updates the body and keeps the frontmatter bytes exactly; a stale hash is 409 with the conflict fields", async () => {
  const o = await owner(server);
  const text = "---\n# a comment the user wrote\ntitle:   'Quoted  title'   # trailing comment\nid: 01J0000000000000000000000A\ncustom:\n  nested: [1, 2]\n---\nBody without a gap\n";
  writeFileSync(join(o.dir, "hand.md"), text);
  await server.services.reconciler.reconcile(o.wsId);
  const read = await o.client.get(`${o.base}/hand`);
  expect(read.status).toBe(200);
  expect(read.body.content).toBe("Body without a gap\n");
  expect(read.body.content_hash).toBe(sha(text));

  const bus = recordBus(server, o.wsId);
  const put = await o.client.put(`${o.base}/hand`, { body: "New body\n", lastKnownHash: read.body.content_hash });
  bus.stop();
  expect(put.status).toBe(200);
  const expected = text.replace("Body without a gap\n", "New body\n");
  expect(fileOf(o, "hand.md")).toBe(expected);
  expect(put.body.content_hash).toBe(sha(expected));
  expect(put.body.frontmatter_hash).toBe(read.body.frontmatter_hash);
  expect(put.body.page_id).toBe("01J0000000000000000000000A");
  expect(bus.events.map((e) => e.type)).toEqual(["page-updated"]);
  expect(bus.events[0]!.payload).toEqual({ workspace_id: o.wsId, path: "hand.md", actor: { id: o.id, name: o.name } });

  // Same body again with the new hash: no change, same hash.
  const same = await o.client.put(`${o.base}/hand`, { body: "New body\n", last_known_hash: put.body.content_hash });
  expect(same.status).toBe(200);
  expect(same.body.content_hash).toBe(put.body.content_hash);

  const stale = await o.client.put(`${o.base}/hand`, { body: "Lost update\n", lastKnownHash: read.body.content_hash });
  expect(stale.status).toBe(409);
  expect(stale.body).toMatchObject({
    error: "CONFLICT",
    current_hash: put.body.content_hash,
    your_hash: read.body.content_hash,
    modified_by: o.name,
    modified_at: put.body.updated_at,
  });
  expect(fileOf(o, "hand.md")).toBe(expected);

  const noHash = await o.client.put(`${o.base}/hand`, { body: "Blind\n" });
  expect(noHash.status).toBe(409);
  expect(noHash.body.your_hash).toBeNull();
  const badHash = await o.client.put(`${o.base}/hand`, { body: "x", lastKnownHash: "md5:abc" });
  expect(badHash.status).toBe(400);
  expect(badHash.body.details.field).toBe("lastKnownHash");
});

test("PUT frontmatter.title and tags edit only their own lines; comments, unknown keys and formatting survive", async () => {
  const o = await owner(server);
  const text = [
    "---",
    "id: 01J0000000000000000000000B",
    "title: Old title # keep? no: this line is replaced",
    "# Team notes: keep this comment",
    "owner:   someone   ",
    "tags:",
    "    - one",
    "    - two",
    "seo: { index: false }",
    "---",
    "",
    "Body stays.",
    "",
  ].join("\n");
  writeFileSync(join(o.dir, "fm.md"), text);
  await server.services.reconciler.reconcile(o.wsId);
  const read = await o.client.get(`${o.base}/fm`);
  const put = await o.client.put(`${o.base}/fm`, { lastKnownHash: read.body.content_hash, frontmatter: { title: "New: title", tags: ["x", "y z"] } });
  expect(put.status).toBe(200);
  expect(fileOf(o, "fm.md")).toBe(
    [
      "---",
      "id: 01J0000000000000000000000B",
      'title: "New: title"',
      "# Team notes: keep this comment",
      "owner:   someone   ",
      "tags:",
      "    - x",
      "    - y z",
      "seo: { index: false }",
      "---",
      "",
      "Body stays.",
      "",
    ].join("\n"),
  );
  expect(put.body).toMatchObject({ title: "New: title", tags: ["x", "y z"], content: "Body stays.\n" });
  expect(put.body.frontmatter).toMatchObject({ owner: "someone", seo: { index: false } });
  expect(livePage(server, o.wsId, "fm.md")!.title).toBe("New: title");

  // A key that is not there yet is appended as one line; an unknown key is refused.
  const put2 = await o.client.put(`${o.base}/fm`, { lastKnownHash: put.body.content_hash, frontmatter: { description: "Added" } });
  expect(put2.status).toBe(200);
  expect(fileOf(o, "fm.md")).toContain("seo: { index: false }\ndescription: Added\n---\n");
  const unknown = await o.client.put(`${o.base}/fm`, { lastKnownHash: put2.body.content_hash, frontmatter: { id: "01J0000000000000000000000C" } });
  expect(unknown.status).toBe(400);
  expect(unknown.body.details.field).toBe("frontmatter");
});

test("safe upsert: POST, on 409 read, then PUT with the hash; PUT on a missing page creates it", async () => {
  const o = await owner(server);
  const upsert = async (path: string, title: string, body: string) => {
    const created = await o.client.post(`${o.base}/${path}`, { title, body });
    if (created.status === 201) return created;
    expect(created.status).toBe(409);
    const current = await o.client.get(`${o.base}/${path}`);
    return o.client.put(`${o.base}/${path}`, { body, lastKnownHash: current.body.content_hash, frontmatter: { title } });
  };
  expect((await upsert("up", "Up", "one\n")).status).toBe(201);
  const second = await upsert("up", "Up 2", "two\n");
  expect(second.status).toBe(200);
  expect(second.body).toMatchObject({ title: "Up 2", content: "two\n" });

  const viaPut = await o.client.put(`${o.base}/put-created`, { body: "made by PUT\n", frontmatter: { title: "Put made" } });
  expect(viaPut.status).toBe(201);
  expect(fileOf(o, "put-created.md")).toBe(`---\nid: ${viaPut.body.page_id}\ntitle: Put made\n---\n\nmade by PUT\n`);
  const missingWithHash = await o.client.put(`${o.base}/nope`, { body: "x", lastKnownHash: viaPut.body.content_hash });
  expect(missingWithHash.status).toBe(404);
  const missingTitle = await o.client.put(`${o.base}/nope`, { body: "x" });
  expect(missingTitle.status).toBe(400);
});

test("DELETE removes the file and soft-deletes the record (204, page-deleted); the path can be created again", async () => {
  const o = await owner(server);
  const created = await o.client.post(`${o.base}/trash/bin`, { title: "Bin" });
  const bus = recordBus(server, o.wsId);
  const del = await o.client.delete(`${o.base}/trash/bin`);
  bus.stop();
  expect(del.status).toBe(204);
  expect(del.text).toBe("");
  expect(fileOf(o, "trash/bin.md")).toBeNull();
  const row = pageRows(server, o.wsId).find((r) => r.id === created.body.page_id)!;
  expect(row.deleted_at).not.toBeNull();
  expect(bus.events.map((e) => [e.type, e.payload.path])).toEqual([["page-deleted", "trash/bin.md"]]);
  expect(bus.changes).toEqual([{ kind: "remove", workspace_id: o.wsId, page_id: created.body.page_id }]);
  expect(activityRows(server, o.wsId).at(-1)).toMatchObject({ action: "page_deleted", page_path: "trash/bin.md" });
  expect((await o.client.get(`${o.base}/trash/bin`)).status).toBe(404);
  expect((await o.client.delete(`${o.base}/trash/bin`)).status).toBe(404);
  const again = await o.client.post(`${o.base}/trash/bin`, { title: "Bin again" });
  expect(again.status).toBe(201);
  expect(again.body.page_id).not.toBe(created.body.page_id);
});

test("API-key writes are recorded with origin API; a read-only key cannot write", async () => {
  const o = await owner(server);
  const key = await o.client.post("/api/v1/api-keys", { name: "ci", scopes: ["read", "write"] });
  expect(key.status).toBe(201);
  const r = await o.client.post(`${o.base}/from-api`, { title: "From API" }, { token: key.body.key });
  expect(r.status).toBe(201);
  const act = activityRows(server, o.wsId).find((a) => a.page_id === r.body.page_id)!;
  expect(JSON.parse(act.details).origin).toBe("API");
  const del = await o.client.delete(`${o.base}/from-api`, { token: key.body.key });
  expect(del.status).toBe(403);
  const ro = await o.client.post("/api/v1/api-keys", { name: "ro", scopes: ["read"] });
  expect((await o.client.get(`${o.base}/from-api`, { token: ro.body.key })).status).toBe(200);
  expect((await o.client.put(`${o.base}/from-api`, { body: "x", lastKnownHash: r.body.content_hash }, { token: ro.body.key })).status).toBe(403);
  expect(fileOf(o, "from-api.md")).toContain("title: From API");
});

test("a request body over 10 MB is refused with 413 and writes nothing", async () => {
  const o = await owner(server);
  // 11 MB: refused before any handler runs.
  const r = await o.client.post(`${o.base}/huge`, { title: "Huge", body: "x".repeat(11 * 1024 * 1024) });
  expect(r.status).toBe(413);
  // Just over 10 MB: refused by the HTTP core with the error shape.
  const r2 = await o.client.post(`${o.base}/huge`, { title: "Huge", body: "x".repeat(10 * 1024 * 1024 + 10) });
  expect(r2.status).toBe(413);
  expect(r2.body.error).toBe("PAYLOAD_TOO_LARGE");
  expect(fileOf(o, "huge.md")).toBeNull();
  expect(livePage(server, o.wsId, "huge.md")).toBeNull();
});
