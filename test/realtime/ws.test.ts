import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { SignJWT } from "jose";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { registerUser, type TestUser } from "../helpers/factories.ts";
import { loadOrCreateSigningKey } from "../../src/identity/signing-key.ts";
import { addMember, removeMember, starterWorkspace } from "../collab/support.ts";
import { connect, openSocket, type WsClient } from "./ws-client.ts";

let server: TestServer;
const open: WsClient[] = [];
const track = (c: WsClient) => (open.push(c), c);

beforeAll(async () => {
  server = await startTestServer();
});
afterEach(() => {
  for (const c of open.splice(0)) c.close();
});
afterAll(() => server.close());

const pageEvent = (workspaceId: string, path: string) =>
  server.services.bus.publish({ type: "page-updated", workspace_id: workspaceId, payload: { workspace_id: workspaceId, path, actor: "someone" } });

async function pair(): Promise<{ owner: TestUser; ws: { id: string; slug: string } }> {
  const owner = await registerUser(server.url);
  return { owner, ws: starterWorkspace(server, owner.id) };
}

describe("authentication", () => {
  test("without the cookie the upgrade is refused with 401", async () => {
    expect(await openSocket(server)).toEqual({ refused: true });
    const r = await fetch(`${server.url}/ws`, {
      headers: { upgrade: "websocket", connection: "Upgrade", "sec-websocket-key": "dGhlIHNhbXBsZSBub25jZQ==", "sec-websocket-version": "13" },
    });
    expect(r.status).toBe(401);
    expect(((await r.json()) as { error: string }).error).toBe("UNAUTHORIZED");
  });

  test("a forged cookie (other key, tampered signature, garbage, an access token) is refused", async () => {
    const user = await registerUser(server.url);
    await user.client.post("/api/auth/ws-token");
    const real = user.client.cookies.get("quire_ws_token")!;
    const [h, p, sig] = real.split(".");
    const otherKey = await loadOrCreateSigningKey(join(server.dataDir, "other-key.pem"));
    const foreign = await new SignJWT({ sid: "x", org: "y" })
      .setProtectedHeader({ alg: "RS256" })
      .setSubject(user.id)
      .setIssuer(server.config.baseUrl)
      .setAudience("quire-ws")
      .setIssuedAt()
      .setExpirationTime("1h")
      .sign(otherKey.privateKey);
    const tampered = `${h}.${Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(p!, "base64url").toString()), sub: "01ARZ3NDEKTSV4RRFFQ69G5FAV" })).toString("base64url")}.${sig}`;
    const none = `${Buffer.from('{"alg":"none"}').toString("base64url")}.${p}.`;
    for (const token of [foreign, tampered, none, "garbage", user.accessToken]) {
      expect(await openSocket(server, { cookie: `quire_ws_token=${token}` })).toEqual({ refused: true });
    }
    // The genuine cookie still works.
    const ok = await openSocket(server, { cookie: `quire_ws_token=${real}` });
    expect("socket" in ok).toBe(true);
    if ("socket" in ok) track(ok);
  });

  test("an expired cookie is refused", async () => {
    const user = await registerUser(server.url);
    const keys = await loadOrCreateSigningKey(join(server.dataDir, "jwt-private.pem"));
    const sessionId = server.services.db.query<{ id: string }, [string]>("SELECT id FROM sessions WHERE user_id = ?").get(user.id)!.id;
    const now = Math.floor(Date.now() / 1000);
    const expired = await new SignJWT({ sid: sessionId, org: "o" })
      .setProtectedHeader({ alg: "RS256", kid: keys.kid })
      .setSubject(user.id)
      .setIssuer(server.config.baseUrl)
      .setAudience("quire-ws")
      .setIssuedAt(now - 7200)
      .setExpirationTime(now - 3600)
      .sign(keys.privateKey);
    expect(await openSocket(server, { cookie: `quire_ws_token=${expired}` })).toEqual({ refused: true });
    // The same token, unexpired, would pass: the refusal is about the expiry.
    const fresh = await new SignJWT({ sid: sessionId, org: "o" })
      .setProtectedHeader({ alg: "RS256", kid: keys.kid })
      .setSubject(user.id)
      .setIssuer(server.config.baseUrl)
      .setAudience("quire-ws")
      .setIssuedAt(now)
      .setExpirationTime(now + 60)
      .sign(keys.privateKey);
    const ok = await openSocket(server, { cookie: `quire_ws_token=${fresh}` });
    expect("socket" in ok).toBe(true);
    if ("socket" in ok) track(ok);
  });

  test("a cookie whose session was revoked (logout) is refused", async () => {
    const user = await registerUser(server.url);
    await user.client.post("/api/auth/ws-token");
    const cookie = `quire_ws_token=${user.client.cookies.get("quire_ws_token")}`;
    expect((await user.client.post("/api/auth/logout")).status).toBe(204);
    expect(await openSocket(server, { cookie })).toEqual({ refused: true });
  });

  test("a page of another origin is refused even with a valid cookie", async () => {
    const user = await registerUser(server.url);
    await user.client.post("/api/auth/ws-token");
    const cookie = `quire_ws_token=${user.client.cookies.get("quire_ws_token")}`;
    expect(await openSocket(server, { cookie, origin: "https://evil.example" })).toEqual({ refused: true });
    const same = await openSocket(server, { cookie, origin: server.url });
    expect("socket" in same).toBe(true);
    if ("socket" in same) track(same);
  });
});

