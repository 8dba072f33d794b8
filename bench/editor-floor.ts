/**
 * The floor under the rich editor's typing latency (docs/decisions/editor-blocks.md, "Seventh
 * pass"): the same keys, timed as `bench/editor.ts` times them (`typing()` in editor-page.ts; frames
 * uncapped), on editors that do less and less than the app, in turns in the same Chromium:
 *   bare        a `<div contenteditable>` holding 10 paragraphs (the browser alone);
 *   prosemirror ProseMirror over a minimal schema, the same 10 paragraphs;
 *   tiptap      Tiptap with StarterKit alone, the same content;
 *   tiptap-react the same inside React (`useEditor` + `EditorContent`, as the app mounts it);
 *   bare-1000, tiptap-1000  the bare div and Tiptap with 1,000 paragraphs (the long page's length),
 *               and each again with the app's `content-visibility` rule for long pages (`-cv`);
 *   bare-1000-g50-cv, bare-1000-g10-cv, tiptap-1000-g50-cv  the same paragraphs in 50 groups of 20
 *               (10 of 100), the rule on the groups: what the app's block groups do (editor/block-groups.ts);
 *   rich-editor, rich-editor-1000  the app's editor component (RichEditor.tsx) with the app's style
 *               sheet and nothing around it, over the app's 10- and 1,000-block pages;
 *   app-10      the app's rich editor on the 10-block page (the first ten blocks of the long page);
 *   app-1000    the app on the 1,000-block page.
 * Beside each: the renderer's main-thread time per key (CDP `Performance.getMetrics`: all tasks,
 * script, layout with style) over the keys typed, the median of the rounds.
 * `bun bench/editor-floor.ts [--rounds n] [--only a,b]`
 */
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser, CDPSession, Page } from "playwright-core";
import { percentile, printTable, REPO, type Row } from "./harness.ts";
import { bigPage, editorHolds, openFromTree, smallPage, typing } from "./editor-page.ts";
import { startTestServer } from "../test/helpers/server.ts";
import { registerUser } from "../test/helpers/factories.ts";
import { EDITOR_PARAGRAPHS, signInInUi } from "../test/e2e/browser.ts";

const args = process.argv.slice(2);
const ROUNDS = args.includes("--rounds") ? Number(args[args.indexOf("--rounds") + 1]) : 3;
const ONLY = args.includes("--only") ? new Set(args[args.indexOf("--only") + 1]!.split(",")) : null;

const PAGE = bigPage();
const SMALL = smallPage(PAGE);
/** The long page's paragraph, `n` times, as HTML elements: what the bare editors hold. */
const paragraphs = (n: number) => Array.from(
  { length: n },
  (_, i) => `<p>Paragraph ${i + 1} with <em>emphasis</em>, <strong>strong</strong>, <code>code</code>, a <a href="https://example.com/${i + 1}">link</a> and [[guide/page-${(i + 1) % 9}]].</p>`,
);
const PARAGRAPHS = { 10: paragraphs(10).join(""), 1000: paragraphs(1000).join("") };
/** The 1,000 paragraphs in `n` `<div>`s of equal length: fewer children of the editable element, the rule on each group. */
const grouped = (n: number) => {
  const all = paragraphs(1000);
  const size = all.length / n;
  return Array.from({ length: n }, (_, g) => `<div>${all.slice(g * size, (g + 1) * size).join("")}</div>`).join("");
};
/**
 * bench/editor.ts types in the long page's 501st paragraph, its 737th block (paragraph n is block n):
 * the long bare editors type in their 737th paragraph, so as much of the page lies before the caret.
 */
const LONG_CARET = Number([...PAGE.matchAll(/^Paragraph (\d+) with/gm)][500]![1]);

/**
 * The pages beside the app: the editor's script (none: a bare contenteditable), its paragraphs, the
 * long page's CSS rule; or the app's own editor component with the app's style sheet and no shell,
 * over the app's pages' Markdown.
 */
