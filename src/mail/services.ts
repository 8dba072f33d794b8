import type { Config } from "../config.ts";
import type { Db } from "../db/database.ts";
import type { Logger } from "../core/log.ts";
import type { Closers } from "../core/closers.ts";
import { EmailOutbox } from "./email-outbox.ts";

/** The outbox and its worker, started (when SMTP is configured) and stopped with the process. */
export function buildMail(deps: { db: Db; config: Config; log: Logger; closers: Closers }): EmailOutbox {
  const email = new EmailOutbox(deps.db, deps.config.smtp, deps.log);
  email.start();
  deps.closers.push(() => email.stop());
  return email;
}