describe("events", () => {
  test("a connection receives its workspaces' events in the {type, payload, ts} envelope, and nothing of others", async () => {
    const { owner, ws } = await pair();
    const other = await pair();
    const c = track(await connect(server, owner));
    expect(c.frames[0]!.payload.workspaces).toEqual([ws.id]);
    pageEvent(other.ws.id, "not-mine.md");
    pageEvent(ws.id, "mine.md");
    const f = await c.next((x) => x.type === "page-updated");
    expect(f.payload).toEqual({ workspace_id: ws.id, path: "mine.md", actor: "someone" });
    expect(new Date(f.ts).toISOString()).toBe(f.ts);
    await Bun.sleep(50);
    expect(c.frames.filter((x) => x.type === "page-updated").map((x) => x.payload.path)).toEqual(["mine.md"]);
  });

  test("ping is answered with pong; bad frames get an error frame and the connection stays", async () => {
    const { owner } = await pair();
    const c = track(await connect(server, owner));
    c.send({ type: "ping" });
    expect((await c.next((f) => f.type === "pong")).payload).toEqual({});
    c.send("not json");
    c.send({ type: "launch-missiles" });
    c.send({ type: "subscribe", workspace_id: "../../etc" });
    c.send("x".repeat(10_000));
    await c.next((f) => f.type === "error" && f.payload.error === "VALIDATION_ERROR");
    c.send({ type: "ping" });
    await c.next((f) => f.type === "pong", 2000, c.frames.findIndex((f) => f.type === "pong") + 1);
    expect(c.frames.filter((f) => f.type === "error").length).toBe(4);
    expect(c.closed).toBeNull();
  });

  test("subscribing to another organization's workspace is NOT_FOUND and delivers nothing", async () => {
    const { owner } = await pair();
    const other = await pair();
    const c = track(await connect(server, owner));
    c.send({ type: "subscribe", workspace_id: other.ws.id });
    const err = await c.next((f) => f.type === "error");
    expect(err.payload).toMatchObject({ error: "NOT_FOUND", workspace_id: other.ws.id });
    pageEvent(other.ws.id, "secret.md");
    await Bun.sleep(50);
    expect(c.frames.some((f) => f.type === "page-updated")).toBe(false);
  });

  test("a workspace joined after connecting can be subscribed to; unsubscribe stops delivery", async () => {
    const { owner, ws } = await pair();
    const guest = await registerUser(server.url);
    const c = track(await connect(server, guest));
    addMember(server, ws.id, guest.id, "viewer");
    c.send({ type: "subscribe", workspace_id: ws.id });
    const sub = await c.next((f) => f.type === "subscribed");
    expect(sub.payload.workspace_id).toBe(ws.id);
    pageEvent(ws.id, "after-join.md");
    await c.next((f) => f.type === "page-updated" && f.payload.path === "after-join.md");
    c.send({ type: "unsubscribe", workspace_id: ws.id });
    await c.next((f) => f.type === "unsubscribed");
    pageEvent(ws.id, "after-leave.md");
    await Bun.sleep(50);
    expect(c.frames.some((f) => f.payload.path === "after-leave.md")).toBe(false);
    void owner;
  });

  test("losing read access (membership removed) stops delivery; the others keep receiving", async () => {
    const { owner, ws } = await pair();
    const member = await registerUser(server.url);
    addMember(server, ws.id, member.id, "editor");
    const a = track(await connect(server, owner));
    const b = track(await connect(server, member));
    expect(b.frames[0]!.payload.workspaces).toContain(ws.id);
    pageEvent(ws.id, "before.md");
    await b.next((f) => f.payload.path === "before.md");
    removeMember(server, ws.id, member.id);
    pageEvent(ws.id, "after.md");
    await a.next((f) => f.payload.path === "after.md");
    await Bun.sleep(50);
    expect(b.frames.some((f) => f.payload.path === "after.md")).toBe(false);
    // The owner sees the removed member leave at once.
    await a.next((f) => f.type === "presence-leave" && f.payload.user_id === member.id);
  });

  test("a connection whose session is revoked while open is closed at the next event", async () => {
    const { owner, ws } = await pair();
    const c = track(await connect(server, owner));
    await owner.client.post("/api/auth/logout");
    pageEvent(ws.id, "after-logout.md");
    const closed = await c.waitClosed();
    expect(closed.code).toBe(4401);
    expect(c.frames.some((f) => f.payload.path === "after-logout.md")).toBe(false);
  });
});

