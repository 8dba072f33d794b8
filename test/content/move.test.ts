import { afterAll, beforeAll, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { activityRows, fileOf, livePage, owner, recordBus } from "./support.ts";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

test("PATCH moves a page keeping its id and rewrites every kind of link to it, editing only the link text", async () => {
  const o = await owner(server);
  const target = await o.client.post(`${o.base}/guides/setup`, { title: "Setup", body: "See [intro](../intro.md) and [[guides/other]].\n" });
  await o.client.post(`${o.base}/intro`, { title: "Intro" });
  await o.client.post(`${o.base}/guides/other`, { title: "Other" });
  const linker = await o.client.post(`${o.base}/linker`, {
    title: "Linker",
    body: [
      "Plain [[guides/setup]], labelled [[guides/setup|the setup]], heading [[guides/setup#install]],",
      "both [[guides/setup#install|install it]], with suffix [[guides/setup.md]], rooted [[/guides/setup]].",
      "Markdown [setup](guides/setup.md), with anchor [s](guides/setup.md#step-2 \"Title\"), image ![x](guides/setup.md).",
      "Unrelated [[guides/setups]] and [[guides/other]] and [web](https://example.com/guides/setup.md).",
      "`inline [[guides/setup]] code` stays.",
      "```",
      "[[guides/setup]] in a fence stays",
      "```",
      "",
    ].join("\n"),
  });
  const nested = await o.client.post(`${o.base}/guides/deep/nested`, { title: "Nested", body: "Up [s](../setup.md) and [[guides/setup|s]].\n" });
  const untouched = await o.client.post(`${o.base}/plain`, { title: "Plain", body: "No links here.\n" });

  const bus = recordBus(server, o.wsId);
  const moved = await o.client.patch(`${o.base}/guides/setup`, { new_path: "manual/install/setup" });
  bus.stop();
  expect(moved.status).toBe(200);
  expect(moved.body).toMatchObject({ page_id: target.body.page_id, path: "manual/install/setup.md", title: "Setup" });
  expect(fileOf(o, "guides/setup.md")).toBeNull();
  // The moved page's own relative links still point at the same pages from its new folder.
  expect(fileOf(o, "manual/install/setup.md")).toBe(
    `---\nid: ${target.body.page_id}\ntitle: Setup\n---\n\nSee [intro](../../intro.md) and [[guides/other]].\n`,
  );
  expect(fileOf(o, "linker.md")).toBe(
    `---\nid: ${linker.body.page_id}\ntitle: Linker\n---\n\n` +
      [
        "Plain [[manual/install/setup]], labelled [[manual/install/setup|the setup]], heading [[manual/install/setup#install]],",
        "both [[manual/install/setup#install|install it]], with suffix [[manual/install/setup.md]], rooted [[/manual/install/setup]].",
        "Markdown [setup](manual/install/setup.md), with anchor [s](manual/install/setup.md#step-2 \"Title\"), image ![x](guides/setup.md).",
        "Unrelated [[guides/setups]] and [[guides/other]] and [web](https://example.com/guides/setup.md).",
        "`inline [[guides/setup]] code` stays.",
        "```",
        "[[guides/setup]] in a fence stays",
        "```",
        "",
      ].join("\n"),
  );
  expect(fileOf(o, "guides/deep/nested.md")).toBe(
    `---\nid: ${nested.body.page_id}\ntitle: Nested\n---\n\nUp [s](../../manual/install/setup.md) and [[manual/install/setup|s]].\n`,
  );
  expect(fileOf(o, "plain.md")).toBe(`---\nid: ${untouched.body.page_id}\ntitle: Plain\n---\n\nNo links here.\n`);

  // One page-moved event and one page-updated per rewritten page, each with its new hash recorded.
  expect(bus.events[0]!.type).toBe("page-moved");
  expect(bus.events.slice(1).map((e) => [e.type, e.payload.path]).sort()).toEqual([
    ["page-updated", "guides/deep/nested.md"],
    ["page-updated", "linker.md"],
  ]);
  expect(bus.events[0]!.payload).toEqual({ workspace_id: o.wsId, old_path: "guides/setup.md", new_path: "manual/install/setup.md", actor: { id: o.id, name: o.name } });
  const linkerNow = await o.client.get(`${o.base}/linker`);
  expect(linkerNow.body.content_hash).not.toBe(linker.body.content_hash);
  expect(livePage(server, o.wsId, "linker.md")!.content_hash).toBe(linkerNow.body.content_hash);
  expect(livePage(server, o.wsId, "guides/setup.md")).toBeNull();
  expect(livePage(server, o.wsId, "manual/install/setup.md")!.id).toBe(target.body.page_id);
  const acts = activityRows(server, o.wsId).slice(-3);
  expect(acts[0]).toMatchObject({ action: "page_moved", page_path: "manual/install/setup.md" });
  expect(JSON.parse(acts[0]!.details)).toMatchObject({ old_path: "guides/setup.md", new_path: "manual/install/setup.md", links_rewritten: 2 });
  expect(acts.slice(1).map((a) => a.action)).toEqual(["page_updated", "page_updated"]);
  // A stale editor of a rewritten page gets a conflict rather than undoing the rewrite.
  const stale = await o.client.put(`${o.base}/linker`, { body: "old", lastKnownHash: linker.body.content_hash });
  expect(stale.status).toBe(409);
});

test("move refuses an existing target (409), a missing page (404) and the same path (400); the POST alias works", async () => {
  const o = await owner(server);
  const a = await o.client.post(`${o.base}/a`, { title: "A" });
  await o.client.post(`${o.base}/b`, { title: "B" });
  const taken = await o.client.patch(`${o.base}/a`, { new_path: "b" });
  expect(taken.status).toBe(409);
  expect(fileOf(o, "a.md")).not.toBeNull();
  expect((await o.client.patch(`${o.base}/missing`, { new_path: "c" })).status).toBe(404);
  expect((await o.client.patch(`${o.base}/a`, { new_path: "a.md" })).status).toBe(400);
  expect((await o.client.patch(`${o.base}/a`, {})).body.details.field).toBe("new_path");

  const alias = await o.client.post(`${o.base}/move`, { path: "a", new_path: "renamed/a" });
  expect(alias.status).toBe(200);
  expect(alias.body).toMatchObject({ page_id: a.body.page_id, path: "renamed/a.md" });
  const alias2 = await o.client.post(`${o.base}/move`, { old_path: "renamed/a.md", new_path: "a2" });
  expect(alias2.body.path).toBe("a2.md");
  const noPath = await o.client.post(`${o.base}/move`, { new_path: "x" });
  expect(noPath.status).toBe(400);
  expect(noPath.body.details.field).toBe("path");
  // The emptied folder is cleaned up.
  expect(existsSync(join(o.dir, "renamed"))).toBe(false);
});

test("moving a folder's pages one by one keeps every link between them working", async () => {
  const o = await owner(server);
  await o.client.post(`${o.base}/old/index`, { title: "Old", body: "Pages: [[old/one]], [two](two.md).\n" });
  await o.client.post(`${o.base}/old/one`, { title: "One", body: "Back to [index](index.md) and [[old/two]].\n" });
  await o.client.post(`${o.base}/old/two`, { title: "Two", body: "See [[old/one|one]] and [home](../home.md).\n" });
  await o.client.post(`${o.base}/home`, { title: "Home", body: "[[old/index]] [[old/one]] [[old/two]]\n" });
  for (const name of ["index", "one", "two"]) {
    const r = await o.client.patch(`${o.base}/old/${name}`, { new_path: `new/${name}` });
    expect(r.status).toBe(200);
  }
  const body = async (p: string) => (await o.client.get(`${o.base}/${p}`)).body.content;
  expect(await body("new/index")).toBe("Pages: [[new/one]], [two](two.md).\n");
  expect(await body("new/one")).toBe("Back to [index](index.md) and [[new/two]].\n");
  expect(await body("new/two")).toBe("See [[new/one|one]] and [home](../home.md).\n");
  expect(await body("home")).toBe("[[new/index]] [[new/one]] [[new/two]]\n");
  expect(existsSync(join(o.dir, "old"))).toBe(false);
});
