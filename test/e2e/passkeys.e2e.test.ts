import { afterAll, afterEach, beforeAll, describe, expect, setSystemTime, test } from "bun:test";
import type { Browser, CDPSession } from "playwright-core";
import { freePort, startTestServer, type TestServer } from "../helpers/server.ts";
import { registerUser, type TestUser } from "../helpers/factories.ts";
import { Client } from "../helpers/client.ts";
import { CHALLENGE_TTL_MS } from "../../src/identity/passkeys.ts";
import { expectNoConsoleErrors, hasChromium, launch, newTab, screenshot, signInInUi, type Tab } from "./browser.ts";

/**
 * Passkeys in Chromium with the DevTools Protocol's virtual authenticator (a real WebAuthn stack:
 * RP ID and origin checks included) on http://localhost:PORT — WebAuthn refuses IP addresses.
 */
describe.skipIf(!hasChromium)("passkeys in a real browser", () => {
  let server: TestServer;
  let browser: Browser;
  let origin: string;
  let user: TestUser;
  let tab: Tab;
  let cdp: CDPSession;
  let authenticatorId: string;

  beforeAll(async () => {
    const port = await freePort();
    origin = `http://localhost:${port}`;
    [server, browser] = await Promise.all([
      startTestServer({ BASE_URL: origin, WEBAUTHN_RP_ID: "localhost", WEBAUTHN_RP_DISPLAY_NAME: "Quire tests", WEBAUTHN_RP_ORIGINS: origin }, { port }),
      launch(),
    ]);
    user = await registerUser(server.url, { name: "Pia Passkey" });
    tab = await newTab(browser);
    // A switch for the browser's passkey autofill: with the virtual authenticator a pending autofill
    // request completes as soon as the email field is used, which would race the button's own
    // ceremony. The button steps turn it off; the autofill step turns it back on.
    await tab.context.addInitScript(() => {
      const available = PublicKeyCredential.isConditionalMediationAvailable?.bind(PublicKeyCredential);
      PublicKeyCredential.isConditionalMediationAvailable = async () => (localStorage.getItem("test.no-autofill") ? false : available ? available() : false);
    });
    cdp = await tab.context.newCDPSession(tab.page);
    await cdp.send("WebAuthn.enable");
    authenticatorId = (await cdp.send("WebAuthn.addVirtualAuthenticator", { options: authenticatorOptions() })).authenticatorId;
    tab.page.on("dialog", (d) => void d.accept());
  }, 30_000);
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });
  afterEach(() => setSystemTime());

  const authenticatorOptions = () => ({
    protocol: "ctap2" as const,
    ctap2Version: "ctap2_1" as const,
    transport: "internal" as const,
    hasResidentKey: true,
    hasUserVerification: true,
    isUserVerified: true,
    automaticPresenceSimulation: true,
  });
  const signOut = async () => {
    await tab.page.getByLabel("Account").click();
    await tab.page.getByRole("menuitem", { name: "Sign out everywhere" }).click();
    await tab.page.getByRole("button", { name: "Sign in", exact: true }).waitFor();
  };
  const signedIn = () => tab.page.getByLabel("Account").waitFor();
  const autofill = (on: boolean) => tab.page.evaluate((off) => (off ? localStorage.setItem("test.no-autofill", "1") : localStorage.removeItem("test.no-autofill")), !on);

  test("register a passkey from the profile, rename it", async () => {
    const { page } = tab;
    await page.goto(origin + "/login");
    await signInInUi(page, user);
    await signedIn();
    await page.goto(origin + "/account");
    await page.getByRole("heading", { name: "Sign-in methods" }).waitFor();
    const t0 = performance.now();
    await page.getByRole("button", { name: "Add a passkey" }).click();
    await page.getByText('Passkey "Passkey" added.').waitFor();
    console.log(`[passkey] registration round trip (begin → authenticator → finish): ${Math.round(performance.now() - t0)} ms`);
    await page.getByRole("button", { name: "Rename Passkey" }).click();
    await page.getByLabel("New name for Passkey").fill("Work laptop");
    await page.getByRole("button", { name: "Save" }).click();
    await page.getByText("Work laptop").waitFor();
    await screenshot(page, "50-sign-in-methods");
    const { credentials } = await cdp.send("WebAuthn.getCredentials", { authenticatorId });
    expect(credentials).toHaveLength(1);
    expect(credentials[0]!.isResidentCredential).toBe(true);
    expect(credentials[0]!.rpId).toBe("localhost");
  }, 60_000);

  test("sign out, then sign in with the passkey without an email (discoverable) and with one", async () => {
    const { page } = tab;
    await autofill(false);
    await signOut();
    const t0 = performance.now();
    await page.getByRole("button", { name: "Sign in with a passkey" }).click();
    await signedIn();
    console.log(`[passkey] sign-in round trip without email (begin → authenticator → finish → app): ${Math.round(performance.now() - t0)} ms`);
    await signOut();
    await page.getByLabel("Email").fill(user.email);
    await page.getByRole("button", { name: "Sign in with a passkey" }).click();
    await signedIn();
    const listed = await page.evaluate(async () => {
      const r = await fetch("/api/auth/refresh", { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
      const { access_token } = (await r.json()) as { access_token: string };
      return (await fetch("/api/auth/webauthn/credentials", { headers: { authorization: `Bearer ${access_token}` } })).json();
    });
    expect(listed.items).toEqual([{ id: expect.any(String), name: "Work laptop", created_at: expect.any(String), last_used_at: expect.any(String), sign_count: expect.any(Number) }]);
    expect(listed.items[0].sign_count).toBeGreaterThan(0);
  }, 60_000);

  test("a challenge is single use and lasts 5 minutes; a locked password does not lock the passkey out", async () => {
    const { page } = tab;
    await signOut();
    // Hold the browser's answer, replay it after it was used, and send another one 5 minutes late.
    let answered: string | null = null;
    await page.route("**/api/auth/webauthn/login/finish", async (route) => {
      answered = route.request().postData();
      await route.continue();
    });
    await page.getByRole("button", { name: "Sign in with a passkey" }).click();
    await signedIn();
    const replay = await new Client(server.url).post("/api/auth/webauthn/login/finish", JSON.parse(answered!));
    expect(replay.status).toBe(401);
    await signOut();
    await page.unroute("**/api/auth/webauthn/login/finish");
    await page.route("**/api/auth/webauthn/login/finish", async (route) => {
      setSystemTime(new Date(Date.now() + CHALLENGE_TTL_MS + 1000));
      await route.continue();
    });
    await page.getByRole("button", { name: "Sign in with a passkey" }).click();
    await page.getByRole("alert").filter({ hasText: "Passkey sign-in failed" }).waitFor();
    await page.unroute("**/api/auth/webauthn/login/finish");
    setSystemTime();

    // Five wrong passwords lock the password (docs/interfaces.md §2); the passkey still signs in.
    const attacker = new Client(server.url);
    for (let i = 0; i < 5; i++) expect((await attacker.post("/api/auth/login", { email: user.email, password: "wrong guess " + i })).status).toBe(401);
    expect((await attacker.post("/api/auth/login", { email: user.email, password: user.password })).status).toBe(401);
    await page.getByRole("button", { name: "Sign in with a passkey" }).click();
    await signedIn();
    server.services.users.resetFailedLogins(user.id);
  }, 60_000);

  test("the browser's autofill offers the passkey in the email field", async () => {
    const { page } = tab;
    await signOut();
    await autofill(true);
    // The sign-in screen asks for the autofill as it opens; Chromium's virtual authenticator (with
    // presence simulated) picks the one passkey at once, as a person choosing it from the list would.
    const t0 = performance.now();
    await page.reload();
    await signedIn();
    console.log(`[passkey] sign-in through the autofill: ${Math.round(performance.now() - t0)} ms`);
    await autofill(false);
  }, 60_000);

  test("a cloned credential whose sign count goes backwards is refused", async () => {
    const { page } = tab;
    const { credentials } = await cdp.send("WebAuthn.getCredentials", { authenticatorId });
    const original = credentials[0]!;
    expect(original.signCount).toBeGreaterThanOrEqual(2);
    await signOut();
    // The same key, copied to another authenticator that has counted less.
    await cdp.send("WebAuthn.removeVirtualAuthenticator", { authenticatorId });
    const clone = (await cdp.send("WebAuthn.addVirtualAuthenticator", { options: authenticatorOptions() })).authenticatorId;
    await cdp.send("WebAuthn.addCredential", { authenticatorId: clone, credential: { ...original, signCount: 0 } });
    await page.getByRole("button", { name: "Sign in with a passkey" }).click();
    await page.getByRole("alert").filter({ hasText: "Passkey sign-in failed" }).waitFor();
    expect(new URL(page.url()).pathname).toBe("/login");
    expect(server.logs.some((l) => l.includes("sign count went backwards"))).toBe(true);
    authenticatorId = clone;
  }, 60_000);

  test("passkey-only: the password removed, the last passkey cannot be deleted; with a password again it can, and no longer signs in", async () => {
    const { page } = tab;
    await signInInUi(page, user);
    await signedIn();
    await page.goto(origin + "/account");
    await page.getByRole("button", { name: "Remove password" }).click();
    await page.getByLabel("Add a password").waitFor();
    await page.getByRole("button", { name: "Delete Work laptop" }).click();
    await page.getByRole("alert").filter({ hasText: "This is your last way to sign in" }).waitFor();
    await page.getByLabel("Add a password").fill(user.password);
    await page.getByRole("button", { name: "Add password" }).click();
    await page.getByRole("button", { name: "Remove password" }).waitFor();
    await page.getByRole("button", { name: "Delete Work laptop" }).click();
    await page.getByText("No passkeys yet.").waitFor();
    await signOut();
    await page.getByRole("button", { name: "Sign in with a passkey" }).click();
    await page.getByRole("alert").filter({ hasText: "Passkey sign-in failed" }).waitFor();
    expectNoConsoleErrors(tab, [401, 409]);
  }, 60_000);
});
