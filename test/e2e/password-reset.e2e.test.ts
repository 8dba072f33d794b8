import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Browser } from "playwright-core";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { startSmtpServer, type SmtpTestServer } from "../helpers/smtp.ts";
import { registerUser, type TestUser } from "../helpers/factories.ts";
import { Client } from "../helpers/client.ts";
import { expectNoConsoleErrors, hasChromium, launch, newTab, screenshot, signInInUi } from "./browser.ts";

const BASE_URL = "http://docs.example.test";

describe.skipIf(!hasChromium)("forgotten password in a real browser", () => {
  let smtp: SmtpTestServer;
  let server: TestServer;
  let browser: Browser;
  let user: TestUser;
  beforeAll(async () => {
    smtp = await startSmtpServer();
    [server, browser] = await Promise.all([startTestServer({ ...smtp.env, BASE_URL }), launch()]);
    user = await registerUser(server.url, { name: "Fay Forgetful" });
  }, 30_000);
  afterAll(async () => {
    await browser?.close();
    await server?.close();
    await smtp?.close();
  });

  test("forgot → the emailed link → a new password (a bad link and a mismatch are explained) → sign in with it", async () => {
    const tab = await newTab(browser);
    const { page } = tab;
    await page.goto(server.url + "/login");
    await page.getByRole("link", { name: /forgot/i }).click();
    await page.getByRole("heading", { name: "Reset your password" }).waitFor();
    await page.getByLabel("Email").fill(user.email);
    await page.getByRole("button", { name: "Send reset link" }).click();
    await page.getByRole("status").filter({ hasText: /./ }).first().waitFor();

    const mail = await smtp.waitFor((m) => m.to.includes(user.email), 5000);
    const link = /\/reset-password\?token=([A-Za-z0-9_%-]+)/.exec(mail.text);
    expect(link).not.toBeNull();

    // A mangled token: the screen says the link is no good instead of a raw error.
    await page.goto(`${server.url}/reset-password?token=not-a-real-token`);
    await page.getByLabel("New password", { exact: true }).fill("a brand new password");
    await page.getByLabel("Repeat the new password").fill("a brand new password");
    await page.getByRole("button", { name: "Set new password" }).click();
    await page.getByRole("alert").filter({ hasText: "This reset link is invalid, used or expired" }).waitFor();

    // The real link: mismatched repeats are caught on the spot, then the password changes.
    await page.goto(`${server.url}/reset-password?token=${link![1]}`);
    await page.getByLabel("New password", { exact: true }).fill("a brand new password");
    await page.getByLabel("Repeat the new password").fill("a brand new passwork");
    await page.getByText("The two passwords differ.").first().waitFor();
    await screenshot(page, "32-reset-password");
    await page.getByLabel("Repeat the new password").fill("a brand new password");
    await page.getByRole("button", { name: "Set new password" }).click();
    await page.getByText("Your password has been changed").waitFor();
    expect(new URL(page.url()).pathname).toBe("/login");

    // The old password is gone; the new one signs in.
    expect((await new Client(server.url).post("/api/auth/login", { email: user.email, password: user.password })).status).toBe(401);
    await signInInUi(page, { email: user.email, password: "a brand new password" });
    await page.getByRole("tree", { name: "Pages" }).waitFor();
    expectNoConsoleErrors(tab, [400]);
    await tab.context.close();
  }, 60_000);
});
