/**
 * Input that is not well-formed text, sent as bytes (not as JavaScript strings, which would already
 * have been repaired): a lone surrogate in any JSON string, a query value or a request path that
 * is not UTF-8, a chunked body whose encoding is broken. Each is a 400 VALIDATION_ERROR in docs/interfaces.md §7's
 * error shape naming what was wrong, logged as a client error (no `level=error` line, no 500 in
 * the request log), and changes nothing.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { connect } from "node:net";
import { join } from "node:path";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { registerUser, type TestUser } from "../helpers/factories.ts";

let server: TestServer;
let owner: TestUser;
let port: number;
beforeAll(async () => {
  server = await startTestServer();
  owner = await registerUser(server.url, { name: "Ursula Franklin", email: "ursula@example.test" });
  port = Number(new URL(server.url).port);
});
afterAll(() => server.close());

const wsDir = () => server.services.ledger.dir(owner.workspaceId).root;

/** Sends `raw` (a JSON text, escapes and all) as the body. */
async function sendJson(method: string, path: string, raw: string) {
  const res = await fetch(server.url + path, {
    method,
    headers: { authorization: `Bearer ${owner.accessToken}`, "content-type": "application/json", "x-forwarded-for": owner.client.ip },
    body: raw,
  });
  return { status: res.status, body: (await res.json()) as any };
}

/** One HTTP/1.1 request written byte for byte on a TCP socket; resolves with the status and body text. */
function rawRequest(bytes: Buffer): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1");
    const chunks: Buffer[] = [];
    socket.on("data", (d: Buffer) => chunks.push(d));
    socket.on("error", reject);
    socket.on("close", () => {
      const text = Buffer.concat(chunks).toString("latin1");
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0);
      resolve({ status, body: text.slice(text.indexOf("\r\n\r\n") + 4) });
    });
    socket.write(bytes);
  });
}

const head = (method: string, target: Buffer | string, extra: string) =>
  Buffer.concat([Buffer.from(`${method} `), Buffer.from(target), Buffer.from(` HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${owner.accessToken}\r\nX-Forwarded-For: ${owner.client.ip}\r\nConnection: close\r\n${extra}\r\n`)]);

/** Log lines written since `from`, parsed. */
const logsSince = (from: number) => server.logs.slice(from).map((l) => JSON.parse(l) as { level: string; msg: string; status?: number; path?: string; method?: string });

/** Since `from`: no error line at all, and the `method` requests to paths starting with `prefix` logged as 400s. */
async function expectClientErrorLogged(from: number, prefix: string, method: string) {
  await Bun.sleep(20); // the request line is written after the response
  const lines = logsSince(from);
  expect(lines.filter((l) => l.level === "error")).toEqual([]);
  const requests = lines.filter((l) => l.msg === "request" && l.method === method && l.path?.startsWith(prefix));
  expect(requests.length).toBeGreaterThan(0);
  for (const r of requests) expect(r.status).toBe(400);
}

