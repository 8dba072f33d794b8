/**
 * The rich editor on a long page (issue 17's budgets, docs/architecture.md §11): a 1,000-block page
 * of headings, paragraphs with marks and links, lists, code, GFM tables and components, opened in
 * Debian's Chromium.
 * - open → interactive: navigation start → the last block rendered in an editable editor (p50 < 150 ms);
 * - typing latency: keydown → the frame after the editor's update, 60 keys in the middle of the page
 *   (p99 < 16 ms, one frame);
 * - serializing after one edit (in this process: the editor's Markdown session is plain TypeScript),
 *   the whole page written back with one changed block (< 5 ms);
 * - the JavaScript a page open loads and the app's whole bundle, gzip bytes (the editor's growth is
 *   read by comparing two builds' figures: ≤ +30 %).
 * `bun bench/editor.ts [opens]` — the machine's load is printed with the figures. Type-checked with the
 * web app's configuration (src/web/tsconfig.json): its browser callbacks use the DOM's types.
 */
import { loadavg } from "node:os";
import { gzipSync } from "bun";
import { startTestServer } from "../test/helpers/server.ts";
import { registerUser } from "../test/helpers/factories.ts";
import { hasChromium, launch, newTab, signInInUi } from "../test/e2e/browser.ts";
import { MarkdownSession } from "../src/web/markdown/session.ts";
import type { PMNode } from "../src/web/markdown/pm.ts";
import { loadWebApp } from "../src/web/build-web.ts";
import { ms, percentile, printTable, type Row } from "./harness.ts";

const OPENS = Number(process.argv[2] ?? 7);
const BLOCKS = 1000;

/** A 1,000-block page in the shapes writers use, every 20th block a table or a component. */
function longPage(blocks: number): string {
  const out: string[] = ["# A long page"];
  for (let i = 1; out.length < blocks - 1; i++) {
    switch (i % 20) {
      case 0:
        out.push(`| Name ${i} | Value | Notes |\n| --- | ---: | :---: |\n| alpha | ${i} | *first* |\n| beta | ${i * 2} | \`code\` |`);
        break;
      case 5:
        out.push(`:::callout[note]\nA note in block ${i}, with **bold** text.\n:::`);
        break;
      case 10:
        out.push(`:::tabs\n::tab[First]\nFirst tab of ${i}.\n::\n::tab[Second]\nSecond tab.\n::\n:::`);
        break;
      case 3:
        out.push(`## Section ${i}`);
        break;
      case 7:
        out.push(`- item one of ${i}\n- item two with [a link](https://example.com/${i})\n- item three`);
        break;
      case 13:
        out.push("```ts\nconst x = " + i + ";\nconsole.log(x);\n```");
        break;
      default:
        out.push(`Paragraph ${i} has some *emphasis*, some **strong** words and \`inline code\`, like a real page does.`);
    }
  }
  out.push("The last block of the page.");
  return out.join("\n\n") + "\n";
}

const load = () => loadavg().map((l) => l.toFixed(2)).join(" ");
const rows: Row[] = [{ measure: "load average at start (1, 5, 15 min)", value: load() }];

// ---- serialization, in process ----
const text = longPage(BLOCKS);
const session = new MarkdownSession(text);
const doc = session.initial;
session.rebase(doc);
const saves: number[] = [];
for (let i = 0; i < 200; i++) {
  const content = [...(doc.content ?? [])];
  const at = 500 + (i % 50) * 2;
  const node = content[at]!;
  content[at] = node.type === "paragraph" ? { ...node, content: [{ type: "text", text: `Edited paragraph ${i}.` }] } : node;
  const s = performance.now();
  const out = session.save({ ...doc, content } as PMNode);
  saves.push(performance.now() - s);
  if (out.length < text.length / 2) throw new Error("the session wrote back less than the page");
}
saves.sort((a, b) => a - b);
rows.push({ measure: `serialize after one edit (${BLOCKS} blocks, ${text.length.toLocaleString("en")} chars): p50`, value: ms(percentile(saves, 50)), note: "budget < 5 ms" });
rows.push({ measure: "serialize after one edit: p99", value: ms(percentile(saves, 99)) });
const noop = session.save(doc);
rows.push({ measure: "no-op save gives the same bytes", value: noop === text ? "yes" : "NO" });

