import { afterAll, beforeAll, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startTestServer, tempDir, type TestServer } from "../helpers/server.ts";
import { fileOf, owner, pageRows, rawRequest, type Owner } from "./support.ts";

let server: TestServer;
let o: Owner;
let outside: string;
beforeAll(async () => {
  server = await startTestServer();
  o = await owner(server);
  outside = tempDir("quire-outside-");
  writeFileSync(join(outside, "secret.md"), "---\ntitle: Secret\n---\nTOP SECRET\n");
});
afterAll(async () => {
  await server.close();
  rmSync(outside, { recursive: true, force: true });
});

// Dot segments the URL parser resolves before routing: the request leaves /api/v1/content/ and
// is answered by whatever else lives at the resolved URL; it must never read or write a file.
const DOT_SEGMENTS = ["../escape", "../../../../etc/passwd", "a/../../escape", "%2e%2e/escape", "%2E%2E/%2e%2e/escape", ".%2e/escape"];

test("dot segments resolved by the URL parser never reach a file outside the workspace", async () => {
  for (const spelling of DOT_SEGMENTS) {
    for (const method of ["GET", "POST", "PUT"]) {
      const body = method === "GET" ? undefined : JSON.stringify({ title: "Pwned", body: "pwned", frontmatter: { title: "Pwned" } });
      const r = await rawRequest(server, method, `${o.base}/${spelling}`, { token: o.accessToken, ...(body ? { body } : {}) });
      expect(r.body).not.toContain("root:x:0");
      if (method !== "GET") expect(r.status).toBeGreaterThanOrEqual(400);
    }
  }
  expect(existsSync(join(server.dataDir, "escape.md"))).toBe(false);
  expect(existsSync(join(server.dataDir, "workspaces", "escape.md"))).toBe(false);
  expect(readdirSync(o.dir).filter((n) => n.includes("escape"))).toEqual([]);
});

const SPELLINGS = [
  "a%2f..%2f..%2fescape",
  "..%2fescape",
  "..%5cescape",
  "%5c%5cserver%5cshare",
  "%2fetc%2fpasswd",
  "/etc/passwd",
  "C:%5cwindows",
  "a%00b",
  "a%01b",
  "a%7fb",
  "%252e%252e/escape",
  ".git/config",
  ".git/hooks/pre-commit",
  ".quire/x",
  "a/.hidden",
  "assets/page",
  "a//b",
  "%ff%fe",
  "a%e2%80%aeb",
];

test("every traversal spelling is refused and nothing is written anywhere", async () => {
  // Content writes are limited to 60 a minute per organization: spread the attempts over three.
  const owners = [o, await owner(server), await owner(server)];
  const before = owners.map((x) => pageRows(server, x.wsId).length);
  // A workspace may be a git work tree: what matters is that no request changed .git or .quire.
  const gitConfig = (x: Owner) => (existsSync(join(x.dir, ".git/config")) ? readFileSync(join(x.dir, ".git/config"), "utf8") : null);
  const dotBefore = owners.map((x) => [gitConfig(x), existsSync(join(x.dir, ".quire"))]);
  for (const [i, spelling] of SPELLINGS.entries()) {
    const o = owners[i % owners.length]!;
    const target = `${o.base}/${spelling}`;
    for (const method of ["GET", "POST", "PUT", "DELETE", "PATCH"]) {
      const body = method === "POST" ? JSON.stringify({ title: "Pwned", body: "pwned" }) : method === "PUT" ? JSON.stringify({ body: "pwned", frontmatter: { title: "Pwned" } }) : method === "PATCH" ? JSON.stringify({ new_path: "moved" }) : undefined;
      const r = await rawRequest(server, method, target, { token: o.accessToken, ...(body ? { body } : {}) });
      // 400 from the path validator, or 404 when the server's router already refused the target.
      if (![400, 404].includes(r.status)) throw new Error(`${method} ${spelling} → ${r.status} ${r.body}`);
      if (r.status === 400) {
        const parsed = JSON.parse(r.body);
        expect(parsed.error).toBe("VALIDATION_ERROR");
        expect(parsed.details.field).toBe("path");
      }
    }
  }
  expect(owners.map((x) => pageRows(server, x.wsId).length)).toEqual(before);
  expect(existsSync(join(server.dataDir, "workspaces", "escape.md"))).toBe(false);
  expect(existsSync(join(server.dataDir, "escape.md"))).toBe(false);
  expect(owners.map((x) => [gitConfig(x), existsSync(join(x.dir, ".quire"))])).toEqual(dotBefore);
  for (const x of owners) {
    expect(readdirSync(x.dir).filter((n) => n.includes("pwn") || n.includes("escape"))).toEqual([]);
  }
});

test("encoded spellings that survive the URL parser reach the validator and say why", async () => {
  for (const [spelling, reason] of [
    ["a%2f..%2f..%2fx", "'..'"],
    ["a%00b", "control"],
    ["..%5cx", "backslash"],
    ["%2fetc%2fpasswd", "relative"],
    ["%252e%252e/x", "percent-encoded"],
    [".git/config", "start with '.'"],
  ] as const) {
    const r = await rawRequest(server, "GET", `${o.base}/${spelling}`, { token: o.accessToken });
    expect(r.status).toBe(400);
    expect(JSON.parse(r.body).message).toContain(reason);
  }
});

