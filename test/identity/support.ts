/** Small helpers shared by the identity tests: database snapshots and raw cookie checks. */
import type { Database } from "bun:sqlite";
import { Client } from "../helpers/client.ts";

const TABLES = [
  "users",
  "organizations",
  "org_members",
  "sessions",
  "refresh_tokens",
  "password_resets",
  "workspaces",
  "workspace_members",
  "api_keys",
  "email_outbox",
];

/**
 * Every row of the identity tables, serialized: two equal snapshots mean nothing changed (not
 * even a counter such as failed_logins).
 */
export function snapshot(db: Database): string {
  return JSON.stringify(TABLES.map((t) => db.query(`SELECT * FROM ${t} ORDER BY rowid`).all()));
}

/** The Set-Cookie header (raw) that sets `name`, or undefined. */
export function setCookie(headers: Headers, name: string): string | undefined {
  return headers.getSetCookie().find((c) => c.startsWith(`${name}=`));
}

/** Cookie attributes as a lower-cased map (`httponly` → ""), plus the value under `value`. */
export function cookieAttributes(raw: string): Record<string, string> & { value: string } {
  const [pair, ...attrs] = raw.split(";").map((s) => s.trim());
  const out: Record<string, string> & { value: string } = { value: pair!.slice(pair!.indexOf("=") + 1) };
  for (const a of attrs) {
    const i = a.indexOf("=");
    if (i === -1) out[a.toLowerCase()] = "";
    else out[a.slice(0, i).toLowerCase()] = a.slice(i + 1);
  }
  return out;
}

export interface Registered {
  client: Client;
  id: string;
  email: string;
  password: string;
  accessToken: string;
}

let n = 0;
/** Registers through the API from a fresh client address and returns the signed-in client. */
export async function signUp(baseUrl: string, overrides: { email?: string; password?: string; name?: string } = {}): Promise<Registered> {
  n++;
  const email = overrides.email ?? `person${n}.${Date.now()}@example.test`;
  const password = overrides.password ?? "a perfectly fine password";
  const client = new Client(baseUrl);
  const r = await client.post("/api/auth/register", { name: overrides.name ?? `Person ${n}`, email, password, terms_accepted: true });
  if (r.status !== 201) throw new Error(`register failed: ${r.status} ${r.text}`);
  client.token = r.body.access_token;
  return { client, id: r.body.user.id, email, password, accessToken: r.body.access_token };
}

/** Logs in from a fresh client address (a new device) with an optional user agent. */
export async function logIn(baseUrl: string, email: string, password: string, userAgent?: string) {
  const client = new Client(baseUrl);
  const r = await client.post("/api/auth/login", { email, password }, userAgent ? { headers: { "user-agent": userAgent } } : {});
  if (r.status !== 200) throw new Error(`login failed: ${r.status} ${r.text}`);
  client.token = r.body.access_token;
  return { client, accessToken: r.body.access_token as string, refreshToken: r.body.refresh_token as string };
}

/** Expects the error shape of docs/interfaces.md §7 with this status and machine code; returns the body. */
export function errorOf(r: { status: number; body: any }, status: number, code: string) {
  if (r.status !== status || r.body?.error !== code) {
    throw new Error(`expected ${status} ${code}, got ${r.status} ${JSON.stringify(r.body)}`);
  }
  if (typeof r.body.message !== "string" || typeof r.body.request_id !== "string") {
    throw new Error(`error body lacks message/request_id: ${JSON.stringify(r.body)}`);
  }
  return r.body;
}
