/**
 * Lighthouse (its CLI under Node, Debian's Chromium, the default phone profile with simulated
 * throttling) on the published site: the home page, a long page and the starter's components
 * page (Mermaid, KaTeX, code, tabs) in the default theme, and the components page in the dark
 * theme. Accessibility, best practices and SEO must score 100, performance at least 95. Every
 * theme in light and dark is checked for accessibility by axe-core (site-a11y.e2e.test.ts), which
 * is what Lighthouse's accessibility audits run.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { startTestServer, tempDir, type TestServer } from "../helpers/server.ts";
import { registerUser, type TestUser } from "../helpers/factories.ts";
import { CHROMIUM, hasChromium } from "./browser.ts";

const CLI = join(import.meta.dir, "../../node_modules/lighthouse/cli/index.js");

interface Report {
  categories: Record<string, { score: number | null; auditRefs: Array<{ id: string; weight: number }> }>;
  audits: Record<string, { score: number | null; displayValue?: string }>;
}

/** Runs Lighthouse on `url`; the four category scores (0–100) and the failing audits that count. */
async function lighthouse(url: string): Promise<{ scores: Record<string, number>; failing: string[] }> {
  const out = join(tempDir("quire-lighthouse-"), "report.json");
  const run = Bun.spawn(
    ["node", CLI, url, "--quiet", "--output=json", `--output-path=${out}`, "--chrome-flags=--headless=new --no-sandbox --disable-gpu", "--only-categories=performance,accessibility,best-practices,seo"],
    { env: { ...process.env, CHROME_PATH: CHROMIUM }, stdout: "ignore", stderr: "pipe" },
  );
  const stderr = await new Response(run.stderr).text();
  if ((await run.exited) !== 0) throw new Error(`lighthouse failed: ${stderr}`);
  const report = JSON.parse(readFileSync(out, "utf8")) as Report;
  const scores: Record<string, number> = {};
  const failing: string[] = [];
  for (const [name, category] of Object.entries(report.categories)) {
    scores[name] = Math.round((category.score ?? 0) * 100);
    for (const ref of category.auditRefs) {
      const audit = report.audits[ref.id];
      if (ref.weight > 0 && audit && audit.score !== null && audit.score < 1) failing.push(`${name}: ${ref.id} ${audit.score} ${audit.displayValue ?? ""}`);
    }
  }
  return { scores, failing };
}

describe.skipIf(!hasChromium)("the published site under Lighthouse", () => {
  let server: TestServer;
  let owner: TestUser;

  beforeAll(async () => {
    if (!existsSync(CLI)) throw new Error("lighthouse is not installed (a devDependency: bun install)");
    server = await startTestServer();
    owner = await registerUser(server.url);
    expect((await owner.client.put(`/api/v1/workspaces/${owner.workspaceId}/admin/settings`, { published: true, visibility: "public" })).status).toBe(200);
    const body = Array.from({ length: 40 }, (_, i) => `## Part ${i + 1}\n\nWhat part ${i + 1} does, in a paragraph a reader can follow.\n\n- one\n- two\n`).join("\n");
    expect((await owner.client.post(`/api/v1/content/${owner.workspaceSlug}/guides/long-guide.md`, { title: "The long guide", description: "Every part, one by one.", body, publish: true })).status).toBe(201);
  }, 60_000);
  afterAll(() => server?.close());

  const cases: Array<[string, string]> = [
    ["default", "/"],
    ["default", "/guides/long-guide"],
    ["default", "/components"],
    ["dark", "/components"],
  ];
  for (const [theme, path] of cases) {
    test(`${path} in the ${theme} theme: accessibility, best practices and SEO 100, performance ≥ 95`, async () => {
      expect((await owner.client.put(`/api/v1/workspaces/${owner.workspaceId}/admin/settings`, { theme })).status).toBe(200);
      const { scores, failing } = await lighthouse(`${server.url}/p/${owner.workspaceSlug}${path}`);
      const report = `${JSON.stringify(scores)} ${failing.join("; ")}`;
      expect({ accessibility: scores.accessibility, "best-practices": scores["best-practices"], seo: scores.seo }, report).toEqual({ accessibility: 100, "best-practices": 100, seo: 100 });
      expect(scores.performance, report).toBeGreaterThanOrEqual(95);
    }, 120_000);
  }
});