describe("presence", () => {
  test("join on connect, leave only after the timeout following close; timings are injectable", async () => {
    server.services.realtime.setTimings({ heartbeatMs: 50, timeoutMs: 300 });
    try {
      const { owner, ws } = await pair();
      const visitor = await registerUser(server.url);
      addMember(server, ws.id, visitor.id, "viewer");
      const a = track(await connect(server, owner));
      const v = track(await connect(server, visitor));
      const join = await a.next((f) => f.type === "presence-join" && f.payload.user_id === visitor.id);
      expect(join.payload).toEqual({ workspace_id: ws.id, user_id: visitor.id });
      expect(server.services.realtime.present(ws.id).sort()).toEqual([owner.id, visitor.id].sort());
      // Open connections answer the server's heartbeat pings, so presence outlives the timeout.
      await Bun.sleep(450);
      expect(a.frames.some((f) => f.type === "presence-leave" && f.payload.user_id === visitor.id)).toBe(false);
      const closedAt = Date.now();
      v.close();
      const leave = await a.next((f) => f.type === "presence-leave" && f.payload.user_id === visitor.id, 2000);
      expect(Date.now() - closedAt).toBeGreaterThanOrEqual(250);
      expect(leave.payload).toEqual({ workspace_id: ws.id, user_id: visitor.id });
      expect(server.services.realtime.present(ws.id)).toEqual([owner.id]);
    } finally {
      server.services.realtime.setTimings({ heartbeatMs: 30_000, timeoutMs: 90_000 });
    }
  });

  test("reconnecting within the timeout does not announce a new join", async () => {
    server.services.realtime.setTimings({ heartbeatMs: 100, timeoutMs: 400 });
    try {
      const { owner, ws } = await pair();
      const visitor = await registerUser(server.url);
      addMember(server, ws.id, visitor.id, "viewer");
      const a = track(await connect(server, owner));
      const v1 = await connect(server, visitor);
      await a.next((f) => f.type === "presence-join" && f.payload.user_id === visitor.id);
      v1.close();
      await Bun.sleep(50);
      const v2 = track(await connect(server, visitor));
      await Bun.sleep(500);
      const about = a.frames.filter((f) => f.payload.user_id === visitor.id).map((f) => f.type);
      expect(about).toEqual(["presence-join"]);
      void v2;
    } finally {
      server.services.realtime.setTimings({ heartbeatMs: 30_000, timeoutMs: 90_000 });
    }
  });

  test("defaults are 30 s heartbeats and 90 s until leave", () => {
    expect(server.services.realtime.timings).toEqual({ heartbeatMs: 30_000, timeoutMs: 90_000 });
  });
});
