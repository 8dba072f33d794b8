/**
 * The published site as screen readers and accessibility checkers see it: axe-core in Debian's
 * Chromium, under the site's own CSP, on the home page, a long page and the starter's components
 * page, in every theme, light and dark. No serious or critical violation is allowed; the
 * checks Lighthouse's accessibility and SEO audits also make (button names, contrast, scrollable
 * code blocks reachable by keyboard, nested interactive controls) are among axe's rules. A large
 * site's sidebar, filled from its navigation file by the site's script, is checked the same way.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Browser } from "playwright-core";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { registerUser, type TestUser } from "../helpers/factories.ts";
import { expectNoConsoleErrors, hasChromium, launch, newTab, type Tab } from "./browser.ts";

const THEMES = ["default", "dark", "forest", "rose", "amber", "minimal", "corporate"];
const AXE = readFileSync(join(import.meta.dir, "../../node_modules/axe-core/axe.min.js"), "utf8");

/** A long page: many sections, lists, a table, code wider than the column, a callout. */
function longPage(): string {
  const parts: string[] = ["# The long guide\n", "An introduction that says what this guide covers and for whom.\n"];
  for (let i = 1; i <= 30; i++) {
    parts.push(`## Step ${i}: configure part ${i}\n`);
    parts.push(`Part ${i} reads its settings from the environment. See [the next step](#step-${i + 1}-configure-part-${i + 1}) and the table below.\n`);
    parts.push(`- first item of step ${i}\n- second item with \`inline code\`\n`);
    if (i % 5 === 0) parts.push("```ts\nexport const settings = { port: Number(process.env.PORT ?? 3000), host: process.env.HOST ?? \"127.0.0.1\", veryLongOptionNameThatOverflowsTheColumn: true };\n```\n");
    if (i % 10 === 0) parts.push("| setting | default |\n|---|---|\n| PORT | 3000 |\n| HOST | 127.0.0.1 |\n");
    if (i % 7 === 0) parts.push(":::callout[note]\nRemember to **restart** after a change.\n:::\n");
  }
  return parts.join("\n");
}

/** Every CSP violation becomes a console error, which expectNoConsoleErrors refuses. */
async function watchCsp(tab: Tab): Promise<void> {
  await tab.page.addInitScript(() => {
    document.addEventListener("securitypolicyviolation", (e) => console.error(`CSP violation: ${e.violatedDirective} ${e.blockedURI}`));
  });
}

/** axe-core's serious and critical violations on the tab's page, one line each. */
async function seriousViolations(tab: Tab, where: string): Promise<string[]> {
  // Injected through the debugging protocol: the page's CSP stays in force for its own code.
  await tab.page.evaluate(AXE);
  const violations = (await tab.page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run: (ctx: Document, opts: unknown) => Promise<{ violations: unknown[] }> } }).axe;
    return (await axe.run(document, { resultTypes: ["violations"] })).violations;
  })) as Violation[];
  return violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => `${where}: ${v.id} (${v.impact}) ${v.help} — ${v.nodes.slice(0, 3).map((n) => `${n.target.join(" ")}: ${n.failureSummary?.split("\n").slice(1, 2).join("")}`).join(" | ")}`);
}

interface Violation {
  id: string;
  impact: string | null;
  help: string;
  nodes: Array<{ target: string[]; failureSummary?: string }>;
}