interface Fixture { script: string | null; blocks: 10 | 1000; cv?: boolean; markdown?: string; groups?: number }
const FIXTURES: Record<string, Fixture> = {
  bare: { script: null, blocks: 10 },
  prosemirror: { script: "prosemirror", blocks: 10 },
  tiptap: { script: "tiptap", blocks: 10 },
  "tiptap-react": { script: "tiptap-react", blocks: 10 },
  "bare-1000": { script: null, blocks: 1000 },
  "bare-1000-cv": { script: null, blocks: 1000, cv: true },
  "bare-1000-g50-cv": { script: null, blocks: 1000, cv: true, groups: 50 },
  "bare-1000-g10-cv": { script: null, blocks: 1000, cv: true, groups: 10 },
  "tiptap-1000": { script: "tiptap", blocks: 1000 },
  "tiptap-1000-cv": { script: "tiptap", blocks: 1000, cv: true },
  "tiptap-1000-g50-cv": { script: "tiptap-chunked", blocks: 1000, cv: true, groups: 50 },
  "rich-editor": { script: "rich-editor", blocks: 10, markdown: SMALL },
  "rich-editor-1000": { script: "rich-editor", blocks: 1000, markdown: PAGE },
};
const APP_CSS = await Bun.file(join(REPO, "src/web/styles.css")).text();

// The bare editors' scripts, bundled as the app is (Bun.build, minified, production React).
const ENTRIES: Record<string, string> = {
  prosemirror: `
    import { DOMParser, Schema } from "prosemirror-model";
    import { EditorState } from "prosemirror-state";
    import { EditorView } from "prosemirror-view";
    import { keymap } from "prosemirror-keymap";
    import { baseKeymap } from "prosemirror-commands";
    import { history, undo, redo } from "prosemirror-history";
    const schema = new Schema({
      nodes: {
        doc: { content: "block+" },
        paragraph: { group: "block", content: "inline*", parseDOM: [{ tag: "p" }], toDOM: () => ["p", 0] },
        text: { group: "inline" },
      },
      marks: {
        link: { attrs: { href: {} }, inclusive: false, parseDOM: [{ tag: "a[href]", getAttrs: (d) => ({ href: d.getAttribute("href") }) }], toDOM: (m) => ["a", { href: m.attrs.href }, 0] },
        em: { parseDOM: [{ tag: "em" }], toDOM: () => ["em", 0] },
        strong: { parseDOM: [{ tag: "strong" }], toDOM: () => ["strong", 0] },
        code: { parseDOM: [{ tag: "code" }], toDOM: () => ["code", 0] },
      },
    });
    const src = document.getElementById("src");
    const doc = DOMParser.fromSchema(schema).parse(src);
    src.remove();
    new EditorView(document.getElementById("ed"), { state: EditorState.create({ doc, plugins: [history(), keymap({ "Mod-z": undo, "Mod-y": redo }), keymap(baseKeymap)] }) });
  `,
  tiptap: `
    import { Editor } from "@tiptap/core";
    import StarterKit from "@tiptap/starter-kit";
    const src = document.getElementById("src");
    new Editor({ element: document.getElementById("ed"), extensions: [StarterKit], content: src.innerHTML });
    src.remove();
  `,
  "tiptap-chunked": `
    import { Editor, Node } from "@tiptap/core";
    import StarterKit from "@tiptap/starter-kit";
    const Chunk = Node.create({ name: "chunk", content: "block+", parseHTML: () => [{ tag: "div" }], renderHTML: () => ["div", 0] });
    const src = document.getElementById("src");
    new Editor({ element: document.getElementById("ed"), extensions: [StarterKit.configure({ document: false }), Node.create({ name: "doc", topNode: true, content: "chunk+" }), Chunk], content: src.innerHTML });
    src.remove();
  `,
  "tiptap-react": `
    import { createElement as h } from "react";
    import { createRoot } from "react-dom/client";
    import { EditorContent, useEditor } from "@tiptap/react";
    import StarterKit from "@tiptap/starter-kit";
    const src = document.getElementById("src");
    const content = src.innerHTML;
    src.remove();
    function App() {
      const editor = useEditor({ extensions: [StarterKit], content });
      return h(EditorContent, { editor });
    }
    createRoot(document.getElementById("ed")).render(h(App));
  `,
  "rich-editor": `
    import { createElement as h } from "react";
    import { createRoot } from "react-dom/client";
    import { RichEditor } from ${JSON.stringify(join(REPO, "src/web/editor/RichEditor.tsx"))};
    const src = document.getElementById("src");
    const markdown = src.textContent;
    src.remove();
    createRoot(document.getElementById("ed")).render(h(RichEditor, { markdown, editable: true, onChange() {}, onUnsupported() { document.title = "unsupported"; } }));
  `,
};

