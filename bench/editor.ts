/**
 * The rich editor on a 1,000-block page with tables and components (docs/decisions/editor-blocks.md):
 * - serializing after one edit (budget < 5 ms: only the edited block is written), and opening the
 *   text into the editor's document, in this process;
 * - in Debian's Chromium: a page load to the editor interactive (budget p50 < 150 ms) and typing
 *   latency, keydown to the next frame (budget p99 < 16 ms);
 * - the web app's JavaScript, gzip, before and after the editor blocks (budget: at most +30 %),
 *   the "before" built from git (`--before <ref>`, default the last commit before that work).
 * `bun bench/editor.ts [--before <ref>] [--no-browser]`.
 */
import { existsSync, mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MarkdownSession } from "../src/web/markdown/session.ts";
import type { PMNode } from "../src/web/markdown/pm.ts";
import { buildWebApp } from "../src/web/build-web.ts";
import { percentile, printTable, REPO, type Row } from "./harness.ts";

const args = process.argv.slice(2);
const BEFORE = args.includes("--before") ? args[args.indexOf("--before") + 1]! : "6767906";
const BROWSER = !args.includes("--no-browser") && existsSync("/usr/bin/chromium");
const ms = (v: number) => `${v.toFixed(2)} ms`;

/** 1,000 blocks: paragraphs, headings, lists, code, a padded table every 25 blocks, callouts and tabs. */
function bigPage(): string {
  const blocks: string[] = [];
  for (let i = 0; blocks.length < 1000; i++) {
    const k = i % 25;
    if (k === 0) blocks.push(`## Section ${i / 25 + 1}`);
    else if (k === 5) blocks.push("| Name   | Size | Note         |\n| :----- | ---: | ------------ |\n| alpha  |    1 | first `code` |\n| beta   |   22 | **bold**     |\n| gamma  |  333 | [link](/x)   |");
    else if (k === 10) blocks.push(`:::callout[info]\nA callout with **bold** text, number ${i}.\n\n- one\n- two\n:::`);
    else if (k === 15) blocks.push(`:::tabs\n::tab[macOS]\nbrew install quire\n::\n::tab[Linux]\nRun *this* ${i}.\n::\n:::`);
    else if (k === 20) blocks.push("```ts\nconst x = 1;\nconsole.log(x);\n```");
    else if (k % 7 === 3) blocks.push(`- item ${i}\n- item with *emphasis*\n  - nested`);
    else blocks.push(`Paragraph ${i} with *emphasis*, **strong**, \`code\`, a [link](https://example.com/${i}) and [[guide/page-${i % 9}]].`);
  }
  return blocks.join("\n\n") + "\n";
}

const PAGE = bigPage();
const rows: Row[] = [];

// --- In this process: open and serialize.
{
  const opens: number[] = [];
  const baselines: number[] = [];
  const saves: number[] = [];
  for (let run = 0; run < 30; run++) {
    const t0 = performance.now();
    const s = new MarkdownSession(PAGE);
    s.rebase(s.initial);
    opens.push(performance.now() - t0);
    // The editor builds the save baseline once the page is idle (RichEditor.tsx), not while it opens.
    const tb = performance.now();
    s.prepare();
    baselines.push(performance.now() - tb);
    // As the editor hands it over: the same JSON for every block but the edited one.
    const target = s.initial.content!.findIndex((n, i) => i > 500 && n.type === "paragraph");
    const edited = JSON.parse(JSON.stringify(s.initial.content![target])) as PMNode;
    edited.content!.push({ type: "text", text: ` edited ${run}` });
    const doc: PMNode = { type: "doc", content: s.initial.content!.map((n, i) => (i === target ? edited : n)) };
    const t1 = performance.now();
    const out = s.save(doc);
    saves.push(performance.now() - t1);
    if (!out.includes(` edited ${run}`) || out.length !== PAGE.length + ` edited ${run}`.length) throw new Error("the edit did not land as one change");
  }
  rows.push({ measure: "open 1,000 blocks into the editor's document (p50)", value: ms(percentile(opens, 50)), note: "parse + per-block faithfulness check" });
  rows.push({ measure: "build the save baseline (p50)", value: ms(percentile(baselines, 50)), note: "keys of every block; after load, when the page is idle" });
  rows.push({ measure: "serialize after one edit (p50 / p99)", value: `${ms(percentile(saves, 50))} / ${ms(percentile(saves, 99))}`, note: "< 5 ms" });
}