describe.skipIf(!hasChromium)("the published site with axe-core", () => {
  let server: TestServer;
  let browser: Browser;
  let owner: TestUser;

  beforeAll(async () => {
    [server, browser] = await Promise.all([startTestServer(), launch()]);
    owner = await registerUser(server.url);
    const r = await owner.client.put(`/api/v1/workspaces/${owner.workspaceId}/admin/settings`, { published: true, visibility: "public" });
    expect(r.status).toBe(200);
    expect((await owner.client.post(`/api/v1/content/${owner.workspaceSlug}/guides/long-guide.md`, { title: "The long guide", body: longPage(), publish: true })).status).toBe(201);
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  test("home, a long page and the components page: no serious or critical violation in any theme, light or dark", async () => {
    const found: string[] = [];
    const tab = await newTab(browser);
    for (const theme of THEMES) {
      const set = await owner.client.put(`/api/v1/workspaces/${owner.workspaceId}/admin/settings`, { theme });
      expect(set.status).toBe(200);
      for (const mode of ["light", "dark"] as const) {
        await tab.page.emulateMedia({ colorScheme: mode });
        for (const path of ["/", "/guides/long-guide", "/components"]) {
          await tab.page.goto(`${server.url}/p/${owner.workspaceSlug}${path}`, { waitUntil: "load" });
          // Diagrams and the script's controls are part of what readers get.
          if (path === "/components") {
            await tab.page.locator(".mermaid").first().scrollIntoViewIfNeeded();
            await tab.page.locator(".mermaid.mermaid-rendered svg").first().waitFor({ timeout: 30_000 });
          }
          found.push(...(await seriousViolations(tab, `${theme}/${mode} ${path}`)));
        }
      }
    }
    await tab.context.close();
    expect(found).toEqual([]);
  }, 240_000);

  test("a large site: the sidebar's collapsed sections open from the navigation file, under the CSP, without violations", async () => {
    const big = await registerUser(server.url);
    expect((await big.client.put(`/api/v1/workspaces/${big.workspaceId}/admin/settings`, { published: true, visibility: "public" })).status).toBe(200);
    const root = server.services.ledger.dir(big.workspaceId).root;
    for (let s = 0; s < 7; s++) {
      mkdirSync(join(root, `part-${s}`), { recursive: true });
      // The last folder is longer than a page shows of one list.
      for (let p = 0; p < (s === 6 ? 200 : 50); p++) {
        const n = s === 6 ? String(p).padStart(3, "0") : String(p); // names that sort as numbers
        writeFileSync(join(root, `part-${s}`, `topic-${n}.md`), `---\ntitle: Part ${s} topic ${n}\npublish: true\n---\n\nText ${s}.${p}.\n`);
      }
    }
    await server.services.reconciler.reconcile(big.workspaceId);
    const tab = await newTab(browser);
    await watchCsp(tab);
    const { page } = tab;
    await page.goto(`${server.url}/p/${big.workspaceSlug}/part-0/topic-1`);
    // Another section is one link until the sidebar is used; then it is a section like any other.
    const other = page.locator('#sidebar li:has(> a[href$="/part-4/topic-0"])');
    await expect(other.locator("details").count()).resolves.toBe(0);
    await page.locator("#sidebar").hover();
    await other.locator("details > summary").waitFor();
    await expect(page.locator('#sidebar a[href$="/part-4/topic-17"]').count()).resolves.toBe(0);
    await other.locator("summary").click();
    await page.locator('#sidebar a[href$="/part-4/topic-17"]').waitFor();
    expect(await other.locator("details > ul > li").count()).toBe(50);
    // By keyboard too: the toggle is a control of its own, named for the section.
    const toggle = page.locator('#sidebar li:has(> a[href$="/part-5/topic-0"]) > details > summary');
    await toggle.focus();
    await page.keyboard.press("Enter");
    await page.locator('#sidebar a[href$="/part-5/topic-49"]').waitFor();
    expect(await seriousViolations(tab, "large site")).toEqual([]);
    // A long folder: the page shows a window of it; the script puts the runs left out back in place.
    await page.goto(`${server.url}/p/${big.workspaceSlug}/part-6/topic-100`);
    const folder = page.locator('#sidebar li:has(> details[open] a[aria-current="page"]) > details > ul');
    await expect(folder.locator("> li.nav-more").count()).resolves.toBe(2);
    const shown = await folder.locator("> li").count();
    expect(shown).toBeLessThan(200);
    await page.locator("#sidebar").hover();
    await folder.locator("> li.nav-more").first().waitFor({ state: "detached" });
    expect(await folder.locator("> li").count()).toBe(200);
    expect(await folder.locator("> li.nav-more").count()).toBe(0);
    expect(await seriousViolations(tab, "long folder")).toEqual([]);
    // Without the script's file, the site map has every page.
    await page.goto(`${server.url}/p/${big.workspaceSlug}/site-map`);
    expect(await page.locator("main a").count()).toBeGreaterThanOrEqual(350);
    expect(await seriousViolations(tab, "site map")).toEqual([]);
    expectNoConsoleErrors(tab);
    await tab.context.close();
  }, 120_000);
});
