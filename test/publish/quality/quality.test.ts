import { OPEN } from "../../../src/access/restrictions/visibility.ts";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startTestServer, type TestServer } from "../../helpers/server.ts";
import { registerUser, type TestUser } from "../../helpers/factories.ts";
import type { WorkspaceRow } from "../../../src/workspaces/workspace-records.ts";

/**
 * A workspace whose pages carry known defects, one or two per page; the scan must report exactly
 * those (and nothing else), through the service and GET /api/v1/workspaces/:id/quality.
 */
let server: TestServer;
let owner: TestUser;
let ws: WorkspaceRow;

const fm = (title: string | null, description: string | null = "A page of the test workspace.") =>
  `---\n${title !== null ? `title: ${title}\n` : ""}${description !== null ? `description: ${description}\n` : ""}---\n\n`;

const PLAIN = "This page is short and clear. It links where it should and reads well.\n";

const PAGES: Record<string, string> = {
  // Root page: linked from nothing (that is fine for the root), links to every other page.
  "index.md":
    fm("Home") +
    "# Welcome\n\n" +
    "See [[guide]], [[guide#install]], [setup](guides/setup.md), [[no-title]], [[no-description]], [[empty]],\n" +
    "[[images]], [[headings]], [[long]], [[hard]], [[links]] and [[v2/page]].\n",
  "guide.md": fm("Guide") + "## Install\n\n" + PLAIN + "\n## Use it\n\n" + PLAIN,
  "guides/setup.md": fm("Setup") + "## Steps\n\n" + "Back to [the guide](../guide.md#use-it) and [home](../index.md).\n",
  "no-title.md": fm(null) + PLAIN,
  "no-description.md": fm("No description", null) + PLAIN,
  "empty.md": fm("Empty") + "## Only a heading\n",
  "images.md": fm("Images") + "![](assets/a.png)\n\n![A diagram](assets/a.png)\n\n<img src=\"assets/a.png\">\n",
  "headings.md": fm("Headings") + "## Two\n\n" + PLAIN + "\n#### Four\n\n" + PLAIN + "\n```md\n###### not a heading, code\n```\n",
  "long.md": fm("Long") + Array.from({ length: 160 }, () => "word").join(" ") + ".\n",
  "hard.md":
    fm("Hard") +
    Array.from(
      { length: 6 },
      () =>
        "The institutionalization of interdisciplinary methodological considerations necessitates comprehensive organizational reconfiguration, and the implementation of the aforementioned administrative responsibilities is characteristically accompanied by considerable bureaucratic complications that are in the interest of all of the participating organizations",
    ).join(".\n\n") +
    ".\n",
  "links.md":
    fm("Links") +
    "A [[missing-page]] here.\n" +
    "A [bad anchor](guide.md#nowhere) and [[guide#also-nowhere]].\n" +
    "A [[guide|good one]], [an upload](assets/a.png), [a missing file](assets/b.pdf), [outside](../../etc/passwd).\n" +
    "![Pasted in the editor](/api/v1/content/quality/uploads/a.png) works, ![gone](/api/v1/content/quality/uploads/gone.png) does not.\n" +
    "[self](#links-here) is dead, [external](https://example.com) is not checked.\n" +
    "`[[in-code]]` is code.\n",
  "orphan.md": fm("Orphan") + PLAIN,
  "v2/page.md": fm("Version two") + "Back to [[index]].\n",
};

beforeAll(async () => {
  server = await startTestServer({ QUIRE_WATCH_FILES: "false" });
  owner = await registerUser(server.url);
  const created = await owner.client.post("/api/v1/workspaces", { name: "Quality", slug: `quality-${Date.now()}` });
  expect(created.status).toBe(201);
  ws = server.services.workspaces.byId(created.body.id)!;
  const access = { workspace: ws, role: "admin" as const, visibility: OPEN, actor: { id: owner.id, name: owner.name }, origin: "API" as const };
  for (const [path, text] of Object.entries(PAGES)) await server.services.ledger.importPage(access, path, text);
  server.services.ledger.dir(ws.id).ensure();
  const assets = join(server.services.ledger.dir(ws.id).root, "assets");
  mkdirSync(assets, { recursive: true });
  writeFileSync(join(assets, "a.png"), "png");
});

afterAll(() => server?.close());

/** The line of the page's body (what follows the frontmatter) holding `needle`. */
const lineOf = (path: string, needle: string) => PAGES[path]!.split("\n---\n\n")[1]!.split("\n").findIndex((l) => l.includes(needle)) + 1;

const summary = (findings: Array<{ path: string; kind: string; line?: number }>) =>
  findings.map((f) => `${f.path}:${f.line ?? "-"} ${f.kind}`).sort();

