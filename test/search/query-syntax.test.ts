import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { registerUser, type TestUser } from "../helpers/factories.ts";
import { snapshot, starterWorkspace } from "../collab/support.ts";

let server: TestServer;
let owner: TestUser;
let ws: { id: string; slug: string };
const titles = async (q: string, workspaceId = ws.id, user = owner) => {
  const r = await user.client.get(`/api/v1/workspaces/${workspaceId}/search?q=${encodeURIComponent(q)}`);
  expect(r.status).toBe(200);
  return r.body.items.map((i: any) => i.title) as string[];
};
const publish = (page: ReturnType<typeof snapshot>, workspaceId = ws.id) =>
  server.services.bus.publishChange({ kind: "upsert", workspace_id: workspaceId, page });

beforeAll(async () => {
  server = await startTestServer();
  owner = await registerUser(server.url);
  ws = starterWorkspace(server, owner.id);
  publish(snapshot({ title: "Alpha report", body: "The alpha release notes." }));
  publish(snapshot({ title: "Beta memo", body: "Beta testers wanted." }));
  publish(snapshot({ title: "Gamma secret", tags: ["internal"], body: "Gamma rays and the NEAR field." }));
});
afterAll(() => server.close());

describe("query syntax is never passed to FTS5", () => {
  test("FTS5 operators, quotes, prefixes, column filters and brackets are plain words: no error, no wider results", async () => {
    // Each query may find at most the listed pages (column names such as "title" are ordinary
    // words, which the starter pages may or may not hold, so fewer is fine).
    const attacks: [string, string[]][] = [
      ['"', []],
      ['""""', []],
      ["*", []],
      ["-", []],
      [":", []],
      ["(", []],
      [")", []],
      ["^", []],
      ["{}", []],
      ['"alpha', ["Alpha report"]],
      ['alpha"', ["Alpha report"]],
      ["alpha*", ["Alpha report"]],
      ["*alpha*", ["Alpha report"]],
      ["alpha OR beta", []],
      ["alpha AND NOT beta", []],
      ["alpha NOT beta", []],
      ["-beta alpha", []],
      ["NEAR(alpha beta)", []],
      ["NEAR(alpha beta, 10)", []],
      ["alpha + beta", []],
      ["title:alpha", ["Alpha report"]],
      ["body: beta", ["Beta memo"]],
      ["{title body}: gamma", ["Gamma secret"]],
      ["- tags : internal", ["Gamma secret"]],
      ["rank:1 alpha", ["Alpha report"]],
      ["alpha) OR (beta", []],
      ["alpha\" OR \"beta", []],
      ["alpha' OR '1'='1", ["Alpha report"]],
      ["alpha; DROP TABLE pages; --", ["Alpha report"]],
      ["\u0000alpha", ["Alpha report"]],
      ["near", ["Gamma secret"]],
    ];
    for (const [q, allowed] of attacks) {
      const found = await titles(q);
      expect({ q, extra: found.filter((t) => !allowed.includes(t)) }).toEqual({ q, extra: [] });
    }
    // Sanity: the plain words do find their pages.
    expect(await titles('"alpha')).toEqual(["Alpha report"]);
    expect(await titles("alpha*")).toEqual(["Alpha report"]);
    expect(await titles("NEAR")).toEqual(["Gamma secret"]);
  });

  test("words that match nothing are ignored rather than emptying the results", async () => {
    expect(await titles("alpha qwzxvbnm")).toEqual(["Alpha report"]);
  });

  test("the last word is matched as a prefix while it is being typed", async () => {
    publish(snapshot({ title: "Kubernetes operators", body: "Scheduling pods." }));
    expect(await titles("kuberne")).toEqual(["Kubernetes operators"]);
    expect(await titles("schedu")).toEqual(["Kubernetes operators"]);
    expect(await titles("pods sched")).toEqual(["Kubernetes operators"]);
  });
});

describe("snippets", () => {
  test("the marker characters FTS5 is given cannot be smuggled in through a page", async () => {
    publish(snapshot({ title: "Smuggler", body: "plain \uE000fake\uE001 text and a wombat \uE001 here \uE000" }));
    const r = await owner.client.get(`/api/v1/workspaces/${ws.id}/search?q=wombat`);
    const snippet: string = r.body.items[0].snippet;
    expect(snippet.match(/<mark>/g)).toHaveLength(1);
    expect(snippet.match(/<\/mark>/g)).toHaveLength(1);
    expect(snippet).toContain("<mark>wombat</mark>");
    expect(snippet).not.toMatch(/[\uE000\uE001]/);
  });

  test("Markdown is indexed as text: emphasis, link targets and code fences are not in the snippet", async () => {
    publish(
      snapshot({
        title: "Markdown page",
        body: "# Heading\n\nSee the **okapi** guide at [the docs](https://example.com/secret-url) and `inline` code.\n\n```js\nconst x = 1;\n```",
      }),
    );
    const r = await owner.client.get(`/api/v1/workspaces/${ws.id}/search?q=okapi`);
    const snippet: string = r.body.items[0].snippet;
    expect(snippet).toContain("See the <mark>okapi</mark> guide at the docs and inline code.");
    expect(snippet).not.toContain("example.com");
    expect(await titles("secret url")).not.toContain("Markdown page");
  });

  test("diacritics are folded both ways", async () => {
    publish(snapshot({ title: "Crème brûlée", body: "A café classic." }));
    expect(await titles("creme brulee")).toEqual(["Crème brûlée"]);
    expect(await titles("CAFÉ")).toContain("Crème brûlée");
  });
});

describe("isolation", () => {
  test("typo tolerance only draws on the workspace's own words", async () => {
    const other = await registerUser(server.url);
    const otherWs = starterWorkspace(server, other.id);
    publish(snapshot({ title: "Quetzalcoatl" }), otherWs.id);
    expect(await titles("quetzalcoatl", otherWs.id, other)).toEqual(["Quetzalcoatl"]);
    expect(await titles("quetzalcoatll", otherWs.id, other)).toEqual(["Quetzalcoatl"]);
    expect(await titles("quetzalcoatl")).toEqual([]);
    expect(await titles("quetzalcoatll")).toEqual([]);
  });
});

describe("abuse", () => {
  test("one enormous word or hundreds of fragments answer quickly and find nothing", async () => {
    for (const q of ["a".repeat(500), "qwertyuiop".repeat(50), "ab ".repeat(166), "é".repeat(500)]) {
      const started = performance.now();
      expect(await titles(q)).toEqual([]);
      expect(performance.now() - started).toBeLessThan(500);
    }
  });
});
