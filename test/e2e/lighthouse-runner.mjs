// Runs Lighthouse (under Node, as its CLI does) on several pages in one Chromium, so that a run
// costs no browser start: each run in a browser context of its own, its tab's prefers-color-scheme
// the run's mode. Input: one JSON argument {chrome, runs: [{url, mode, categories, settings?}]};
// output: one JSON array on stdout, per run the category scores (0–100), the weighted audits that
// fail (with the first elements they name), the colour scheme the page saw and the run's time.
// LIGHTHOUSE_PROGRESS=1 prints each run's phases as it ends; LIGHTHOUSE_LOG=verbose, Lighthouse's log.
import { createRequire } from "node:module";
import lighthouse from "lighthouse";

// The puppeteer Lighthouse itself depends on (its page API is what `lighthouse()` accepts).
const fromLighthouse = createRequire(createRequire(import.meta.url).resolve("lighthouse/package.json"));
const puppeteer = (await import(fromLighthouse.resolve("puppeteer-core"))).default;

const { chrome, runs } = JSON.parse(process.argv[2]);
const browser = await puppeteer.launch({ executablePath: chrome, headless: true, args: ["--no-sandbox", "--disable-gpu"] });
const results = [];
try {
  for (const run of runs) {
    const started = performance.now();
    // A context of its own: with a new tab in one context, ending the second run's trace took 5 s more.
    const context = await browser.createBrowserContext();
    const page = await context.newPage();
    await page.emulateMediaFeatures([{ name: "prefers-color-scheme", value: run.mode }]);
    // Settings go in the configuration: as flags, the waits' thresholds would not reach the navigation.
    const config = { extends: "lighthouse:default", settings: { onlyCategories: run.categories, ...run.settings } };
    const { lhr } = await lighthouse(run.url, { output: "json", logLevel: process.env.LIGHTHOUSE_LOG ?? "error" }, config, page);
    const scheme = await page.evaluate(() => (matchMedia("(prefers-color-scheme: dark)").matches ? "dark" : "light"));
    const scores = {};
    const failing = [];
    for (const [name, category] of Object.entries(lhr.categories)) {
      scores[name] = Math.round((category.score ?? 0) * 100);
      for (const ref of category.auditRefs) {
        const audit = lhr.audits[ref.id];
        if (ref.weight > 0 && audit && audit.score !== null && audit.score < 1) {
          // What fails, by element: the first few nodes Lighthouse names (accessibility audits list them).
          const nodes = (audit.details?.items ?? []).slice(0, 3).map((i) => `${i.node?.snippet ?? ""} ${i.node?.explanation?.split("\n").slice(1, 2).join("") ?? ""}`.trim()).filter(Boolean);
          failing.push(`${name}: ${ref.id} ${audit.score} ${audit.displayValue ?? ""} ${audit.explanation ?? ""} ${nodes.join(" | ")}`.trim());
        }
      }
    }
    if (process.env.LIGHTHOUSE_PROGRESS) console.error(`${Math.round(performance.now() - started)} ms ${run.url} ${run.mode}`, JSON.stringify(lhr.timing.entries.filter((e) => e.duration > 50).map((e) => [e.name, Math.round(e.duration)])));
    results.push({ url: run.url, mode: run.mode, scheme, scores, failing, runtimeError: lhr.runtimeError?.message ?? null, ms: Math.round(performance.now() - started) });
    await context.close();
  }
} finally {
  await browser.close();
}
process.stdout.write(JSON.stringify(results));
