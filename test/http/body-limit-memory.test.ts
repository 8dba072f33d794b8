/**
 * The body limit must hold without reading the oversize body into memory: a real `serve` process
 * is sent bodies of 50 MB (Content-Length) and 200 MB (chunked), and its peak resident memory
 * (VmHWM, which no sampling can miss) must not grow by anything near the body size.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { readFileSync, rmSync } from "node:fs";
import { tempDir } from "../helpers/server.ts";
import { startServe, type ServeProcess } from "../cli/spawn.ts";

const MB = 1024 * 1024;
const dir = tempDir("quire-body-memory-");
let s: ServeProcess;
beforeAll(async () => {
  s = await startServe(dir);
});
afterAll(() => {
  if (s.proc.exitCode === null) s.proc.kill("SIGKILL");
  rmSync(dir, { recursive: true, force: true });
});

/** Peak resident set of the server process so far, in bytes. */
function peakRss(pid: number): number {
  const kb = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  if (!kb) throw new Error("no VmHWM in /proc status");
  return Number(kb[1]) * 1024;
}

/** `total` bytes in 64 KiB pieces, made as they are pulled (the sender holds none of it). */
function chunked(total: number): ReadableStream<Uint8Array> {
  let sent = 0;
  return new ReadableStream({
    pull(c) {
      if (sent >= total) return c.close();
      const n = Math.min(65536, total - sent);
      sent += n;
      c.enqueue(new Uint8Array(n).fill(0x20));
    },
  });
}

async function expectRefused(res: Response) {
  expect(res.status).toBe(413);
  const body = (await res.json()) as { error: string; request_id: string };
  expect(body.error).toBe("PAYLOAD_TOO_LARGE");
  expect(res.headers.get("x-request-id")).toBe(body.request_id);
  expect(res.headers.get("x-content-type-options")).toBe("nosniff");
}

test.skipIf(process.platform !== "linux")("refusing 50 MB and 200 MB bodies does not hold them in the server's memory", async () => {
  // Warm the paths first (a small refused body of each kind), so the baseline includes the code.
  const post = (body: NonNullable<RequestInit["body"]>, chunkedBody = false) =>
    fetch(`${s.base}/api/v1/workspaces`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body,
      ...(chunkedBody ? { duplex: "half" } : {}),
    } as RequestInit);
  await expectRefused(await post(new Uint8Array(11 * MB)));
  await expectRefused(await post(chunked(11 * MB), true));
  const before = peakRss(s.pid);

  await expectRefused(await post(new Uint8Array(50 * MB)));
  await expectRefused(await post(chunked(200 * MB), true));
  await expectRefused(await post(chunked(200 * MB), true));
  const grown = peakRss(s.pid) - before;
  // A streamed body is counted up to the 10 MB limit, so some growth is expected; the body is not.
  expect(grown).toBeLessThan(32 * MB);
  expect((await fetch(`${s.base}/api/health`)).status).toBe(200);
}, 60_000);
