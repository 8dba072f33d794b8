import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Browser } from "playwright-core";
import { freePort, startTestServer, type TestServer } from "../helpers/server.ts";
import { registerUser } from "../helpers/factories.ts";
import { startIssuer, type TestIssuer } from "../identity/oidc-issuer.ts";
import { startGitHub, type GitHubStandIn } from "../identity/github-standin.ts";
import { expectNoConsoleErrors, hasChromium, launch, newTab, screenshot, signInInUi } from "./browser.ts";

/**
 * External sign-in in Chromium: the buttons of the sign-in screen, a real OpenID provider's own
 * login and consent screens (oidc-provider on loopback), the way back with a claim code, and
 * linking GitHub (a loopback stand-in) from the profile.
 */
describe.skipIf(!hasChromium)("external sign-in in a real browser", () => {
  let issuer: TestIssuer;
  let github: GitHubStandIn;
  let server: TestServer;
  let browser: Browser;
  let origin: string;
  const stamp = Date.now();

  beforeAll(async () => {
    const port = await freePort();
    origin = `http://localhost:${port}`;
    github = startGitHub();
    issuer = await startIssuer({
      redirectUris: [`${origin}/api/auth/oidc/google/callback`],
      accounts: {
        grace: { email: `grace.${stamp}@example.test`, email_verified: true, name: "Grace Browser" },
        ivan: { email: `ivan.${stamp}@example.test`, email_verified: false, name: "Ivan Unverified" },
      },
    });
    [server, browser] = await Promise.all([startTestServer({ ...issuer.env, ...github.env, BASE_URL: origin }, { port }), launch()]);
  }, 30_000);
  afterAll(async () => {
    await browser?.close();
    await server?.close();
    await issuer?.close();
    await github?.close();
  });

  /** A tab whose requests for the provider pages' web font fail at once (this machine has no way out; waiting for it costs seconds). */
  async function tabWithoutWebFonts() {
    const tab = await newTab(browser);
    await tab.context.route(/fonts\.(googleapis|gstatic)\.com/, (route) => route.abort());
    return tab;
  }

  /** The provider's development screens: any login, any password, then consent. */
  async function atProvider(page: import("playwright-core").Page, login: string) {
    await page.locator('input[name="login"]').fill(login);
    await page.locator('input[name="password"]').fill("any password");
    await page.getByRole("button", { name: "Sign-in" }).click();
    await page.getByRole("button", { name: "Continue" }).click();
  }

  test("Sign in with the provider: its screens, back with a claim code, signed in with a new account", async () => {
    const tab = await tabWithoutWebFonts();
    const { page } = tab;
    const failed: string[] = [];
    page.on("response", (r) => void (r.status() >= 400 && failed.push(r.url())));
    await page.goto(origin + "/login");
    await screenshot(page, "51-sign-in-providers");
    const t0 = performance.now();
    await page.getByRole("button", { name: "Sign in with Test ID" }).click();
    await page.waitForURL(`${issuer.issuer}/**`);
    const t1 = performance.now();
    await atProvider(page, "grace");
    const t2 = performance.now();
    await page.getByLabel("Account").waitFor();
    console.log(`[oidc] browser legs: to the provider ${Math.round(t1 - t0)} ms, provider's screens ${Math.round(t2 - t1)} ms, back to the app signed in ${Math.round(performance.now() - t2)} ms`);
    console.log(`[oidc] browser round trip (button → provider's screens → callback → claim → app): ${Math.round(performance.now() - t0)} ms`);
    expect(new URL(page.url()).searchParams.has("oidc_code")).toBe(false);
    await page.getByLabel("Account").click();
    await page.getByText(`grace.${stamp}@example.test`).waitFor();
    // The provider's own pages ask for a web font this machine cannot reach and a favicon it does
    // not have; those are the provider's. Nothing of Quire's may fail.
    expect(failed.filter((u) => u.startsWith(origin))).toEqual([]);
    const providerOnly = failed.every((u) => !u.startsWith(origin));
    tab.errors.splice(0, tab.errors.length, ...tab.errors.filter((e) => !(providerOnly && e.startsWith("Failed to load resource")) && !e.includes("fonts.googleapis")));
    expectNoConsoleErrors(tab);
    await tab.context.close();
  }, 60_000);

  test("a deep link survives the provider's round trip (an AI app's consent screen is one)", async () => {
    const tab = await tabWithoutWebFonts();
    const { page } = tab;
    await page.goto(origin + "/account");
    await page.waitForURL(/\/login\?next=%2Faccount$/);
    await page.getByRole("button", { name: "Sign in with Test ID" }).click();
    await page.waitForURL(`${issuer.issuer}/**`);
    await atProvider(page, "grace");
    await page.waitForURL(`${origin}/account`);
    await page.getByRole("heading", { name: "Profile" }).waitFor();
    tab.errors.splice(0, tab.errors.length, ...tab.errors.filter((e) => !e.startsWith("Failed to load resource") || e.includes(origin)));
    expectNoConsoleErrors(tab);
    await tab.context.close();
  }, 60_000);

  test("an unverified email meeting an existing account: the sign-in screen says what to do", async () => {
    await registerUser(server.url, { email: `ivan.${stamp}@example.test` });
    const tab = await tabWithoutWebFonts();
    const { page } = tab;
    await page.goto(origin + "/login");
    await page.getByRole("button", { name: "Sign in with Test ID" }).click();
    await atProvider(page, "ivan");
    await page.getByRole("alert").filter({ hasText: "has not verified this email address" }).waitFor();
    expect(new URL(page.url()).pathname).toBe("/login");
    expect(new URL(page.url()).search).toBe("");
    await tab.context.close();
  }, 60_000);

  test("link GitHub from the profile, then sign in with it", async () => {
    const u = await registerUser(server.url, { name: "Lin Linker" });
    github.signInAs({ id: 4242, login: "linlinker", name: null, publicEmail: null, emails: [{ email: `lin.gh.${stamp}@example.test`, primary: true, verified: true, visibility: "private" }] });
    const tab = await newTab(browser);
    const { page } = tab;
    await page.goto(origin + "/login");
    await signInInUi(page, u);
    await page.getByLabel("Account").waitFor();
    await page.goto(origin + "/account");
    await page.getByRole("button", { name: "Link GitHub" }).click();
    await page.getByText("GitHub is linked: you can sign in with it.").waitFor();
    await page.getByText(`Linked (lin.gh.${stamp}@example.test)`).waitFor();
    await screenshot(page, "52-profile-linked");
    await page.getByLabel("Account").click();
    await page.getByRole("menuitem", { name: "Sign out everywhere" }).click();
    await page.getByRole("button", { name: "Sign in with GitHub" }).click();
    await page.getByLabel("Account").waitFor();
    await page.getByLabel("Account").click();
    await page.getByText(u.email).waitFor();
    expectNoConsoleErrors(tab);
    await tab.context.close();
  }, 60_000);
});