async function bundle(): Promise<Map<string, string>> {
  const dir = mkdtempSync(join(tmpdir(), "quire-bench-editor-floor-"));
  try {
    symlinkSync(join(REPO, "node_modules"), join(dir, "node_modules"));
    const out = new Map<string, string>();
    for (const [name, code] of Object.entries(ENTRIES)) {
      writeFileSync(join(dir, `${name}.js`), code);
      const built = await Bun.build({ entrypoints: [join(dir, `${name}.js`)], target: "browser", minify: true, define: { "process.env.NODE_ENV": JSON.stringify("production") } });
      if (!built.success) throw new Error(`${name}: ${built.logs.join("\n")}`);
      out.set(name, await built.outputs[0]!.text());
    }
    return out;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The renderer's counters (seconds, cumulative): all main-thread tasks, script, layout with style. */
interface Cpu { task: number; script: number; layout: number }
async function counters(cdp: CDPSession): Promise<Cpu> {
  const { metrics } = await cdp.send("Performance.getMetrics");
  const get = (n: string) => metrics.find((m) => m.name === n)?.value ?? 0;
  return { task: get("TaskDuration"), script: get("ScriptDuration"), layout: get("LayoutDuration") + get("RecalcStyleDuration") };
}

interface Variant {
  name: string;
  what: string;
  page: Page;
  cdp: CDPSession;
  /** Brings the page to where its keys are typed; returns the paragraph selector and index. */
  ready(): Promise<{ paragraphs: string; index: number }>;
  latency: number[];
  cpu: Cpu[];
}

async function newPage(browser: Browser): Promise<{ page: Page; cdp: CDPSession }> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  await cdp.send("Performance.enable");
  return { page, cdp };
}

const { chromium } = await import("playwright-core");
const browser = await chromium.launch({ executablePath: "/usr/bin/chromium", headless: true, args: ["--no-sandbox", "--disable-gpu", "--disable-frame-rate-limit", "--disable-gpu-vsync"] });
const scripts = await bundle();
const fixtures = Bun.serve({
  port: 0,
  hostname: "127.0.0.1",
  fetch(req) {
    const path = new URL(req.url).pathname.slice(1);
    if (path.endsWith(".js")) return new Response(scripts.get(path.slice(0, -3)) ?? "", { headers: { "content-type": "text/javascript" } });
    const fixture = FIXTURES[path];
    if (!fixture) return new Response("", { status: 404 });
    const content = fixture.groups ? grouped(fixture.groups) : PARAGRAPHS[fixture.blocks];
    // The app's rule for long pages (styles.css): blocks away from the screen skip layout and paint.
    const cv = !fixture.cv ? "" : fixture.groups
      ? `<style>#ed > div, #ed > .tiptap > div { content-visibility: auto; contain-intrinsic-size: auto ${(2.5 * 1000) / fixture.groups}em; }</style>`
      : `<style>#ed > p, #ed > .tiptap > p { content-visibility: auto; contain-intrinsic-size: auto 2.5em; }</style>`;
    const body =
      fixture.markdown !== undefined
        ? `<style>${APP_CSS}</style><script type="text/markdown" id="src">${fixture.markdown}</script><main class="content"><article class="page-editor"><div id="ed"></div></article></main><script src="/${fixture.script}.js"></script>`
        : fixture.script === null
          ? `<div id="ed" class="bare" contenteditable="true">${content}</div>`
          : `<div id="src" hidden>${content}</div><div id="ed"></div><script src="/${fixture.script}.js"></script>`;
    return new Response(`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${path}</title>${cv}</head><body>${body}</body></html>`, { headers: { "content-type": "text/html" } });
  },
});
const server = await startTestServer();
const variants: Variant[] = [];
try {
  for (const [name, fixture] of Object.entries(FIXTURES)) {
    if (ONLY && !ONLY.has(name)) continue;
    const long = fixture.blocks === 1000;
    const selector = fixture.script === null ? (fixture.groups ? ".bare p" : ".bare > p")
      : fixture.script === "prosemirror" ? ".ProseMirror > p"
      : fixture.markdown !== undefined ? EDITOR_PARAGRAPHS
      : fixture.groups ? ".tiptap > div > p" : ".tiptap > p";
    const { page, cdp } = await newPage(browser);
    await page.goto(`${fixtures.url}${name}`);
    if (fixture.markdown === undefined) await page.locator(selector).nth(fixture.blocks - 1).waitFor();
    else await editorHolds(page, fixture.blocks);
    // The caret where bench/editor.ts puts it: the third paragraph of a short page, the long page's
    // block (the 501st paragraph of the app's page, the same block of the bare ones).
    const index = !long ? 2 : fixture.markdown === undefined ? LONG_CARET : 500;
    variants.push({ name, what: fixture.markdown === undefined ? `${fixture.blocks} paragraphs` : `the editor alone, ${fixture.blocks} blocks`, page, cdp, ready: async () => ({ paragraphs: selector, index }), latency: [], cpu: [] });
  }
  if (!ONLY || ONLY.has("app-10") || ONLY.has("app-1000")) {
    const user = await registerUser(server.url);
    for (const [path, title, body] of [["big.md", "Big", PAGE], ["small.md", "Small", SMALL]] as const) {
      const created = await user.client.post(`/api/v1/content/${user.workspaceSlug}/${path}`, { title, body });
      if (created.status !== 201) throw new Error(`page not created: ${created.status}`);
    }
    // One signed-in page for both, moving between them through the tree as bench/editor.ts does.
    const { page, cdp } = await newPage(browser);
    await page.goto(`${server.url}/w/${user.workspaceSlug}/p/small.md`);
    await signInInUi(page, user);
    await page.locator(EDITOR_PARAGRAPHS).first().waitFor({ timeout: 60_000 });
    if (!ONLY || ONLY.has("app-10")) {
      variants.push({
        name: "app-10", what: "the app, 10 blocks", page, cdp, latency: [], cpu: [],
        ready: async () => {
          await openFromTree(page, "Small");
          await page.locator(EDITOR_PARAGRAPHS).filter({ hasText: "Paragraph 2 with" }).waitFor();
          return { paragraphs: EDITOR_PARAGRAPHS, index: 2 };
        },
      });
    }
    if (!ONLY || ONLY.has("app-1000")) {
      variants.push({
        name: "app-1000", what: "the app, 1,000 blocks", page, cdp, latency: [], cpu: [],
        ready: async () => {
          await openFromTree(page, "Big");
          await editorHolds(page, 1000);
          return { paragraphs: EDITOR_PARAGRAPHS, index: 500 };
        },
      });
    }
  }
  const loads: string[] = [];
  for (let round = -1; round < ROUNDS; round++) {
    // Round -1 warms each editor up (scripts compiled, caches filled) and is not counted.
    const order = round % 2 ? [...variants].reverse() : variants;
    for (const v of order) {
      const { paragraphs, index } = await v.ready();
      let start: Cpu | null = null;
      let spent: Cpu | null = null;
      const lat = await typing(v.page, index, v.what, paragraphs, {
        before: async () => void (start = await counters(v.cdp)),
        after: async () => void (spent = await counters(v.cdp)),
      });
      if (round < 0) continue;
      v.latency.push(...lat);
      const perKey = (k: keyof Cpu) => ((spent![k] - start![k]) * 1000) / lat.length;
      v.cpu.push({ task: perKey("task"), script: perKey("script"), layout: perKey("layout") });
    }
    if (round >= 0) loads.push((await Bun.file("/proc/loadavg").text()).split(" ").slice(0, 2).join(" / "));
  }
  const ms = (v: number) => v.toFixed(1);
  const rows: Row[] = variants.map((v) => {
    const med = (k: keyof Cpu) => ms(percentile(v.cpu.map((c) => c[k]), 50));
    return {
      measure: `${v.name} (${v.latency.length} keys)`,
      value: `${ms(percentile(v.latency, 50))} / ${ms(percentile(v.latency, 99))} ms`,
      note: `per key: main thread ${med("task")} ms (script ${med("script")}, layout and style ${med("layout")}), median of rounds`,
    };
  });
  rows.push({ measure: "load average after each round (1 / 5 min)", value: loads.join("; "), note: "2 cores" });
  printTable("Typing latency floor, keydown → next frame, frames uncapped (p50 / p99)", rows);
} finally {
  await browser.close();
  await server.close();
  await fixtures.stop(true);
}
