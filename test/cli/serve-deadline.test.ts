/**
 * serve's two shutdown limits with their real values and no test-only code in the product: an
 * upload that sends its headers and then only trickles keeps the drain waiting until it is cut at 10 s;
 * a mail stuck on an SMTP server that accepts the connection and never greets keeps the outbox's
 * closer waiting until the hard deadline exits at 15 s.
 */
import { afterAll, expect, test } from "bun:test";
import { existsSync, rmSync } from "node:fs";
import { join } from "node:path";
import { createServer, connect, type Server, type Socket } from "node:net";
import { tempDir } from "../helpers/server.ts";
import { isLocked } from "../../src/ops/instance-lock.ts";
import { DRAIN_MS, SHUTDOWN_DEADLINE_MS } from "../../src/commands/serve.ts";
import { startServe, waitFor, type ServeProcess } from "./spawn.ts";

const dir = tempDir("quire-deadline-");
const held: Socket[] = [];
let smtp: Server | undefined;
let serve: ServeProcess | undefined;
afterAll(() => {
  if (serve && serve.proc.exitCode === null) serve.proc.kill("SIGKILL");
  for (const s of held) s.destroy();
  smtp?.close();
  rmSync(dir, { recursive: true, force: true });
});

test(
  "after SIGTERM a stalled upload is cut when the 10 s drain ends; a hanging closer meets the 15 s deadline, exit 1",
  async () => {
    expect(DRAIN_MS).toBe(10_000);
    expect(SHUTDOWN_DEADLINE_MS).toBe(15_000);

    // An SMTP server that accepts connections and never says a word (nodemailer waits 30 s for a greeting).
    let smtpConnections = 0;
    smtp = createServer((socket) => {
      smtpConnections++;
      held.push(socket);
    });
    await new Promise<void>((resolve) => smtp!.listen(0, "127.0.0.1", resolve));
    const smtpPort = (smtp.address() as { port: number }).port;

    serve = await startServe(dir, {
      env: { SMTP_HOST: "127.0.0.1", SMTP_PORT: String(smtpPort), SMTP_SECURE: "false", SMTP_FROM: "quire@example.test" },
    });
    const s = serve;
    const json = (path: string, body: unknown) =>
      fetch(`${s.base}${path}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
    const email = "stuck.mail@example.test";
    expect((await json("/api/auth/register", { name: "Stuck", email, password: "long enough password", terms_accepted: true })).status).toBe(201);
    expect((await json("/api/auth/forgot-password", { email })).status).toBe(200);
    // The outbox is now sending: connected to the silent server and waiting for its greeting.
    await waitFor(() => smtpConnections > 0);

    // An upload that announces 200 bytes and then trickles one every half second: its handler waits
    // for the body, and the trickle rules out any idle timeout as what cuts it.
    const upload = connect(s.port, "127.0.0.1");
    held.push(upload);
    await new Promise<void>((resolve) => upload.once("connect", () => resolve()));
    upload.write(
      `POST /api/auth/login HTTP/1.1\r\nHost: 127.0.0.1:${s.port}\r\nContent-Type: application/json\r\nContent-Length: 200\r\n\r\n{"email":"`,
    );
    let uploadClosedAt = 0;
    upload.on("error", () => {});
    upload.resume();
    const trickle = setInterval(() => upload.write("a"), 500);
    upload.once("close", () => {
      uploadClosedAt = Date.now();
      clearInterval(trickle);
    });
    // Loopback delivers the headers within milliseconds; the request is then in flight.
    await Bun.sleep(200);

    const signalledAt = Date.now();
    s.proc.kill("SIGTERM");
    const code = await s.exited;
    const exitedAt = Date.now();
    clearInterval(trickle);
    console.log(`upload cut ${uploadClosedAt - signalledAt} ms and exit ${exitedAt - signalledAt} ms after SIGTERM`);

    // The drain waited for the stalled upload, then cut it at 10 s.
    expect(uploadClosedAt).toBeGreaterThan(0);
    expect(uploadClosedAt - signalledAt).toBeGreaterThan(DRAIN_MS - 500);
    expect(uploadClosedAt - signalledAt).toBeLessThan(DRAIN_MS + 1500);
    // The outbox closer then hung on the silent SMTP server until the hard deadline.
    expect(code).toBe(1);
    expect(exitedAt - signalledAt).toBeGreaterThan(SHUTDOWN_DEADLINE_MS - 500);
    expect(exitedAt - signalledAt).toBeLessThan(SHUTDOWN_DEADLINE_MS + 1500);
    const log = s.stderr();
    expect(log).toContain('"msg":"shutting down"');
    expect(log).toContain('"msg":"shutdown deadline passed; exiting forcefully"');
    expect(log).not.toContain('"msg":"stopped"');
    // Even the forced exit removes the run state, and the kernel released the lock.
    expect(existsSync(join(dir, "runstate.json"))).toBe(false);
    expect(isLocked(dir)).toBe(false);
  },
  25_000,
);
