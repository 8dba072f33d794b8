/** Helpers shared by the published-site tests: a published workspace, pages written through the API, raw site requests. */
import { expect } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { nextIp } from "../../helpers/client.ts";
import type { TestServer } from "../../helpers/server.ts";
import type { TestUser } from "../../helpers/factories.ts";
import type { TxtDns } from "../../helpers/txt-dns.ts";

export async function publish(user: TestUser, settings: Record<string, unknown> = {}): Promise<void> {
  const r = await user.client.put(`/api/v1/workspaces/${user.workspaceId}/admin/settings`, { published: true, visibility: "public", ...settings });
  expect(r.status).toBe(200);
}

export async function writePage(user: TestUser, path: string, fields: { title: string; body?: string; description?: string; publish?: boolean }): Promise<void> {
  const r = await user.client.post(`/api/v1/content/${user.workspaceSlug}/${path}`, { publish: true, body: "", ...fields });
  if (r.status !== 201) throw new Error(`create ${path}: ${r.status} ${r.text}`);
}

/** Sets `domain` as the user's site domain, answers its TXT challenge on `dns` and verifies it. */
export async function verifyDomain(user: TestUser, dns: TxtDns, domain: string): Promise<void> {
  const set = await user.client.put(`/api/v1/workspaces/${user.workspaceId}/custom-domain`, { domain });
  dns.records.set(`_quire-challenge.${domain}`, set.body.verification.value);
  const verified = await user.client.post(`/api/v1/workspaces/${user.workspaceId}/custom-domain/verify`);
  if (verified.body.status !== "verified") throw new Error(JSON.stringify(verified.body));
}

/** Writes a `.quire/` manifest straight into the workspace folder (as git or an editor would). */
export function writeManifest(server: TestServer, user: TestUser, name: string, text: string): void {
  const dir = join(server.dataDir, "workspaces", user.workspaceId, ".quire");
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, name), text);
}

export interface SiteResponse {
  status: number;
  headers: Headers;
  text: string;
}

/** A plain HTTP request from its own client address (no redirects followed). */
export async function get(server: TestServer, path: string, headers: Record<string, string> = {}): Promise<SiteResponse> {
  const res = await fetch(server.url + path, { headers: { "x-forwarded-for": headers["x-forwarded-for"] ?? nextIp(), ...headers }, redirect: "manual" });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

export async function apiKey(user: TestUser, scopes: string[] = ["read"]): Promise<string> {
  const r = await user.client.post("/api/v1/api-keys", { name: "site reader", scopes });
  if (r.status !== 201) throw new Error(`key: ${r.status} ${r.text}`);
  return r.body.key;
}

/**
 * A GET whose request line carries the path exactly as given: fetch would resolve `..` and
 * `%2e%2e` segments before sending, and the tricks must reach the server as an attacker sends them.
 */
export async function rawGet(server: TestServer, rawPath: string, headers: Record<string, string> = {}): Promise<{ status: number; body: string; head: string }> {
  const { port, hostname } = new URL(server.url);
  const lines = [`GET ${rawPath} HTTP/1.1`, `Host: ${headers.host ?? `${hostname}:${port}`}`, `X-Forwarded-For: ${nextIp()}`, "Connection: close"];
  for (const [k, v] of Object.entries(headers)) if (k !== "host") lines.push(`${k}: ${v}`);
  const chunks: Uint8Array[] = [];
  await new Promise<void>((resolve, reject) => {
    Bun.connect({
      hostname,
      port: Number(port),
      socket: {
        open(socket) {
          socket.write(lines.join("\r\n") + "\r\n\r\n");
        },
        data(_socket, data) {
          chunks.push(new Uint8Array(data));
        },
        close() {
          resolve();
        },
        error(_socket, error) {
          reject(error);
        },
      },
    }).catch(reject);
  });
  const text = Buffer.concat(chunks).toString("utf8");
  const split = text.indexOf("\r\n\r\n");
  const head = text.slice(0, split);
  let body = text.slice(split + 4);
  if (/transfer-encoding:\s*chunked/i.test(head)) {
    let out = "";
    let rest = body;
    for (;;) {
      const nl = rest.indexOf("\r\n");
      const size = parseInt(rest.slice(0, nl), 16);
      if (!size) break;
      out += rest.slice(nl + 2, nl + 2 + size);
      rest = rest.slice(nl + 2 + size + 2);
    }
    body = out;
  }
  return { status: Number(head.split(" ")[1]), body, head };
}

/**
 * Retries `check` until it passes or `ms` elapse: for effects that arrive asynchronously by
 * design (a `.quire/` manifest edited on disk is noticed within about a second).
 */
export async function eventually(check: () => Promise<void>, ms = 3000): Promise<void> {
  const until = Date.now() + ms;
  for (;;) {
    try {
      await check();
      return;
    } catch (error) {
      if (Date.now() > until) throw error;
      await Bun.sleep(100);
    }
  }
}
