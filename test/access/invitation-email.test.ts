import { afterAll, beforeAll, expect, test } from "bun:test";
import { startTestServer, tempDir, type TestServer } from "../helpers/server.ts";
import { startSmtpServer, type SmtpTestServer } from "../helpers/smtp.ts";
import { Client } from "../helpers/client.ts";
import { registerUser, type TestUser } from "../helpers/factories.ts";
import { inviteToken, memberRole } from "./support.ts";

/**
 * Invite-only mode with email configured: the invitation travels through a real SMTP server on
 * loopback, and the invitee follows the link in the message they received.
 */
let smtp: SmtpTestServer;
let server: TestServer;
let owner: TestUser;
const dataDir = tempDir();

beforeAll(async () => {
  smtp = await startSmtpServer();
  // The owner registers while sign-up is open; then the instance restarts invite-only, with email.
  const open = await startTestServer({ BASE_URL: "https://docs.example.test" }, { dataDir, keepDir: true });
  owner = await registerUser(open.url);
  await open.close();
  server = await startTestServer({ ...smtp.env, QUIRE_DISABLE_SIGNUP: "true", BASE_URL: "https://docs.example.test" }, { dataDir });
  owner.client = new Client(server.url, owner.client.ip).withToken(owner.accessToken);
});
afterAll(async () => {
  await server.close();
  await smtp.close();
});

test("sign-up is closed on this instance", async () => {
  const r = await new Client(server.url).post("/api/auth/register", {
    name: "Walk In",
    email: "walkin@example.test",
    password: "long enough password",
    terms_accepted: true,
  });
  expect(r.status).toBe(403);
  expect(r.body.error).toBe("SIGNUP_DISABLED");
});

test("the invitation email arrives over SMTP and its link creates the account", async () => {
  const email = "grace@example.test";
  const created = await owner.client.post(`/api/v1/workspaces/${owner.workspaceId}/invitations`, { email, role: "editor" });
  expect(created.status).toBe(201);
  expect(created.body.url).toBeUndefined();
  expect(created.body.status).toBe("pending");

  const mail = await smtp.waitFor((m) => m.envelopeTo.includes(email));
  expect(mail.to).toEqual([email]);
  expect(mail.from).toBe("quire@example.test");
  expect(mail.subject).toContain("invited");
  expect(mail.text).toContain(owner.name);
  expect(mail.text).toContain("editor");
  const link = /https:\/\/docs\.example\.test\/invite\/[A-Za-z0-9_-]+/.exec(mail.text)?.[0];
  expect(link).toBeString();
  expect(mail.html).toContain(link!);
  const token = inviteToken(link!);

  // The worker marks the row sent right after the SMTP server has taken the message.
  const outbox = () => server.services.db.query<any, []>("SELECT status, to_address FROM email_outbox").all();
  for (let i = 0; i < 50 && outbox()[0]?.status !== "sent"; i++) await Bun.sleep(10);
  expect(outbox()).toEqual([{ status: "sent", to_address: email }]);
  // The token is in the message only: never in the logs.
  expect(server.logs.join("\n")).not.toContain(token);

  const invitee = new Client(server.url);
  const r = await invitee.post("/api/auth/invitations/accept", { token, name: "Grace", password: "a long passphrase" });
  expect(r.status).toBe(201);
  expect(r.body.user.email).toBe(email);
  expect(r.body.access_token).toBeString();
  expect(invitee.cookies.get("quire_refresh")).toBeString();
  expect(memberRole(server, owner.workspaceId, r.body.user.id)).toBe("editor");
  invitee.token = r.body.access_token;
  const ws = await invitee.get(`/api/v1/workspaces/${owner.workspaceId}`);
  expect(ws.status).toBe(200);
  expect(ws.body.role).toBe("editor");
  // The refresh cookie works like one from login.
  const refreshed = await invitee.post("/api/auth/refresh", {});
  expect(refreshed.status).toBe(200);
  expect(server.logs.join("\n")).not.toContain(token);
});
