/**
 * What the editor benchmarks share: the 1,000-block page and the way a key's latency is timed, so
 * `bench/editor.ts` (the app) and `bench/editor-floor.ts` (bare editors beside the app) measure
 * alike (docs/decisions/editor-blocks.md).
 */
import type { Browser, Page } from "playwright-core";
import { clickIntoText, EDITOR_BLOCKS, EDITOR_PARAGRAPHS } from "../test/e2e/browser.ts";

/** 1,000 blocks: paragraphs, headings, lists, code, a padded table every 25 blocks, callouts and tabs. */
export function bigPage(): string {
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

/** The short page: the long page's first ten blocks. */
export function smallPage(big: string): string {
  return big.split("\n\n").slice(0, 10).join("\n\n") + "\n";
}

/** Waits until the rich editor holds at least `blocks` top-level blocks (a long page loads in chunks). */
export async function editorHolds(page: Page, blocks: number): Promise<void> {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  await page.waitForFunction(([selector, n]) => (globalThis as any).document.querySelectorAll(selector).length >= (n as number), [EDITOR_BLOCKS, blocks], { timeout: 60_000 });
}

/** Called just before and just after the keys are typed (a reading of the page's counters); times nothing itself. */
export interface AroundKeys {
  before(): Promise<void>;
  after(): Promise<void>;
}

/**
 * Typing latency: keydown to the frame after the editor's DOM changed, for 152 keys typed 20 ms
 * apart at the end of the `paragraph`th paragraph matched by `paragraphs`.
 */
export async function typing(page: Page, paragraph: number, what: string, paragraphs = EDITOR_PARAGRAPHS, around?: AroundKeys): Promise<number[]> {
  const target = page.locator(paragraphs).nth(paragraph);
  // In a Tiptap editor, End waits until the editor has taken the click's caret: sent sooner, it
  // acted at the previous caret and the first keys landed at the paragraph's start.
  if (paragraphs.startsWith(".tiptap")) await clickIntoText(target);
  else await target.click();
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
  const text = "typing into the middle of a long page ".repeat(4);
  await around?.before();
  await page.keyboard.type(text, { delay: 20 });
  await page.waitForTimeout(200);
  await around?.after();
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const lat = await page.evaluate(() => (globalThis as any).__lat as number[]);
  // Taken back, so the page stays as it was (and leaving it asks nothing).
  for (let i = 0; i < text.length; i++) await page.keyboard.press("Backspace");
  if (lat.length === 0) throw new Error(`no key landed while typing on ${what}`);
  return lat;
}

/**
 * Opens a page of the app through the tree and waits until it is the page shown. Leaving a page
 * whose text differs from the server's asks first, a confirm the test driver dismisses: clicked
 * while a save was pending, the app stayed on the long page and the short page's typing landed in
 * it (docs/decisions/editor-blocks.md, the seventh pass). So the save status is waited for first.
 */
export async function openFromTree(page: Page, title: string): Promise<void> {
  await page.locator(".save-status[data-status=saved]").first().waitFor({ timeout: 30_000 });
  await page.getByRole("tree", { name: "Pages" }).getByRole("link", { name: title }).click();
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  await page.waitForFunction((t) => ((globalThis as any).document.title as string).startsWith(`${t} ·`), title, { timeout: 30_000 });
}

interface TraceEvent { name: string; ph: string; ts: number; dur?: number; pid: number; tid: number; args?: { data?: { type?: string } } }

/**
 * The main thread's own work for each key `typing()` types (its Backspaces after are not traced),
 * from Chromium's timeline trace: from the task that handled the keydown to the end of the task
 * that ran the next animation frame (its paint and commit included), less the time the thread sat
 * idle in between. The latency `typing()` measures also holds that idle time: a key handled while
 * the compositor is inside a frame waits for the frame's deadline, a 60 Hz tick even with frames
 * uncapped (docs/decisions/editor-blocks.md, "Eighth pass"), so its tail is partly the scheduler's.
 * Pass the result to `typing()` as its `around`; `work` holds the figures once it returns.
 */
export function keyWork(browser: Browser, page: Page): AroundKeys & { work: number[] } {
  const work: number[] = [];
  return {
    work,
    before: () => browser.startTracing(page, { categories: ["devtools.timeline", "disabled-by-default-devtools.timeline"] }),
    after: async () => void work.push(...workPerKey(await browser.stopTracing())),
  };
}

function workPerKey(trace: Buffer): number[] {
  const events = (JSON.parse(trace.toString()) as { traceEvents: TraceEvent[] }).traceEvents;
  const thread = (e: TraceEvent) => `${e.pid}:${e.tid}`;
  const isKey = (e: TraceEvent) => e.ph === "X" && e.name === "EventDispatch" && e.args?.data?.type === "keydown";
  // The page's main thread: the one that dispatched the most keys.
  const keysBy = new Map<string, number>();
  for (const e of events) if (isKey(e)) keysBy.set(thread(e), (keysBy.get(thread(e)) ?? 0) + 1);
  const mainThread = [...keysBy].sort((a, b) => b[1] - a[1])[0]?.[0];
  const main = events.filter((e) => thread(e) === mainThread);
  const tasks = main.filter((e) => e.ph === "X" && (e.name === "RunTask" || e.name === "ThreadControllerImpl::RunTask")).sort((a, b) => a.ts - b.ts);
  // Nested tasks merged: the spans the thread was busy.
  const busy: Array<[number, number]> = [];
  for (const t of tasks) {
    const end = t.ts + (t.dur ?? 0);
    const last = busy[busy.length - 1];
    if (last && t.ts <= last[1]) last[1] = Math.max(last[1], end);
    else busy.push([t.ts, end]);
  }
  const spanAt = (ts: number) => busy.find(([a, b]) => a <= ts && ts <= b);
  const frames = main.filter((e) => e.ph === "X" && e.name === "FireAnimationFrame").map((e) => e.ts).sort((a, b) => a - b);
  const work: number[] = [];
  for (const key of main.filter(isKey).sort((a, b) => a.ts - b.ts)) {
    const frame = frames.find((f) => f > key.ts);
    const start = spanAt(key.ts)?.[0];
    const end = frame === undefined ? undefined : spanAt(frame)?.[1];
    if (start === undefined || end === undefined) continue;
    let sum = 0;
    for (const [a, b] of busy) if (b > start && a < end) sum += Math.min(b, end) - Math.max(a, start);
    work.push(sum / 1000);
  }
  return work;
}
