/**
 * End-to-end harness: Debian's Chromium driven by playwright-core, headless, against a real
 * Quire server on a temporary data directory. When /usr/bin/chromium is absent the suites skip
 * with a message saying so (CI installs it with apt).
 */
import { expect } from "bun:test";
import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import type { Browser, BrowserContext, Locator, Page } from "playwright-core";
import { nextIp } from "../helpers/client.ts";

export const CHROMIUM = "/usr/bin/chromium";
export const hasChromium = existsSync(CHROMIUM);
if (!hasChromium) {
  // CI installs Chromium (.ci/run): there a missing browser is a broken run, not a reason to skip.
  if (process.env.CI) throw new Error(`[e2e] ${CHROMIUM} is missing on CI: the browser tests cannot run`);
  console.warn(`[e2e] skipped: ${CHROMIUM} is not installed (apt-get install -y chromium)`);
}

export const SHOTS = join(import.meta.dir, "../../test-output");

/** The rich editor's blocks: a long page holds them in groups (src/web/editor/block-groups.ts). */
export const EDITOR_BLOCKS = ".tiptap > :not(.block-group), .tiptap > .block-group > *";
/** The rich editor's top-level paragraphs, grouped or not. */
export const EDITOR_PARAGRAPHS = ".tiptap > p, .tiptap > .block-group > p";

const ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

export async function launch(): Promise<Browser> {
  const { chromium } = await import("playwright-core");
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: ARGS });
}

export interface Tab {
  context: BrowserContext;
  page: Page;
  /** Console errors and uncaught exceptions seen so far. */
  errors: string[];
  ip: string;
}

/**
 * A fresh browser context (its own cookies and storage) speaking from its own client address —
 * the test server trusts X-Forwarded-For — so per-IP limits of one context never hit another.
 */
export async function newTab(browser: Browser, opts: { width?: number; height?: number; userAgent?: string } = {}): Promise<Tab> {
  const ip = nextIp();
  const context = await browser.newContext({
    viewport: { width: opts.width ?? 1280, height: opts.height ?? 860 },
    extraHTTPHeaders: { "x-forwarded-for": ip },
    ...(opts.userAgent ? { userAgent: opts.userAgent } : {}),
  });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on("console", (m) => {
    // A failed load names its address, so a failure says which request it was.
    if (m.type() === "error") errors.push(m.location().url ? `${m.text()} — ${m.location().url}` : m.text());
  });
  page.on("pageerror", (e) => errors.push(String(e)));
  return { context, page, errors, ip };
}

/**
 * Every e2e test ends with this: the tab logged no console error and threw nothing. The browser
 * itself logs each response with an error status ("Failed to load resource: … status of 409 …");
 * a test that provokes such a response on purpose names the statuses it expects, and only those
 * browser lines are let through — never an error the app logged or threw.
 */
export function expectNoConsoleErrors(tab: Tab, expectedStatuses: number[] = []): void {
  const expected = (e: string) => e.startsWith("Failed to load resource") && expectedStatuses.some((s) => e.includes(`status of ${s} `));
  expect(tab.errors.filter((e) => !expected(e))).toEqual([]);
}

export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(SHOTS, { recursive: true });
  await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });
}

/** Registers through the UI and waits for the shell. */
export async function registerInUi(page: Page, baseUrl: string, user: { name: string; email: string; password: string }) {
  await page.goto(baseUrl + "/register");
  await page.getByLabel("Name").fill(user.name);
  await page.getByLabel("Email").fill(user.email);
  await page.getByLabel("Password").fill(user.password);
  await page.getByLabel("I accept the terms of use").check();
  await page.getByRole("button", { name: "Create account" }).click();
  await page.waitForURL(/\/w\/[^/]+$/);
  await page.getByRole("tree", { name: "Pages" }).waitFor();
}

/** Signs in through the login form (optionally arriving from a deep link). */
export async function signInInUi(page: Page, user: { email: string; password: string }) {
  await page.getByLabel("Email").fill(user.email);
  await page.getByLabel("Password").fill(user.password);
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
}

/**
 * Clicks a piece of text in the rich editor and waits until the editor has taken the caret the
 * click placed. Chromium reports a click's new selection through a queued `selectionchange` task;
 * keys sent within the next few milliseconds (no person is that fast, a script is) reach the
 * editor before it, and would act at the editor's previous caret — the start of the document.
 */
export async function clickIntoText(target: Locator): Promise<void> {
  await target.click();
  await caretTaken(target.page());
}

/**
 * Waits until the rich editor holds the browser's caret: after a click, or a key that moves the
 * caret (Home, End, arrows), whose new place the editor also learns from a queued `selectionchange`.
 * A key sent sooner acts at the editor's previous caret, or falls to the browser's own editing.
 */
export async function caretTaken(page: Page): Promise<void> {
  await page.waitForFunction(
    () => {
      type View = { hasFocus(): boolean; posAtDOM(node: Node, offset: number): number; state: { selection: { anchor: number; head: number } } };
      const dom = document.activeElement?.closest(".ProseMirror") as (Element & { editor?: { view: View } }) | null;
      const view = dom?.editor?.view;
      const selection = getSelection();
      if (!view || !selection?.anchorNode || !selection.focusNode || !view.hasFocus()) return false;
      const { anchor, head } = view.state.selection;
      return view.posAtDOM(selection.anchorNode, selection.anchorOffset) === anchor && view.posAtDOM(selection.focusNode, selection.focusOffset) === head;
    },
    undefined,
    { timeout: 5_000 },
  );
}
