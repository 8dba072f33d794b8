/**
 * The published-page renderer on its own (no HTTP, no cache): the starter workspace's components
 * page (every component, code, math, a diagram) and a code-and-math page.
 * - cold: a fresh process imports the renderer and renders the page once (module loading, Prism's
 *   first languages, KaTeX's first formula included), five processes, median and worst;
 * - warm: p50/p99 over 500 renders in one process;
 * - cached: p50/p99 of RenderCache hits (a hash of the page and a map lookup).
 * `bun bench/render.ts` (the `--cold` flag is the child process's own mode).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";

const ROOT = join(import.meta.dir, "..");
const STARTER = readFileSync(join(ROOT, "assets/starter/components.md"), "utf8").replace(/^---\n[\s\S]*?\n---\n/, "");
const CODE_AND_MATH = [
  "# Deploying",
  "Set the variables, then start the server. The load is $\\lambda = \\frac{n}{t}$ requests per second.",
  '```ts title="server.ts" {2}',
  'import { serve } from "bun";',
  "serve({ port: Number(process.env.PORT ?? 3000), fetch: () => new Response(\"ok\") });",
  "```",
  "```bash",
  "PORT=8080 quire serve --data-dir /var/lib/quire",
  "```",
  "$$",
  "\\sum_{i=1}^{n} x_i^2 \\leq \\left( \\sum_{i=1}^{n} x_i \\right)^2",
  "$$",
].join("\n\n");
const links = { pagePath: "components.md", resolveLink: (t: { path: string }) => `/p/docs/${t.path.replace(/\.md$/, "")}`, pageExists: () => true };

if (process.argv.includes("--cold")) {
  const start = performance.now();
  const { renderMarkdown } = await import("../src/publish/render/index.ts");
  const imported = performance.now();
  renderMarkdown(process.argv.includes("--code") ? CODE_AND_MATH : STARTER, links);
  const done = performance.now();
  console.log(JSON.stringify({ import: imported - start, render: done - imported }));
  process.exit(0);
}

const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((xs.length * p) / 100))]!;
const f = (ms: number) => `${ms.toFixed(2)} ms`;

for (const [label, flag] of [["components page", ""], ["code-and-math page", "--code"]] as const) {
  const runs: Array<{ import: number; render: number }> = [];
  for (let i = 0; i < 5; i++) {
    const child = Bun.spawnSync(["bun", import.meta.path, "--cold", ...(flag ? [flag] : [])], { stdout: "pipe", stderr: "inherit" });
    runs.push(JSON.parse(child.stdout.toString()));
  }
  const renders = runs.map((r) => r.render);
  const imports = runs.map((r) => r.import);
  console.log(`cold ${label}: import median ${f(pct(imports, 50))}, first render median ${f(pct(renders, 50))}, worst ${f(Math.max(...renders))}`);
}

const { renderMarkdown } = await import("../src/publish/render/index.ts");
const { RenderCache } = await import("../src/publish/render/cache.ts");
for (const [label, page] of [["components page", STARTER], ["code-and-math page", CODE_AND_MATH]] as const) {
  for (let i = 0; i < 50; i++) renderMarkdown(page, links);
  const times: number[] = [];
  const cpu = process.cpuUsage();
  for (let i = 0; i < 500; i++) {
    const s = performance.now();
    renderMarkdown(page, links);
    times.push(performance.now() - s);
  }
  const used = process.cpuUsage(cpu);
  // CPU time per render: what the renderer costs whatever else the machine is doing.
  const perRender = (used.user + used.system) / 1000 / 500;
  console.log(`warm ${label} (${page.length} chars): p50 ${f(pct(times, 50))}, p99 ${f(pct(times, 99))}, CPU ${f(perRender)} per render`);
  // Every formula new (KaTeX output is memoized per formula): an edited or never-seen page.
  const fresh: number[] = [];
  const freshCpu = process.cpuUsage();
  for (let i = 0; i < 300; i++) {
    const edited = page.replace(/\$\$\n/, `$$$$\nx_{${i}} + `).replace(/\$([^$\n]+)\$/, `$$$1 + y_{${i}}$$`);
    const s = performance.now();
    renderMarkdown(edited, links);
    fresh.push(performance.now() - s);
  }
  const freshUsed = process.cpuUsage(freshCpu);
  console.log(`first render of ${label} with new formulas: p50 ${f(pct(fresh, 50))}, p99 ${f(pct(fresh, 99))}, CPU ${f((freshUsed.user + freshUsed.system) / 1000 / 300)} per render`);
  const cache = new RenderCache();
  cache.render(page, links, { scope: "w", linkContext: "site" });
  const hits: number[] = [];
  for (let i = 0; i < 2000; i++) {
    const s = performance.now();
    cache.render(page, links, { scope: "w", linkContext: "site" });
    hits.push(performance.now() - s);
  }
  console.log(`cached ${label}: p50 ${f(pct(hits, 50))}, p99 ${f(pct(hits, 99))}`);
}
