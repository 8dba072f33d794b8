/**
 * A browser suite's fixtures: a server, Chromium and the person who signs in, started before the
 * suite's tests (after `setup`, when given) and closed after them; and a page of that person's
 * workspace opened, signed in, in the rich editor.
 */
import { afterAll, beforeAll } from "bun:test";
import type { Browser } from "playwright-core";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { registerUser, type TestUser } from "../helpers/factories.ts";
import { launch, newTab, signInInUi, type Tab } from "./browser.ts";

export interface BrowserSuite {
  server: TestServer;
  browser: Browser;
  user: TestUser;
  /** The Markdown body of `path`, as the API answers it now. */
  content(path: string): Promise<string>;
}

export function browserSuite(setup?: (suite: BrowserSuite) => Promise<void>): BrowserSuite {
  const suite = {
    content: async (path: string) => (await suite.user.client.get(`/api/v1/content/${suite.user.workspaceSlug}/${path}`)).body.content as string,
  } as BrowserSuite;
  beforeAll(async () => {
    [suite.server, suite.browser] = await Promise.all([startTestServer(), launch()]);
    suite.user = await registerUser(suite.server.url);
    await setup?.(suite);
  }, 30_000);
  afterAll(async () => {
    await suite.browser?.close();
    await suite.server?.close();
  });
  return suite;
}

/** Creates `path` with `body` (when given), opens it in a new tab signed in, and finds the rich editor. */
export async function openInEditor(suite: BrowserSuite, path: string, page?: { title: string; body: string }): Promise<Tab & { editor: ReturnType<Tab["page"]["getByRole"]> }> {
  if (page) {
    const r = await suite.user.client.post(`/api/v1/content/${suite.user.workspaceSlug}/${path}`, page);
    if (r.status !== 201) throw new Error(`could not create ${path}: ${r.status} ${r.text}`);
  }
  const tab = await newTab(suite.browser);
  await tab.page.goto(`${suite.server.url}/w/${suite.user.workspaceSlug}/p/${path}`);
  await signInInUi(tab.page, suite.user);
  return { ...tab, editor: tab.page.getByRole("textbox", { name: "Page content" }) };
}
