/**
 * A version rendered as the site renders it, and the rendered diff (docs/decisions/page-history.md §8):
 * the block splitter, then both through the REST API on a real server with real git.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { registerUser, type TestUser } from "../helpers/factories.ts";
import { blocksOf, renderedDiff } from "../../src/history/rendered.ts";

describe("blocks of a body", () => {
  test("blank lines separate blocks; a fenced code block stays whole, blank lines inside it too", () => {
    const body = "# Title\n\nOne\ntwo\n\n```js\nconst a = 1;\n\nconst b = 2;\n```\n\n\nLast";
    expect(blocksOf(body)).toEqual(["# Title", "One\ntwo", "```js\nconst a = 1;\n\nconst b = 2;\n```", "Last"]);
  });

  test("an unclosed fence runs to the end; a longer closing fence closes it", () => {
    expect(blocksOf("~~~\na\n\nb")).toEqual(["~~~\na\n\nb"]);
    expect(blocksOf("````\nx\n`````\n\ny")).toEqual(["````\nx\n`````", "y"]);
  });

  test("the rendered diff marks added and removed blocks and keeps the rest in order", () => {
    const before = "---\ntitle: A\n---\n# A\n\nKept.\n\nGone <script>alert(1)</script>.\n";
    const after = "---\ntitle: B\n---\n# A\n\nKept.\n\nNew **bold**.\n";
    const blocks = renderedDiff("docs", "a.md", before, after);
    expect(blocks.map((b) => b.kind)).toEqual(["same", "same", "removed", "added"]);
    expect(blocks[3]!.html).toContain("<strong>bold</strong>");
    // Through the site's sanitizer: no script survives.
    expect(blocks.map((b) => b.html).join("")).not.toContain("<script");
  });
});

describe("over REST", () => {
  let server: TestServer;
  let user: TestUser;
  let base: string;
  const content = (path: string) => `/api/v1/content/${user.workspaceSlug}/${path}`;
  beforeAll(async () => {
    server = await startTestServer();
    user = await registerUser(server.url);
    base = `/api/v1/workspaces/${user.workspaceId}`;
  }, 30_000);
  afterAll(async () => {
    await server?.close();
  });

  const versions = async (path: string) => {
    await server.services.versionIndex.idle(user.workspaceId);
    for (let i = 0; i < 100; i++) {
      const res = await user.client.get(`${base}/history?path=${path}`);
      if (res.status === 200 && res.body.items.length >= 2) return res.body.items as Array<{ commit: string }>;
      await Bun.sleep(50);
    }
    throw new Error("the versions never appeared");
  };

  test("?html=true renders the version's body (links into the app), ?rendered=true diffs blocks", async () => {
    const created = await user.client.post(content("guide.md"), { title: "Guide", body: "# Guide\n\nSee [[other]].\n\nOld paragraph.\n" });
    expect(created.status).toBe(201);
    const saved = await user.client.put(content("guide.md"), { body: "# Guide\n\nSee [[other]].\n\nNew _paragraph_.\n", lastKnownHash: created.body.content_hash });
    expect(saved.status).toBe(200);
    const [newest, oldest] = await versions("guide.md");

    const plain = await user.client.get(`${base}/history/version?path=guide.md&commit=${oldest!.commit}`);
    expect(plain.status).toBe(200);
    expect(plain.body.html).toBeUndefined();
    const html = await user.client.get(`${base}/history/version?path=guide.md&commit=${oldest!.commit}&html=true`);
    expect(html.status).toBe(200);
    expect(html.body.content).toContain("Old paragraph.");
    expect(html.body.html).toContain("<p>Old paragraph.</p>");
    expect(html.body.html).not.toContain("title: Guide");

    const diff = await user.client.get(`${base}/history/diff?path=guide.md&from=${oldest!.commit}&to=${newest!.commit}&rendered=true`);
    expect(diff.status).toBe(200);
    expect(diff.body.rendered.map((b: { kind: string }) => b.kind)).toEqual(["same", "same", "removed", "added"]);
    expect(diff.body.rendered[3].html).toContain("<em>paragraph</em>");
    // Against the current file too.
    const current = await user.client.get(`${base}/history/diff?path=guide.md&from=${oldest!.commit}&rendered=true`);
    expect(current.body.to).toBe("current");
    expect(current.body.rendered.filter((b: { kind: string }) => b.kind !== "same")).toHaveLength(2);
  });

  test("a bad flag is a 400 naming the field", async () => {
    for (const [url, field] of [
      [`${base}/history/version?path=guide.md&commit=abcdef1&html=yes`, "html"],
      [`${base}/history/diff?path=guide.md&from=abcdef1&rendered=1`, "rendered"],
    ] as const) {
      const res = await user.client.get(url);
      expect(res.status, url).toBe(400);
      expect(res.body.error).toBe("VALIDATION_ERROR");
      expect(JSON.stringify(res.body)).toContain(field);
    }
  });
});
