/**
 * Release downloads go through the outbound guard: a release location that redirects to a private
 * address is refused at the redirect, a cut download fails, and a good one lands flushed with its hash.
 */
import { afterAll, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { existsSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { RemoteNetwork } from "../../src/core/net/remote-network.ts";
import { ReleaseFetcher } from "../../src/releases/download.ts";
import { checksumFor } from "../../src/releases/checksums.ts";
import { compareVersions, normalizeVersion } from "../../src/releases/versions.ts";
import { tempDir } from "../helpers/server.ts";

const dir = tempDir("quire-release-download-");
const body = new Uint8Array(200_000).map((_, i) => i % 251);
const server: ReturnType<typeof Bun.serve> = Bun.serve({
  hostname: "0.0.0.0",
  port: 0,
  fetch(req): Response {
    const url = new URL(req.url);
    if (url.pathname === "/to-private") return Response.redirect(`http://127.0.0.2:${server.port}/file`, 302);
    if (url.pathname === "/file") return new Response(body);
    return new Response("not found", { status: 404 });
  },
});
const cut = Bun.listen({
  hostname: "127.0.0.1",
  port: 0,
  socket: {
    data(socket) {
      socket.write(`HTTP/1.1 200 OK\r\ncontent-length: ${body.length}\r\nconnection: close\r\n\r\n`);
      socket.write(body.subarray(0, 1000));
      socket.end();
    },
  },
});
afterAll(() => {
  server.stop(true);
  cut.stop(true);
  rmSync(dir, { recursive: true, force: true });
});

/** 127.0.0.1 stands for a public host here; every other address is private, as the guard sees it. */
const fetcher = () => new ReleaseFetcher(false, new RemoteNetwork(false, (address) => address !== "127.0.0.1"));

test("a download lands whole, with its SHA-256", async () => {
  const path = join(dir, "ok");
  const got = await fetcher().toFile(`http://127.0.0.1:${server.port}/file`, path);
  expect(got).toEqual({ sha256: createHash("sha256").update(body).digest("hex"), size: body.length });
  expect(new Uint8Array(readFileSync(path))).toEqual(body);
});

test("a redirect to a private address is refused, and nothing is written", async () => {
  const path = join(dir, "redirected");
  const error = await fetcher().toFile(`http://127.0.0.1:${server.port}/to-private`, path).catch((e: Error) => e);
  expect((error as Error).message).toContain("is on a private, loopback or link-local address: refused");
  expect(readFileSync(path).length).toBe(0);
  const direct = await fetcher().text(`http://127.0.0.2:${server.port}/file`).catch((e: Error) => e);
  expect((direct as Error).message).toContain("refused (set QUIRE_RELEASE_ALLOW_PRIVATE=true");
  const allowed = await new ReleaseFetcher(true).text(`http://127.0.0.1:${server.port}/to-private`);
  expect(allowed.length).toBe(body.length);
});

test("a download cut half-way fails, naming how much arrived", async () => {
  const path = join(dir, "cut");
  const error = await fetcher().toFile(`http://127.0.0.1:${cut.port}/file`, path).catch((e: Error) => e);
  expect(error).toBeInstanceOf(Error);
  expect((error as Error).message).toMatch(/^the download of http:\/\/127\.0\.0\.1:\d+\/file stopped (after \d+ of 200000 bytes|before its end)/);
  expect(existsSync(path)).toBe(true); // the caller removes its partial file (src/releases/upgrade.ts)
});

test("SHA256SUMS lines and versions are read strictly", () => {
  const sums = `${"a".repeat(64)}  quire-1.0.0-linux-x64\n${"B".repeat(64)} *quire-1.0.0-windows-x64.exe\n`;
  expect(checksumFor(sums, "quire-1.0.0-linux-x64")).toBe("a".repeat(64));
  expect(checksumFor(sums, "quire-1.0.0-windows-x64.exe")).toBe("b".repeat(64));
  expect(checksumFor(sums, "quire-1.0.0-linux-arm64")).toBeUndefined();
  expect(checksumFor(`${"a".repeat(63)}  quire-1.0.0-linux-x64\n`, "quire-1.0.0-linux-x64")).toBeUndefined();
  expect(normalizeVersion("1.2.3")).toBe("v1.2.3");
  expect(normalizeVersion("v1.2.3-rc.1")).toBe("v1.2.3-rc.1");
  expect(normalizeVersion("v1.2")).toBeUndefined();
  expect(normalizeVersion("../v1.2.3")).toBeUndefined();
  expect(compareVersions("v1.10.0", "v1.9.9")).toBeGreaterThan(0);
  expect(compareVersions("v1.0.0-rc.1", "v1.0.0")).toBeLessThan(0);
  expect(compareVersions("v1.0.0", "v1.0.0")).toBe(0);
});