// --- The web app's JavaScript, gzip, before and after.
async function jsGzip(build: () => Promise<{ files: Map<string, { body: Uint8Array; gzip?: Uint8Array }> }>) {
  const app = await build();
  let total = 0;
  let editor = 0;
  for (const [name, f] of app.files) {
    if (!name.endsWith(".js")) continue;
    const size = (f.gzip ?? f.body).byteLength;
    total += size;
    // The editor's chunks: those holding Tiptap/ProseMirror or CodeMirror.
    const text = new TextDecoder().decode(f.body);
    if (/ProseMirror|prosemirror|tiptap|cm-editor/.test(text)) editor += size;
  }
  return { total, editor };
}
{
  const after = await jsGzip(() => buildWebApp({ minify: true }));
  const dir = mkdtempSync(join(tmpdir(), "quire-bench-editor-"));
  try {
    await Bun.$`git -C ${REPO} archive ${BEFORE} src package.json tsconfig.json | tar -x -C ${dir}`.quiet();
    symlinkSync(join(REPO, "node_modules"), join(dir, "node_modules"));
    const out = await Bun.$`bun -e ${`const { buildWebApp } = await import("./src/web/build-web.ts"); const app = await buildWebApp({ minify: true }); let total = 0, editor = 0; for (const [n, f] of app.files) { if (!n.endsWith(".js")) continue; const s = (f.gzip ?? f.body).byteLength; total += s; if (/ProseMirror|prosemirror|tiptap|cm-editor/.test(new TextDecoder().decode(f.body))) editor += s; } console.log(JSON.stringify({ total, editor }));`}`
      .cwd(dir)
      .quiet();
    const before = JSON.parse(out.stdout.toString().trim().split("\n").pop()!) as { total: number; editor: number };
    const kb = (b: number) => `${(b / 1024).toFixed(1)} KB`;
    const pct = (a: number, b: number) => `${(((a - b) / b) * 100).toFixed(1)} %`;
    rows.push({ measure: `editor JS gzip, before (${BEFORE}) → after`, value: `${kb(before.editor)} → ${kb(after.editor)}`, note: `${pct(after.editor, before.editor)} (≤ +30 %)` });
    rows.push({ measure: "all JS gzip, before → after", value: `${kb(before.total)} → ${kb(after.total)}`, note: pct(after.total, before.total) });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Typing latency: keydown to the frame after the editor's DOM changed, for 152 keys. */
async function typing(page: import("playwright-core").Page, paragraph: number, what: string): Promise<Row> {
  await page.locator(".tiptap > p").nth(paragraph).click();
  await page.keyboard.press("End");
  await page.evaluate(() => {
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    const w = globalThis as any;
    w.__lat = [];
    if (w.__listening) return;
    w.__listening = true;
    w.document.addEventListener("keydown", () => (w.__t0 = performance.now()), true);
    w.document.addEventListener("input", () => w.requestAnimationFrame(() => setTimeout(() => w.__lat.push(performance.now() - w.__t0), 0)), true);
  });
  await page.keyboard.type("typing into the middle of a long page ".repeat(4), { delay: 20 });
  await page.waitForTimeout(200);
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const lat = await page.evaluate(() => (globalThis as any).__lat as number[]);
  return { measure: `typing latency, ${what} (${lat.length} keys, p50 / p99)`, value: `${ms(percentile(lat, 50))} / ${ms(percentile(lat, 99))}`, note: "p99 < 16 ms (keydown → next frame)" };
}

// --- In Chromium: load to interactive, typing latency.
if (BROWSER) {
  const { startTestServer } = await import("../test/helpers/server.ts");
  const { registerUser } = await import("../test/helpers/factories.ts");
  const { chromium } = await import("playwright-core");
  const server = await startTestServer();
  const browser = await chromium.launch({ executablePath: "/usr/bin/chromium", headless: true, args: ["--no-sandbox", "--disable-gpu"] });
  try {
    const user = await registerUser(server.url);
    const created = await user.client.post(`/api/v1/content/${user.workspaceSlug}/big.md`, { title: "Big", body: PAGE });
    if (created.status !== 201) throw new Error(`page not created: ${created.status}`);
    const context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
    const page = await context.newPage();
    await page.goto(`${server.url}/w/${user.workspaceSlug}/p/big.md`);
    await page.getByLabel("Email").fill(user.email);
    await page.getByLabel("Password").fill(user.password);
    await page.getByRole("button", { name: "Sign in", exact: true }).click();
    // This file is type-checked without the DOM's types: the page's globals are reached untyped.
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    const lastBlock = () => page.waitForFunction(() => ((globalThis as any).document.querySelector(".tiptap")?.childElementCount ?? 0) >= 1000, undefined, { timeout: 60_000 });
    await lastBlock();
    // Interactive: the editor holds every block and answers a keystroke (its first update).
    const loads: number[] = [];
    for (let run = 0; run < 7; run++) {
      await page.reload();
      await lastBlock();
      loads.push(await page.evaluate(() => performance.now()));
    }
    rows.push({ measure: "page load → rich editor with 1,000 blocks (p50)", value: ms(percentile(loads, 50)), note: "< 150 ms to interactive (from navigation start; includes the app's scripts and the API read)" });

    rows.push(await typing(page, 500, "1,000 blocks"));
    // The same measure on a ten-block page, in the same run: what the machine's load alone costs.
    const small = await user.client.post(`/api/v1/content/${user.workspaceSlug}/small.md`, { title: "Small", body: PAGE.split("\n\n").slice(0, 10).join("\n\n") + "\n" });
    if (small.status !== 201) throw new Error(`page not created: ${small.status}`);
    await page.goto(`${server.url}/w/${user.workspaceSlug}/p/small.md`);
    await page.locator(".tiptap > p").nth(2).waitFor();
    rows.push(await typing(page, 2, "10 blocks, for comparison"));
    await context.close();
  } finally {
    await browser.close();
    await server.close();
  }
}

printTable("Rich editor, 1,000-block page", rows);