test("a literal backslash is a '/' to the URL parser (WHATWG), so it can only name paths inside the workspace", async () => {
  // The server never sees the raw backslash; `%5c` (above) reaches the validator and is refused.
  const r = await rawRequest(server, "POST", `${o.base}/..\\..\\..\\escape`, { token: o.accessToken, body: JSON.stringify({ title: "x" }) });
  expect([400, 404]).toContain(r.status);
  expect(existsSync(join(server.dataDir, "escape.md"))).toBe(false);
  expect(existsSync(join(server.dataDir, "workspaces", "escape.md"))).toBe(false);
});

test("names Windows reserves are refused everywhere (a workspace may be served or cloned there), and nothing is written", async () => {
  for (const [path, reason] of [
    ["nul.md", "device"],
    ["guides/CON.md", "device"],
    ["aux/intro.md", "device"],
    ["com1.notes.md", "device"],
    ["LPT9", "device"],
    ["guides./intro.md", "end with '.'"],
  ] as const) {
    const r = await o.client.post(`/api/v1/content/${o.slug}/${path}`, { title: "Device", body: "Would be kept nowhere on Windows.\n" });
    expect(r.status, path).toBe(400);
    expect(r.body.message).toContain(reason);
  }
  // Names that only begin like a device are ordinary.
  for (const path of ["console.md", "auxiliary/intro.md", "com10.md", "nullable.md"]) {
    expect((await o.client.post(`/api/v1/content/${o.slug}/${path}`, { title: "Fine", body: "Kept.\n" })).status, path).toBe(201);
  }
  expect(pageRows(server, o.wsId).map((p) => p.path).filter((p) => /^(nul|con|aux|com1|lpt9)\b|guides\./i.test(p))).toEqual([]);
  expect(existsSync(join(o.dir, "nul.md"))).toBe(false);
});

test("a move to a bad new_path is refused naming new_path; the page stays where it was", async () => {
  o = await owner(server);
  const created = await o.client.post(`${o.base}/stay`, { title: "Stay" });
  expect(created.status).toBe(201);
  for (const newPath of ["../out", "/abs", ".git/hooks/x", "a\\b", "a/../../x", "x\u0000y", "%2e%2e/x", ".quire/workspace", "assets/x"]) {
    const r = await o.client.patch(`${o.base}/stay`, { new_path: newPath });
    expect(r.status).toBe(400);
    expect(r.body.details.field).toBe("new_path");
  }
  expect(fileOf(o, "stay.md")).not.toBeNull();
});

test("symlinks never lead out of the workspace: not through a folder, not as the page file", async () => {
  o = await owner(server);
  symlinkSync(outside, join(o.dir, "linked"));
  const write = await o.client.post(`${o.base}/linked/new`, { title: "Through the link" });
  expect(write.status).toBe(400);
  expect(existsSync(join(outside, "new.md"))).toBe(false);
  const read = await o.client.get(`${o.base}/linked/secret`);
  expect(read.status).toBe(404);
  expect(read.text).not.toContain("TOP SECRET");

  // A page whose file was swapped for a link to a file elsewhere.
  const page = await o.client.post(`${o.base}/victim`, { title: "Victim" });
  rmSync(join(o.dir, "victim.md"));
  symlinkSync(join(outside, "secret.md"), join(o.dir, "victim.md"));
  const r = await o.client.get(`${o.base}/victim`);
  expect(r.status).toBe(404);
  expect(r.text).not.toContain("TOP SECRET");
  const put = await o.client.put(`${o.base}/victim`, { body: "overwrite", lastKnownHash: page.body.content_hash });
  expect([400, 404]).toContain(put.status);
  expect(readFileSync(join(outside, "secret.md"), "utf8")).toBe("---\ntitle: Secret\n---\nTOP SECRET\n");

  // The reconciler does not follow links either: the linked folder's page is not indexed.
  await server.services.reconciler.reconcile(o.wsId);
  expect(pageRows(server, o.wsId).some((p) => p.path.startsWith("linked/") && p.deleted_at === null)).toBe(false);
  expect(readFileSync(join(outside, "secret.md"), "utf8")).not.toContain("id:");
});

test("paths are normalized: .md added, a .MD suffix lower-cased, unicode kept", async () => {
  o = await owner(server);
  const r = await o.client.post(`${o.base}/${encodeURIComponent("Überblick")}/${encodeURIComponent("naïve café")}`, { title: "Unicode" });
  expect(r.status).toBe(201);
  expect(r.body.path).toBe("Überblick/naïve café.md");
  expect(fileOf(o, "Überblick/naïve café.md")).not.toBeNull();
  const upper = await o.client.post(`${o.base}/shout.MD`, { title: "Shout" });
  expect(upper.body.path).toBe("shout.md");
  mkdirSync(join(o.dir, "plain"), { recursive: true });
});
