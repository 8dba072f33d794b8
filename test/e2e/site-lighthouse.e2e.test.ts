/**
 * Lighthouse (its Node API, as its CLI runs it, in one Debian Chromium for every run: a fresh tab
 * each, with the run's prefers-color-scheme) on the published site: the starter's components page
 * (Mermaid, KaTeX, code, tabs, callouts) in every theme, light and dark, for accessibility, best
 * practices and SEO — each must score 100 — and, on the default phone profile with simulated
 * throttling, the home page, a long page and the components page for performance too, at least 95
 * (the colour scheme changes colours only, not what loads or runs). axe-core checks every theme and mode on all three pages
 * (site-a11y.e2e.test.ts); Lighthouse's accessibility audits are axe's, its best-practice and SEO
 * audits are its own. Runs without performance skip the throttled trace (test/e2e/lighthouse-runner.mjs).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { registerUser, type TestUser } from "../helpers/factories.ts";
import { CHROMIUM, hasChromium } from "./browser.ts";

const LIGHTHOUSE = join(import.meta.dir, "../../node_modules/lighthouse/package.json");
const RUNNER = join(import.meta.dir, "lighthouse-runner.mjs");
const THEMES = ["default", "dark", "forest", "rose", "amber", "minimal", "corporate"];
const MODES = ["light", "dark"] as const;
const QUALITY = ["accessibility", "best-practices", "seo"];

interface Run {
  url: string;
  mode: (typeof MODES)[number];
  categories: string[];
  /** Lighthouse settings for this run; none: the default phone profile with simulated throttling. */
  settings?: Record<string, unknown>;
}
interface Result {
  url: string;
  mode: string;
  scheme: string;
  scores: Record<string, number>;
  failing: string[];
  runtimeError: string | null;
  ms: number;
  /** What was asked for (added here: the runner answers in the order of its runs). */
  run: Run;
}

/**
 * Without a performance score to compute there is no throttled trace to wait for: the page is
 * audited once its network and main thread have been quiet for a quarter second, without the
 * full-page screenshot. (Lighthouse stretches every wait to 5 s under any throttling method but
 * "simulate", which is why it stays the method: simulation only computes, it slows nothing.)
 */
const QUALITY_ONLY = {
  disableFullPageScreenshot: true,
  pauseAfterFcpMs: 0,
  pauseAfterLoadMs: 0,
  networkQuietThresholdMs: 250,
  cpuQuietThresholdMs: 250,
};

async function lighthouse(runs: Run[]): Promise<Result[]> {
  const proc = Bun.spawn(["node", RUNNER, JSON.stringify({ chrome: CHROMIUM, runs })], { stdout: "pipe", stderr: "pipe" });
  const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  if (code !== 0) throw new Error(`lighthouse failed (${code}): ${err}`);
  return (JSON.parse(out) as Omit<Result, "run">[]).map((r, i) => ({ ...r, run: runs[i]! }));
}

/**
 * Lighthouse gives its robots.txt request 2 s; on a loaded machine it can run out, and the audit
 * then fails as "unable to download", saying nothing of the file. A run whose only failure is
 * that is run once more, alone; what the second run finds is the result.
 */
async function retryUnfetchedRobots(results: Result[]): Promise<Result[]> {
  const unfetched = (r: Result) => r.failing.length === 1 && r.failing[0]!.startsWith("seo: robots-txt") && r.failing[0]!.includes("unable to download");
  const out: Result[] = [];
  for (const r of results) out.push(unfetched(r) ? (await lighthouse([r.run]))[0]! : r);
  return out;
}

describe.skipIf(!hasChromium)("the published site under Lighthouse", () => {
  let server: TestServer;
  /** One workspace per theme, so that every run goes to one browser without changing a setting between them. */
  const sites = new Map<string, TestUser>();

  beforeAll(async () => {
    if (!existsSync(LIGHTHOUSE)) throw new Error("lighthouse is not installed (a devDependency: bun install)");
    server = await startTestServer();
    const body = Array.from({ length: 40 }, (_, i) => `## Part ${i + 1}\n\nWhat part ${i + 1} does, in a paragraph a reader can follow.\n\n- one\n- two\n`).join("\n");
    for (const theme of THEMES) {
      server.services.rateLimiter.reset(); // seven sign-ups from one address
      const owner = await registerUser(server.url);
      expect((await owner.client.put(`/api/v1/workspaces/${owner.workspaceId}/admin/settings`, { published: true, visibility: "public", theme })).status).toBe(200);
      expect((await owner.client.post(`/api/v1/content/${owner.workspaceSlug}/guides/long-guide.md`, { title: "The long guide", description: "Every part, one by one.", body, publish: true })).status).toBe(201);
      sites.set(theme, owner);
    }
  }, 60_000);
  afterAll(() => server?.close());

  const url = (theme: string, path: string) => `${server.url}/p/${sites.get(theme)!.workspaceSlug}${path}`;
  const summary = (r: Result) => `${r.url} (${r.mode}): ${JSON.stringify(r.scores)} ${r.failing.join("; ")}${r.runtimeError ? ` runtime error: ${r.runtimeError}` : ""}`;

  test("the components page in every theme, light and dark: accessibility, best practices and SEO 100", async () => {
    const runs: Run[] = THEMES.flatMap((theme) => MODES.map((mode) => ({ url: url(theme, "/components"), mode, categories: QUALITY, settings: QUALITY_ONLY })));
    // Two runners side by side, each with its own Chromium: a run mostly waits (on Lighthouse's
    // quiet-window checks), so two halve the time without changing what is scored.
    const halves = [runs.filter((_, i) => i % 2 === 0), runs.filter((_, i) => i % 2 === 1)];
    const results = await retryUnfetchedRobots((await Promise.all(halves.map(lighthouse))).flat());
    expect(results).toHaveLength(THEMES.length * MODES.length);
    const below: string[] = [];
    for (const r of results) {
      expect(r.scheme).toBe(r.mode); // the page saw the colour scheme it was run in
      if (r.runtimeError || QUALITY.some((c) => r.scores[c] !== 100)) below.push(summary(r));
    }
    expect(below).toEqual([]);
  }, 240_000);

  test("home, a long page and the components page on a throttled phone: performance ≥ 95, the rest 100", async () => {
    const runs: Run[] = [
      { url: url("default", "/"), mode: "light", categories: ["performance", ...QUALITY] },
      { url: url("default", "/guides/long-guide"), mode: "light", categories: ["performance", ...QUALITY] },
      { url: url("default", "/components"), mode: "light", categories: ["performance", ...QUALITY] },
    ];
    const results = await lighthouse(runs);
    const below: string[] = [];
    for (const r of results) {
      expect(r.scheme).toBe(r.mode);
      if (r.runtimeError || (r.scores.performance ?? 0) < 95 || QUALITY.some((c) => r.scores[c] !== 100)) below.push(summary(r));
    }
    expect(below).toEqual([]);
  }, 240_000);
});
