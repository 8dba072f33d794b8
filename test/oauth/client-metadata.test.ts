/**
 * Client ID Metadata Documents: the client_id is a URL Quire fetches. A document served from a
 * loopback server (allowed here by OAUTH_CLIENT_METADATA_ALLOWLIST_PRIVATE, as a company-network
 * client would be) identifies a client; documents on private addresses (without the allowance),
 * that redirect, are huge, are slow, name another client, or change their redirect URIs after
 * consent are refused.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { registerUser, type TestUser } from "../helpers/factories.ts";
import { authorize, consentedCode, exchange, mcp, oauthServer, pkce, requestIdOf } from "./support.ts";

setDefaultTimeout(30_000);

const LOOPBACK = "http://127.0.0.1:4567/callback";
let server: TestServer;
let owner: TestUser;
let docs: ReturnType<typeof Bun.serve>;
let docBase: string;
/** The redirect URIs /client.json lists right now (a test changes them). */
let listed = [LOOPBACK];
let fetches = 0;

beforeAll(async () => {
  docs = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    idleTimeout: 30,
    async fetch(req) {
      const url = new URL(req.url);
      const self = `${docBase}${url.pathname}`;
      fetches++;
      switch (url.pathname) {
        case "/client.json":
          return Response.json({ client_id: self, client_name: "Metadata Agent", redirect_uris: listed, token_endpoint_auth_method: "none" }, { headers: { "cache-control": "no-store" } });
        case "/cached.json":
          return Response.json({ client_id: self, client_name: "Cached Agent", redirect_uris: [LOOPBACK] }, { headers: { "cache-control": "max-age=3600" } });
        case "/redirects.json":
          return new Response(null, { status: 302, headers: { location: `${docBase}/client.json` } });
        case "/huge.json":
          return new Response(`{"client_id":"${self}","pad":"${"x".repeat(10 * 1024 * 1024)}"}`, { headers: { "content-type": "application/json" } });
        case "/huge-chunked.json":
          return new Response(
            new ReadableStream({
              start(controller) {
                controller.enqueue(new TextEncoder().encode(`{"client_id":"${self}","pad":"`));
                for (let i = 0; i < 160; i++) controller.enqueue(new Uint8Array(64 * 1024).fill(120));
                controller.close();
              },
            }),
            { headers: { "content-type": "application/json" } },
          );
        case "/slow.json":
          await Bun.sleep(8_000);
          return Response.json({ client_id: self, redirect_uris: [LOOPBACK] });
        case "/someone-else.json":
          return Response.json({ client_id: `${docBase}/client.json`, client_name: "Impostor", redirect_uris: [LOOPBACK] });
        case "/dangerous.json":
          return Response.json({ client_id: self, redirect_uris: ["javascript:alert(1)"] });
        default:
          return new Response("not found", { status: 404 });
      }
    },
  });
  docBase = `http://127.0.0.1:${docs.port}`;
  server = await oauthServer();
  owner = await registerUser(server.url);
});
afterAll(async () => {
  await server.close();
  await docs.stop(true);
});

function start(clientId: string, redirect = LOOPBACK) {
  const { challenge } = pkce();
  return authorize(server, { client_id: clientId, redirect_uri: redirect, code_challenge: challenge, code_challenge_method: "S256", resource: `${server.config.baseUrl}/mcp` });
}

describe("a client identified by its metadata document", () => {
  test("authorizes and its token calls tools; the consent screen shows the document's name", async () => {
    const clientId = `${docBase}/client.json`;
    const id = requestIdOf(await start(clientId));
    const view = await owner.client.get(`/api/v1/oauth/consent/${id}`);
    expect(view.body).toMatchObject({ client_id: clientId, client_name: "Metadata Agent", metadata_document: true, redirect_host: "127.0.0.1:4567" });
    const { verifier, challenge } = pkce();
    const { code } = await consentedCode(server, owner, { client_id: clientId, redirect_uri: LOOPBACK, code_challenge: challenge });
    const tokens = await exchange(server, clientId, LOOPBACK, code, verifier);
    expect(tokens.status).toBe(200);
    const listedTools = await mcp(server, tokens.body.access_token, "tools/list");
    expect(listedTools.body.result.tools.length).toBeGreaterThan(5);
  });

  test("a document with max-age is fetched once and then served from the cache", async () => {
    const clientId = `${docBase}/cached.json`;
    const before = fetches;
    requestIdOf(await start(clientId));
    requestIdOf(await start(clientId));
    requestIdOf(await start(clientId));
    expect(fetches - before).toBe(1);
  });

  test("redirect URIs changed after consent: the code's exchange and the old URI are refused", async () => {
    const clientId = `${docBase}/client.json`;
    const { verifier, challenge } = pkce();
    const { code } = await consentedCode(server, owner, { client_id: clientId, redirect_uri: LOOPBACK, code_challenge: challenge });
    listed = ["http://127.0.0.1:4567/elsewhere"];
    try {
      const tokens = await exchange(server, clientId, LOOPBACK, code, verifier);
      expect(tokens.status).toBe(400);
      expect(tokens.body.error).toBe("invalid_grant");
      const again = await start(clientId, LOOPBACK);
      expect(again.status).toBe(400);
      expect(again.headers.get("location")).toBeNull();
    } finally {
      listed = [LOOPBACK];
    }
  });
});

describe("documents that are refused (an error page, never a redirect)", () => {
  async function refusedWith(clientId: string, pattern: RegExp) {
    const res = await start(clientId);
    expect(res.status, clientId).toBe(400);
    expect(res.headers.get("location")).toBeNull();
    expect(await res.text(), clientId).toMatch(pattern);
  }

  test("one that redirects (not followed)", () => refusedWith(`${docBase}/redirects.json`, /redirects/));
  test("one of 10 MB, declared or streamed", async () => {
    await refusedWith(`${docBase}/huge.json`, /larger than 16384 bytes/);
    await refusedWith(`${docBase}/huge-chunked.json`, /larger than 16384 bytes/);
  });
  test("one that answers too slowly (5 s)", async () => {
    const started = performance.now();
    await refusedWith(`${docBase}/slow.json`, /did not answer within 5 s/);
    expect(performance.now() - started).toBeLessThan(7_000);
  });
  test("one naming another client_id", () => refusedWith(`${docBase}/someone-else.json`, /client_id is not the URL/));
  test("one listing a javascript: redirect URI", () => refusedWith(`${docBase}/dangerous.json`, /redirect_uris/));
  test("a URL with a fragment or no path", async () => {
    await refusedWith(`${docBase}/client.json#x`, /fragment/);
    await refusedWith(`${docBase}/`, /path/);
  });
});

test("without the allowance, a document on a private or loopback address is never fetched", async () => {
  const strict = await startTestServer();
  try {
    const before = fetches;
    for (const clientId of [`https://127.0.0.1:${docs.port}/client.json`, "https://10.0.0.1/client.json", "https://[::1]/client.json", "https://localhost/client.json", `${docBase}/client.json`]) {
      const { challenge } = pkce();
      const res = await authorize(strict, { client_id: clientId, redirect_uri: LOOPBACK, code_challenge: challenge, code_challenge_method: "S256", resource: `${strict.config.baseUrl}/mcp` });
      expect(res.status, clientId).toBe(400);
      expect(res.headers.get("location")).toBeNull();
      expect(await res.text(), clientId).toMatch(/private, loopback or link-local|must be https/);
    }
    expect(fetches).toBe(before);
  } finally {
    await strict.close();
  }
});
