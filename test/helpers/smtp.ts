import { SMTPServer } from "smtp-server";
import PostalMime from "postal-mime";
import type { AddressInfo } from "node:net";

/** A message as the loopback SMTP server received and parsed it. */
export interface ReceivedMail {
  /** Envelope sender and recipients (what the client said in MAIL FROM / RCPT TO). */
  envelopeFrom: string;
  envelopeTo: string[];
  from: string;
  to: string[];
  subject: string;
  text: string;
  html: string;
  /** The raw RFC 5322 message. */
  raw: string;
}

export interface SmtpTestServer {
  host: string;
  port: number;
  /** Every message received so far, oldest first. */
  messages: ReceivedMail[];
  /** Environment to merge into a test server's env so its outbox delivers here. */
  env: Record<string, string>;
  /**
   * Resolves with the first message (received already or arriving later) that matches, or
   * rejects after `timeoutMs`.
   */
  waitFor(match?: (mail: ReceivedMail) => boolean, timeoutMs?: number): Promise<ReceivedMail>;
  close(): Promise<void>;
}

/**
 * A real SMTP server on 127.0.0.1, port 0: no TLS, no authentication. Each message is parsed
 * with postal-mime so tests can follow links in the body.
 */
export async function startSmtpServer(opts: { from?: string } = {}): Promise<SmtpTestServer> {
  const messages: ReceivedMail[] = [];
  const waiters: Array<{ match: (m: ReceivedMail) => boolean; resolve: (m: ReceivedMail) => void }> = [];

  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS", "AUTH"],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on("data", (c: Buffer) => chunks.push(c));
      stream.on("error", callback);
      stream.on("end", async () => {
        try {
          const raw = Buffer.concat(chunks).toString("utf8");
          const parsed = await PostalMime.parse(raw);
          const envelopeFrom = session.envelope.mailFrom ? session.envelope.mailFrom.address : "";
          const mail: ReceivedMail = {
            envelopeFrom,
            envelopeTo: session.envelope.rcptTo.map((r) => r.address),
            from: parsed.from?.address ?? "",
            to: (parsed.to ?? []).map((a) => a.address ?? "").filter(Boolean),
            subject: parsed.subject ?? "",
            text: parsed.text ?? "",
            html: parsed.html ?? "",
            raw,
          };
          messages.push(mail);
          for (const w of [...waiters]) {
            if (w.match(mail)) {
              waiters.splice(waiters.indexOf(w), 1);
              w.resolve(mail);
            }
          }
          callback();
        } catch (error) {
          callback(error as Error);
        }
      });
    },
  });

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const port = ((server as unknown as { server: { address(): AddressInfo } }).server.address()).port;

  return {
    host: "127.0.0.1",
    port,
    messages,
    env: { SMTP_HOST: "127.0.0.1", SMTP_PORT: String(port), SMTP_SECURE: "false", SMTP_FROM: opts.from ?? "Quire <quire@example.test>" },
    waitFor(match = () => true, timeoutMs = 5000) {
      const existing = messages.find(match);
      if (existing) return Promise.resolve(existing);
      return new Promise<ReceivedMail>((resolve, reject) => {
        const waiter = {
          match,
          resolve: (m: ReceivedMail) => {
            clearTimeout(timer);
            resolve(m);
          },
        };
        const timer = setTimeout(() => {
          waiters.splice(waiters.indexOf(waiter), 1);
          reject(new Error(`no matching email within ${timeoutMs} ms (received ${messages.length})`));
        }, timeoutMs);
        waiters.push(waiter);
      });
    },
    close() {
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