describe("quality scan", () => {
  test("reports exactly the known defects", async () => {
    const res = await owner.client.get(`/api/v1/workspaces/${ws.id}/quality`);
    expect(res.status).toBe(200);
    expect(summary(res.body.findings)).toEqual(
      [
        `no-title.md:- missing_title`,
        "no-description.md:- missing_description",
        "empty.md:- empty_page",
        `images.md:${lineOf("images.md", "![](")} image_without_alt`,
        `images.md:${lineOf("images.md", "<img")} image_without_alt`,
        `headings.md:${lineOf("headings.md", "#### Four")} heading_skip`,
        `long.md:${lineOf("long.md", "word word")} long_paragraph`,
        "hard.md:- readability",
        `links.md:${lineOf("links.md", "missing-page")} dead_link`,
        `links.md:${lineOf("links.md", "nowhere")} dead_link`,
        `links.md:${lineOf("links.md", "nowhere")} dead_link`,
        `links.md:${lineOf("links.md", "b.pdf")} dead_link`,
        `links.md:${lineOf("links.md", "b.pdf")} dead_link`,
        `links.md:${lineOf("links.md", "#links-here")} dead_link`,
        `links.md:${lineOf("links.md", "gone.png")} dead_link`,
        "orphan.md:- orphan_page",
      ].sort(),
    );
    expect(res.body.pages).toHaveLength(Object.keys(PAGES).length);
    const clean = res.body.pages.find((p: { path: string }) => p.path === "guide.md");
    expect(clean).toEqual({ path: "guide.md", score: 100, findings: [] });
    expect(res.body.score).toBeGreaterThan(0);
    expect(res.body.score).toBeLessThan(100);
    const dead = res.body.findings.filter((f: { kind: string }) => f.kind === "dead_link").map((f: { message: string }) => f.message);
    expect(dead.some((m: string) => m.includes("outside the workspace"))).toBe(true);
    expect(dead.some((m: string) => m.includes("has no heading #nowhere"))).toBe(true);
  });

  test("?path= narrows the report to one page; an unknown page is 404", async () => {
    const res = await owner.client.get(`/api/v1/workspaces/${ws.id}/quality?path=headings`);
    expect(res.status).toBe(200);
    expect(res.body.pages.map((p: { path: string }) => p.path)).toEqual(["headings.md"]);
    expect(summary(res.body.findings)).toEqual([`headings.md:${lineOf("headings.md", "#### Four")} heading_skip`]);
    expect(res.body.score).toBe(res.body.pages[0].score);
    expect((await owner.client.get(`/api/v1/workspaces/${ws.id}/quality?path=nope.md`)).status).toBe(404);
    expect((await owner.client.get(`/api/v1/workspaces/${ws.id}/quality?path=`)).status).toBe(400);
  });

  test("links into another version are dead links", () => {
    const quality = new (server.services.quality.constructor as any)({
      permissions: server.services.permissions,
      ledger: server.services.ledger,
      versionBases: () => ["v2"],
    });
    const report = quality.scanWorkspace(ws.id).report;
    const crossing = report.findings.filter((f: { message: string }) => f.message.includes("another version"));
    expect(summary(crossing)).toEqual([`index.md:${lineOf("index.md", "v2/page")} dead_link`, `v2/page.md:${lineOf("v2/page.md", "Back to")} dead_link`]);
  });

  test("dead links for quire_validate_links, with line and target as written", () => {
    const principal = { kind: "session" as const, userId: owner.id, orgId: ws.org_id, sessionId: "x" };
    const { dead_links } = server.services.quality.deadLinks(principal, ws.slug, { path: "links.md" });
    expect(dead_links.map((d) => d.target).sort()).toEqual(["#links-here", "../../etc/passwd", "/api/v1/content/quality/uploads/gone.png", "[[guide#also-nowhere]]", "[[missing-page]]", "assets/b.pdf", "guide.md#nowhere"]);
  });

  test("a stranger gets 404, an anonymous caller 401", async () => {
    const stranger = await registerUser(server.url);
    expect((await stranger.client.get(`/api/v1/workspaces/${ws.id}/quality`)).status).toBe(404);
    expect((await owner.client.get(`/api/v1/workspaces/${ws.id}/quality`, { token: null })).status).toBe(401);
  });

  test("a re-scan reuses unchanged pages and sees a changed one", async () => {
    const file = join(server.services.ledger.dir(ws.id).root, "orphan.md");
    writeFileSync(file, fm("Orphan") + "Now it links to [[missing-too]].\n");
    const res = await owner.client.get(`/api/v1/workspaces/${ws.id}/quality?path=orphan.md`);
    expect(summary(res.body.findings)).toEqual(["orphan.md:- orphan_page", "orphan.md:1 dead_link"]);
  });
});
