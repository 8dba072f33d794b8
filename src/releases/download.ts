import { createHash } from "node:crypto";
import { closeSync, fsyncSync, openSync, writeSync } from "node:fs";
import { guardedHttpClient } from "../core/net/guarded-http.ts";
import { RemoteError } from "../core/net/remote-error.ts";
import { RemoteNetwork } from "../core/net/remote-network.ts";
import { VERSION } from "../version.ts";
import { ReleaseError } from "./errors.ts";

/**
 * GET requests to the release location through the outbound guard every other URL goes through
 * (src/core/net/): the host is checked right before connecting and at every redirect, so a release
 * URL on a private address, or one redirecting to one, is refused unless the operator allows it.
 */
export class ReleaseFetcher {
  private readonly client;

  constructor(allowPrivate: boolean, network = new RemoteNetwork(allowPrivate)) {
    this.client = guardedHttpClient(network);
  }

  /** A small text file (manifest.json, SHA256SUMS), at most `limit` bytes. */
  async text(url: string, limit = 1024 * 1024): Promise<string> {
    const chunks: Uint8Array[] = [];
    let size = 0;
    await this.get(url, (chunk) => {
      size += chunk.length;
      if (size > limit) throw new ReleaseError(`${url} is larger than ${limit} bytes: not a release file`);
      chunks.push(chunk);
    });
    return Buffer.concat(chunks).toString("utf8");
  }

  /**
   * Streams a download into a new file at `path` (never an existing one), flushed to disk before
   * it returns; the SHA-256 of what was written. A response shorter than its announced length fails.
   */
  async toFile(url: string, path: string): Promise<{ sha256: string; size: number }> {
    const fd = openSync(path, "wx", 0o755);
    const hash = createHash("sha256");
    let size = 0;
    try {
      const announced = await this.get(url, (chunk) => {
        hash.update(chunk);
        size += chunk.length;
        for (let at = 0; at < chunk.length; ) at += writeSync(fd, chunk, at);
      });
      if (announced !== undefined && announced !== size) {
        throw new ReleaseError(`the download of ${url} stopped after ${size} of ${announced} bytes`);
      }
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    return { sha256: hash.digest("hex"), size };
  }

  /** Sends each body chunk to `onChunk`; resolves to the announced content-length, if any. */
  private async get(url: string, onChunk: (chunk: Uint8Array) => void): Promise<number | undefined> {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      throw new ReleaseError(`not a URL: ${url}`);
    }
    if (parsed.protocol !== "https:" && parsed.protocol !== "http:") throw new ReleaseError(`the release location must be http(s): ${url}`);
    try {
      const res = await this.client.request({ url, method: "GET", headers: { "user-agent": `quire/${VERSION}` } });
      if (res.statusCode !== 200) {
        for await (const _ of res.body ?? []) void _; // drain, so the connection closes cleanly
        throw new ReleaseError(`${url}: HTTP ${res.statusCode}${res.statusCode === 404 ? " (no such release file)" : ""}`);
      }
      const announced = res.headers?.["content-length"];
      try {
        for await (const chunk of res.body ?? []) onChunk(chunk);
      } catch (error) {
        if (error instanceof ReleaseError) throw error;
        throw new ReleaseError(`the download of ${url} stopped before its end (${error instanceof Error ? error.message : String(error)})`);
      }
      return announced !== undefined && Number.isFinite(Number(announced)) ? Number(announced) : undefined;
    } catch (error) {
      if (error instanceof ReleaseError) throw error;
      if (error instanceof RemoteError && error.reason === "private_network") {
        throw new ReleaseError(
          `${parsed.host} (or a redirect from it) is on a private, loopback or link-local address: refused ` +
            "(set QUIRE_RELEASE_ALLOW_PRIVATE=true to allow a release location on your own network)",
        );
      }
      throw new ReleaseError(`${url}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
}
