import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestServer, type TestServer } from "../../helpers/server.ts";
import { registerUser, type TestUser } from "../../helpers/factories.ts";
import { get, publish, writePage } from "./support.ts";

let server: TestServer;
let owner: TestUser;
beforeAll(async () => {
  server = await startTestServer();
  owner = await registerUser(server.url);
  await publish(owner);
}, 30_000);
afterAll(() => server?.close());

const site = (path = "") => `/p/${owner.workspaceSlug}${path}`;

describe("bounded work", () => {
  test("a 5 MB page and a page with 10,000 headings render in bounded time", async () => {
    const huge = "lorem ipsum dolor sit amet ".repeat(200_000).replace(/(.{2000})/g, "$1\n\n");
    await writePage(owner, "huge.md", { title: "Huge", body: huge });
    const headings = Array.from({ length: 10_000 }, (_, i) => `## Heading ${i}\n\ntext ${i}\n`).join("\n");
    await writePage(owner, "headings.md", { title: "Headings", body: headings });
    for (const path of ["/huge", "/headings"]) {
      const started = performance.now();
      const r = await get(server, site(path));
      expect(r.status).toBe(200);
      expect(performance.now() - started).toBeLessThan(10_000);
    }
    // The sidebar's table of contents stays short however many headings a page has.
    const toc = (await get(server, site("/headings"))).text.match(/class="page-toc-l2"/g) ?? [];
    expect(toc.length).toBeLessThanOrEqual(100);
  }, 60_000);
});
