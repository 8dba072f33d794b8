/**
 * A page whose YAML frontmatter is invalid still loads, with the problem reported on the page
 * object (`problems: [{kind, message}]`); a page with good YAML reports none.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { owner, type Owner } from "./support.ts";

let server: TestServer;
let o: Owner;
beforeAll(async () => {
  // Files written here are picked up by an explicit reconcile, not a watcher racing it.
  server = await startTestServer({ QUIRE_WATCH_FILES: "false" });
  o = await owner(server);
});
afterAll(() => server.close());

/** Puts files in the workspace folder (an editor or git pull outside Quire) and reconciles them. */
async function onDisk(files: Record<string, string>) {
  for (const [path, text] of Object.entries(files)) writeFileSync(join(o.dir, path), text);
  const r = await server.services.reconciler.reconcile(o.wsId);
  expect(r.aborted).toBe(false);
}

/** `levels` levels of nine-fold aliases: 9^levels values if written out (7: 4.8 million). */
function aliasBomb(levels: number): string {
  const keys = "abcdefghij".slice(0, levels).split("");
  return [
    "---",
    'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]',
    ...keys.slice(1).map((k, i) => `${k}: &${k} [${Array(9).fill(`*${keys[i]}`).join(",")}]`),
    "title: Bomb",
    "---",
    "The body still shows.",
    "",
  ].join("\n");
}

test("invalid YAML: the page loads with its body, the title from its file name, and an invalid_yaml problem", async () => {
  await onDisk({ "broken-yaml.md": "---\ntitle: [unclosed\ntags: a, b\n---\nStill readable.\n" });
  const r = await o.client.get(`${o.base}/broken-yaml.md`);
  expect(r.status).toBe(200);
  expect(r.body).toMatchObject({ path: "broken-yaml.md", title: "Broken yaml", content: "Still readable.\n", tags: [] });
  expect(r.body.problems).toHaveLength(1);
  expect(r.body.problems[0]).toEqual({ kind: "invalid_yaml", message: expect.stringContaining("invalid frontmatter") });
});

test("alias bombs: the page answers quickly and small, body intact, with an invalid_yaml problem and no frontmatter graph", async () => {
  // 7 levels parse (the parser's own alias limit is higher) but would be ~33 MB of JSON per read;
  // 8 levels the parser refuses ("Excessive aliasing").
  await onDisk({ "bomb-7.md": aliasBomb(7), "bomb-8.md": aliasBomb(8) });
  for (const path of ["bomb-7.md", "bomb-8.md"]) {
    const started = performance.now();
    const r = await o.client.get(`${o.base}/${path}`);
    expect(performance.now() - started).toBeLessThan(1000);
    expect(r.status).toBe(200);
    expect(r.text.length).toBeLessThan(10_000);
    expect(r.body).toMatchObject({ path, content: "The body still shows.\n", frontmatter: {} });
    expect(r.body.problems).toEqual([{ kind: "invalid_yaml", message: expect.stringContaining("invalid frontmatter") }]);
    expect(r.body.problems[0].message.toLowerCase()).toContain("excessive aliasing");
  }
  // The tree lists both pages; the reads above did not take the server down.
  const tree = JSON.stringify((await o.client.get(`${o.base}/tree`)).body);
  expect(tree).toContain("bomb-7.md");
  expect(tree).toContain("bomb-8.md");
});

test("a frontmatter with ordinary aliases (a few shared values) is not a problem", async () => {
  await onDisk({ "aliases.md": "---\ntitle: Shared\ndefaults: &d {theme: dark, width: 3}\nseo: {og: *d, twitter: *d}\n---\nBody\n" });
  const r = await o.client.get(`${o.base}/aliases.md`);
  expect(r.body.problems).toEqual([]);
  expect(r.body.frontmatter.seo).toEqual({ og: { theme: "dark", width: 3 }, twitter: { theme: "dark", width: 3 } });
});

test("valid YAML reports no problems; fixing the file clears the problem", async () => {
  const created = await o.client.post(`${o.base}/fine.md`, { title: "Fine", body: "ok" });
  expect(created.status).toBe(201);
  expect(created.body.problems).toEqual([]);
  expect((await o.client.get(`${o.base}/fine.md`)).body.problems).toEqual([]);

  await onDisk({ "later-fixed.md": "---\ntitle: 'unterminated\n---\nText\n" });
  expect((await o.client.get(`${o.base}/later-fixed.md`)).body.problems).toHaveLength(1);
  await onDisk({ "later-fixed.md": "---\ntitle: Fixed now\n---\nText\n" });
  const fixed = await o.client.get(`${o.base}/later-fixed.md`);
  expect(fixed.body).toMatchObject({ title: "Fixed now", problems: [] });
});