// ---- bundle ----
const app = await loadWebApp();
let allJs = 0;
for (const [name, file] of app.files) if (name.endsWith(".js")) allJs += (file.gzip ?? gzipSync(file.body)).length;
rows.push({ measure: "web app JavaScript, all chunks (gzip)", value: `${(allJs / 1024).toFixed(1)} KB` });

// ---- the browser ----
if (!hasChromium) {
  rows.push({ measure: "browser figures", value: "skipped", note: "/usr/bin/chromium is not installed" });
} else {
  const server = await startTestServer();
  const user = await registerUser(server.url);
  const created = await user.client.post(`/api/v1/content/${user.workspaceSlug}/long.md`, { title: "Long", body: text.replace(/^# A long page\n\n/, "") });
  if (created.status !== 201) throw new Error(`could not create the page: ${created.status}`);
  const browser = await launch();
  try {
    const tab = await newTab(browser);
    const { page } = tab;
    const url = `${server.url}/w/${user.workspaceSlug}/p/long.md`;
    await page.goto(url);
    await signInInUi(page, user);
    await page.getByRole("textbox", { name: "Page content" }).waitFor();
    const opens: number[] = [];
    const jsLoaded: number[] = [];
    for (let i = 0; i < OPENS; i++) {
      let bytes = 0;
      const onResponse = async (res: import("playwright-core").Response) => {
        if (!res.url().endsWith(".js")) return;
        const size = Number((await res.allHeaders())["content-length"] ?? 0);
        bytes += size;
      };
      page.on("response", onResponse);
      await page.goto(url);
      await page.waitForFunction(() => (document.querySelector(".tiptap[contenteditable='true']")?.lastElementChild?.textContent ?? "").includes("The last block of the page."), undefined, {
        timeout: 30_000,
        polling: "raf",
      });
      opens.push(await page.evaluate(() => performance.now()));
      page.off("response", onResponse);
      jsLoaded.push(bytes);
    }
    opens.sort((a, b) => a - b);
    rows.push({ measure: `open → interactive, ${BLOCKS}-block page (${OPENS} opens): p50`, value: ms(percentile(opens, 50)), note: "budget p50 < 150 ms" });
    rows.push({ measure: "open → interactive: max", value: ms(opens[opens.length - 1]!) });
    rows.push({ measure: "JavaScript transferred to open the page (gzip, cache off)", value: `${(Math.max(...jsLoaded) / 1024).toFixed(1)} KB` });

    // Typing in the middle of the page: keydown → the frame after the update.
    const editor = page.getByRole("textbox", { name: "Page content" });
    await editor.getByText("Paragraph 501 has some", { exact: false }).click();
    await page.keyboard.press("End");
    await page.evaluate(() => {
      const w = window as unknown as { __latencies: number[] };
      w.__latencies = [];
      document.addEventListener(
        "keydown",
        (e) => {
          const t = e.timeStamp;
          requestAnimationFrame(() => setTimeout(() => w.__latencies.push(performance.now() - t), 0));
        },
        true,
      );
    });
    for (const ch of "typing into a long page, one key at a time, as people do ") await page.keyboard.type(ch, { delay: 25 });
    await page.waitForTimeout(100);
    const latencies = (await page.evaluate(() => (window as unknown as { __latencies: number[] }).__latencies)).sort((a, b) => a - b);
    rows.push({ measure: `typing latency (${latencies.length} keys): p50`, value: ms(percentile(latencies, 50)) });
    rows.push({ measure: "typing latency: p99", value: ms(percentile(latencies, 99)), note: "budget p99 < 16 ms" });
    await tab.context.close();
  } finally {
    await browser.close();
    await server.close();
  }
}
rows.push({ measure: "load average at the end", value: load() });
printTable(`Rich editor on a ${BLOCKS}-block page — Chromium, Bun ${Bun.version}`, rows);
