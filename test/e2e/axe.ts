/**
 * axe-core in the page under test: the serious and critical WCAG 2.1 A/AA violations it finds (and
 * every label-content-name-mismatch), by rule and target. Evaluated through the browser's debugger,
 * not as a page script, so the page's CSP stays as served.
 */
import { readFileSync } from "node:fs";
import type { Page } from "playwright-core";

const AXE = readFileSync(require.resolve("axe-core/axe.min.js"), "utf8");

export async function axeViolations(page: Page): Promise<string[]> {
  return page.evaluate(async (source) => {
    (0, eval)(source);
    const axe = (window as unknown as { axe: { run(o: object): Promise<{ violations: Array<{ id: string; impact: string; nodes: Array<{ target: string[] }> }> }> } }).axe;
    const result = await axe.run({ runOnly: { type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"] }, rules: { "label-content-name-mismatch": { enabled: true } } });
    return result.violations.filter((v) => v.impact === "serious" || v.impact === "critical" || v.id === "label-content-name-mismatch").flatMap((v) => v.nodes.map((n) => `${v.id}: ${n.target.join(" ")}`));
  }, AXE);
}