describe("a lone surrogate in a JSON string is refused naming the field", () => {
  const cases: Array<{ what: string; method: string; path: () => string; raw: string; field: string; unchanged: () => void }> = [
    { what: "a page title", method: "POST", path: () => `/api/v1/content/${owner.workspaceSlug}/lone-title`, raw: '{"title": "\\ud800", "body": "x"}', field: "title", unchanged: () => expect(existsSync(join(wsDir(), "lone-title.md"))).toBe(false) },
    { what: "a page body (a low surrogate alone)", method: "POST", path: () => `/api/v1/content/${owner.workspaceSlug}/lone-body`, raw: '{"title": "Fine", "body": "before \\udc00 after"}', field: "body", unchanged: () => expect(existsSync(join(wsDir(), "lone-body.md"))).toBe(false) },
    { what: "an array item", method: "POST", path: () => `/api/v1/content/${owner.workspaceSlug}/lone-tag`, raw: '{"title": "Fine", "tags": ["ok", "\\ud83d"]}', field: "tags.1", unchanged: () => expect(existsSync(join(wsDir(), "lone-tag.md"))).toBe(false) },
    { what: "a nested frontmatter value", method: "PUT", path: () => `/api/v1/content/${owner.workspaceSlug}/welcome.md`, raw: '{"frontmatter": {"description": "\\ud800x"}}', field: "frontmatter.description", unchanged: () => {} },
    { what: "an object key", method: "POST", path: () => `/api/v1/content/${owner.workspaceSlug}/lone-key`, raw: '{"title": "Fine", "\\udfff": 1}', field: "\ufffd", unchanged: () => expect(existsSync(join(wsDir(), "lone-key.md"))).toBe(false) },
    { what: "a workspace name", method: "POST", path: () => "/api/v1/workspaces", raw: '{"name": "Docs \\ud800", "slug": "lone-ws"}', field: "name", unchanged: () => expect(server.services.db.query("SELECT 1 FROM workspaces WHERE slug = 'lone-ws'").get()).toBeNull() },
  ];
  for (const c of cases) {
    test(c.what, async () => {
      const welcome = await owner.client.get(`/api/v1/content/${owner.workspaceSlug}/welcome.md`);
      const from = server.logs.length;
      const r = await sendJson(c.method, c.path(), c.raw);
      await expectClientErrorLogged(from, c.path(), c.method);
      expect(r.status).toBe(400);
      expect(r.body).toMatchObject({ error: "VALIDATION_ERROR", details: { field: c.field } });
      expect(r.body.message).toContain("lone surrogate");
      expect(typeof r.body.request_id).toBe("string");
      c.unchanged();
      expect((await owner.client.get(`/api/v1/content/${owner.workspaceSlug}/welcome.md`)).body.content_hash).toBe(welcome.body.content_hash);
    });
  }

  test("a well-formed pair (an emoji) is of course accepted", async () => {
    const r = await sendJson("POST", `/api/v1/content/${owner.workspaceSlug}/emoji`, '{"title": "Party \\ud83c\\udf89", "body": "ok"}');
    expect(r.status).toBe(201);
    expect(r.body.title).toBe("Party 🎉");
  });
});

describe("bytes that are not UTF-8", () => {
  test("in a query string: 400 naming the parameter, for a surrogate's bytes and for a Latin-1 byte", async () => {
    for (const q of ["%ED%A0%80", "%E9", "caf%E9"]) {
      const from = server.logs.length;
      const r = await owner.client.get(`/api/v1/workspaces/${owner.workspaceId}/search?q=${q}`);
      expect(r.status).toBe(400);
      expect(r.body).toMatchObject({ error: "VALIDATION_ERROR", details: { field: "q" } });
      await expectClientErrorLogged(from, `/api/v1/workspaces/${owner.workspaceId}/search`, "GET");
    }
    expect((await owner.client.get(`/api/v1/workspaces/${owner.workspaceId}/search?q=caf%C3%A9`)).status).toBe(200);
  });

  test("a raw 0xE9 in the request path gets the same 400 as %E9, and creates nothing", async () => {
    const body = JSON.stringify({ title: "Café", body: "x" });
    const send = (target: Buffer) => rawRequest(Buffer.concat([head("POST", target, `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n`), Buffer.from(body)]));
    const prefix = `/api/v1/content/${owner.workspaceSlug}/caf`;
    const from = server.logs.length;
    const raw = await send(Buffer.concat([Buffer.from(prefix), Buffer.from([0xe9])]));
    const encoded = await send(Buffer.from(`${prefix}%E9`));
    expect(raw.status).toBe(400);
    expect(encoded.status).toBe(400);
    const [a, b] = [JSON.parse(raw.body), JSON.parse(encoded.body)];
    expect({ error: a.error, message: a.message, details: a.details }).toEqual({ error: b.error, message: b.message, details: b.details });
    expect(a).toMatchObject({ error: "VALIDATION_ERROR", details: { field: "path" } });
    await expectClientErrorLogged(from, prefix, "POST");
    const names = server.services.ledger.records.liveIn(owner.workspaceId).map((r) => r.path);
    expect(names.filter((p) => p.startsWith("caf"))).toEqual([]);
  });
});

describe("a chunked body with a malformed chunk size", () => {
  test("is a 400 for the client and in the request log, never level=error or a 500; nothing is written", async () => {
    const from = server.logs.length;
    const r = await rawRequest(
      Buffer.concat([head("POST", `/api/v1/content/${owner.workspaceSlug}/chunky`, "Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n"), Buffer.from('zz\r\n{"title":"Chunky"}\r\n0\r\n\r\n')]),
    );
    expect(r.status).toBe(400);
    await Bun.sleep(50); // the request line is logged after the response
    const lines = logsSince(from);
    expect(lines.filter((l) => l.level === "error")).toEqual([]);
    expect(lines.filter((l) => l.msg === "request").map((l) => l.status)).toEqual([400]);
    expect(existsSync(join(wsDir(), "chunky.md"))).toBe(false);
  });
});
