import type { IncomingMessage } from "node:http";
import { send } from "../core/net/guarded-http.ts";
import { RemoteNetwork, type CheckedAddress } from "../core/net/remote-network.ts";
import { RemoteError } from "../core/net/remote-error.ts";
import { OAuthProtocolError } from "./errors.ts";
import { checkRedirectUri } from "./redirect-uris.ts";

/** A metadata document larger than this is refused (the documents are a few hundred bytes). */
const CLIENT_METADATA_MAX_BYTES = 16 * 1024;
/** The whole fetch (connect, headers, body) must finish within this. */
const CLIENT_METADATA_TIMEOUT_MS = 5_000;
/** Cache-Control max-age is honoured up to this; a document without one is kept this long. */
const MAX_CACHE_MS = 24 * 3600 * 1000;
const DEFAULT_CACHE_MS = 5 * 60 * 1000;
const MAX_CACHED = 500;

export interface ClientInfo {
  client_id: string;
  client_name: string;
  redirect_uris: string[];
  /** Whether the client_id is a metadata document URL (fetched), rather than a registered id. */
  metadata_document: boolean;
}

const refuse = (message: string) => new OAuthProtocolError("invalid_client", message);

/**
 * Client ID Metadata Documents: a client whose client_id is an https URL publishes its metadata
 * there, and Quire fetches it. The fetch is an outbound request chosen by whoever starts an
 * authorization, so it gets the SSRF guard every outbound URL gets (each address checked, the
 * connection made to the checked address only), no redirects, a size and a time limit; the answer
 * is cached as its Cache-Control says. `allowPrivate` (OAUTH_CLIENT_METADATA_ALLOWLIST_PRIVATE)
 * admits private and loopback hosts and plain http, for clients inside a company network and tests.
 */
export class ClientMetadataDocuments {
  private readonly cache = new Map<string, { info: ClientInfo; until: number }>();
  private readonly network: RemoteNetwork;

  constructor(private readonly allowPrivate: boolean) {
    this.network = new RemoteNetwork(allowPrivate);
  }

  /** Whether a client_id names a metadata document rather than a registered client. */
  static isDocumentUrl(clientId: string): boolean {
    return clientId.startsWith("https://") || clientId.startsWith("http://");
  }

  async resolve(clientId: string, nowMs: number): Promise<ClientInfo> {
    const hit = this.cache.get(clientId);
    if (hit && hit.until > nowMs) return hit.info;
    const url = this.checkUrl(clientId);
    const { body, cacheMs } = await this.fetch(url);
    const info = parseDocument(clientId, body);
    if (cacheMs > 0) {
      if (this.cache.size >= MAX_CACHED) this.cache.clear();
      this.cache.set(clientId, { info, until: nowMs + cacheMs });
    } else this.cache.delete(clientId);
    return info;
  }

  private checkUrl(clientId: string): URL {
    let url: URL;
    try {
      url = new URL(clientId);
    } catch {
      throw refuse("client_id is not a URL");
    }
    if (url.protocol !== "https:" && !(this.allowPrivate && url.protocol === "http:")) throw refuse("a client_id URL must be https");
    if (url.pathname === "/" || url.hash !== "" || url.username !== "" || url.password !== "") {
      throw refuse("a client_id URL must have a path and no fragment or credentials");
    }
    if (url.href !== clientId) throw refuse("a client_id URL must be in its normal form");
    return url;
  }

  private async fetch(url: URL): Promise<{ body: string; cacheMs: number }> {
    let addresses: CheckedAddress[];
    try {
      addresses = await this.network.resolve(url.hostname);
    } catch (error) {
      if (error instanceof RemoteError && error.reason === "private_network") {
        throw refuse(`the client metadata document's host ${url.hostname} is on a private, loopback or link-local address`);
      }
      throw refuse(`the client metadata document's host ${url.hostname} could not be resolved`);
    }
    const signal = AbortSignal.timeout(CLIENT_METADATA_TIMEOUT_MS);
    let res: IncomingMessage;
    try {
      res = await send(url, "GET", { accept: "application/json" }, undefined, addresses, signal);
    } catch {
      throw refuse(signal.aborted ? `the client metadata document did not answer within ${CLIENT_METADATA_TIMEOUT_MS / 1000} s` : "the client metadata document could not be fetched");
    }
    const status = res.statusCode ?? 0;
    if (status >= 300 && status < 400) {
      res.destroy();
      throw refuse("the client metadata document's URL redirects; redirects are not followed");
    }
    if (status !== 200) {
      res.destroy();
      throw refuse(`the client metadata document answered HTTP ${status}`);
    }
    const declared = Number(res.headers["content-length"] ?? "");
    if (Number.isFinite(declared) && declared > CLIENT_METADATA_MAX_BYTES) {
      res.destroy();
      throw refuse(`the client metadata document is larger than ${CLIENT_METADATA_MAX_BYTES} bytes`);
    }
    const body = await readBounded(res, signal);
    return { body, cacheMs: cacheLifetime(res.headers["cache-control"]) };
  }
}

async function readBounded(res: IncomingMessage, signal: AbortSignal): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of res as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > CLIENT_METADATA_MAX_BYTES) {
        res.destroy();
        throw refuse(`the client metadata document is larger than ${CLIENT_METADATA_MAX_BYTES} bytes`);
      }
      chunks.push(chunk);
    }
  } catch (error) {
    if (error instanceof OAuthProtocolError) throw error;
    throw refuse(signal.aborted ? `the client metadata document did not answer within ${CLIENT_METADATA_TIMEOUT_MS / 1000} s` : "the client metadata document could not be read");
  }
  return Buffer.concat(chunks).toString("utf8");
}

function cacheLifetime(header: string | string[] | undefined): number {
  const value = Array.isArray(header) ? header.join(",") : (header ?? "");
  if (/\b(no-store|no-cache)\b/i.test(value)) return 0;
  const maxAge = /\bmax-age=(\d+)/i.exec(value);
  if (maxAge) return Math.min(Number(maxAge[1]) * 1000, MAX_CACHE_MS);
  return DEFAULT_CACHE_MS;
}

function parseDocument(clientId: string, body: string): ClientInfo {
  let doc: unknown;
  try {
    doc = JSON.parse(body);
  } catch {
    throw refuse("the client metadata document is not JSON");
  }
  if (doc === null || typeof doc !== "object" || Array.isArray(doc)) throw refuse("the client metadata document is not a JSON object");
  const d = doc as Record<string, unknown>;
  // The document must name itself: a document copied elsewhere cannot claim another client's id.
  if (d.client_id !== clientId) throw refuse("the client metadata document's client_id is not the URL it was fetched from");
  if (!Array.isArray(d.redirect_uris) || d.redirect_uris.length === 0 || d.redirect_uris.length > 20) {
    throw refuse("the client metadata document must list 1 to 20 redirect_uris");
  }
  let redirectUris: string[];
  try {
    redirectUris = d.redirect_uris.map((u) => checkRedirectUri(u));
  } catch (error) {
    throw refuse(`the client metadata document's redirect_uris: ${(error as Error).message}`);
  }
  const method = d.token_endpoint_auth_method;
  if (method !== undefined && method !== "none") throw refuse("only public clients (token_endpoint_auth_method \"none\") are supported");
  const name = typeof d.client_name === "string" && d.client_name.trim() !== "" ? d.client_name.trim().slice(0, 100) : new URL(clientId).host;
  return { client_id: clientId, client_name: name, redirect_uris: redirectUris, metadata_document: true };
}
