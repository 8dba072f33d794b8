import http from "node:http";
import https from "node:https";
import type { IncomingMessage } from "node:http";
import type { GitHttpRequest, GitHttpResponse, HttpClient } from "isomorphic-git";
import { RemoteError } from "./remote-error.ts";
import type { CheckedAddress, RemoteNetwork } from "./remote-network.ts";

/**
 * isomorphic-git's HTTP client interface (`http` option of clone/fetch/push), implemented so that
 * the server never connects where a workspace admin should not reach:
 *
 * - before each request the host is resolved and checked (RemoteNetwork), and the socket connects
 *   only to those checked addresses (`lookup` hands them over; no second DNS answer is used);
 * - redirects are followed here, not by a library, at most MAX_REDIRECTS, GET only, http(s) only,
 *   each hop checked the same way; credentials are not sent on to another origin.
 */
const MAX_REDIRECTS = 5;

export function guardedHttpClient(network: RemoteNetwork): HttpClient {
  // Like git: when the first request (ref discovery) was redirected, the rest of the transfer
  // goes to the new base. isomorphic-git itself would keep posting to the old one.
  let rebase: { from: string; to: string } | null = null;
  return {
    async request(req: GitHttpRequest): Promise<GitHttpResponse> {
      const method = (req.method ?? "GET").toUpperCase();
      const body = req.body ? await collect(req.body) : undefined;
      let headers = { ...(req.headers ?? {}) };
      const asked = new URL(req.url);
      let url = rebase && req.url.startsWith(rebase.from) ? new URL(rebase.to + req.url.slice(rebase.from.length)) : asked;
      if (url.origin !== asked.origin) headers = withoutAuthorization(headers);
      for (let hop = 0; ; hop++) {
        if (url.protocol !== "http:" && url.protocol !== "https:") throw new RemoteError(`the remote redirected to an unsupported scheme ${url.protocol}`, "unreachable");
        const addresses = await network.resolve(url.hostname);
        const res = await send(url, method, headers, body, addresses, req.signal);
        const location = res.headers.location;
        const status = res.statusCode ?? 0;
        if (status >= 300 && status < 400 && location && method === "GET") {
          res.resume(); // discard the redirect's own body
          if (hop >= MAX_REDIRECTS) throw new RemoteError(`the remote redirected more than ${MAX_REDIRECTS} times`, "unreachable");
          const next = new URL(location, url);
          // A token given for one origin is not handed to another one a redirect names.
          if (next.origin !== url.origin) headers = withoutAuthorization(headers);
          url = next;
          continue;
        }
        if (hop > 0 && rebase === null) {
          const from = baseOf(asked);
          const to = baseOf(url);
          if (from !== null && to !== null) rebase = { from, to };
        }
        return {
          url: url.toString(),
          method,
          statusCode: status,
          statusMessage: res.statusMessage ?? "",
          headers: flatHeaders(res),
          body: res[Symbol.asyncIterator]() as AsyncIterableIterator<Uint8Array>,
        };
      }
    },
  };
}

/**
 * One HTTP request to `url`, connecting only to `addresses` (the ones the guard just checked): the
 * single place an outbound request is pinned to its checked addresses.
 */
export function send(
  url: URL,
  method: string,
  headers: Record<string, string>,
  body: Buffer | undefined,
  addresses: CheckedAddress[],
  signal: AbortSignal | undefined,
): Promise<IncomingMessage> {
  const lib = url.protocol === "https:" ? https : http;
  const host = url.hostname.startsWith("[") ? url.hostname.slice(1, -1) : url.hostname;
  // Connect to the addresses just checked, never to a fresh (possibly different) DNS answer.
  const lookup = (_name: string, options: unknown, callback: (...args: unknown[]) => void) => {
    const cb = typeof options === "function" ? (options as typeof callback) : callback;
    const all = typeof options === "object" && options !== null && (options as { all?: boolean }).all === true;
    if (all) cb(null, addresses);
    else cb(null, addresses[0]!.address, addresses[0]!.family);
  };
  const options: http.RequestOptions = {
    protocol: url.protocol,
    host,
    path: `${url.pathname}${url.search}`,
    method,
    headers: body ? { ...headers, "content-length": String(body.byteLength) } : headers,
    lookup: lookup as unknown as http.RequestOptions["lookup"],
  };
  if (url.port) options.port = Number(url.port);
  if (signal) options.signal = signal;
  return new Promise((resolve, reject) => {
    const request = lib.request(options, resolve);
    request.on("error", reject);
    request.end(body);
  });
}

/** The repository URL of a ref-discovery request (`…/info/refs?service=…`), or null for other requests. */
function baseOf(url: URL): string | null {
  if (!url.pathname.endsWith("/info/refs")) return null;
  return `${url.origin}${url.pathname.slice(0, -"/info/refs".length)}`;
}

function withoutAuthorization(headers: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers)) if (k.toLowerCase() !== "authorization") out[k] = v;
  return out;
}

function flatHeaders(res: IncomingMessage): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(res.headers)) if (v !== undefined) out[k] = Array.isArray(v) ? v.join(", ") : v;
  return out;
}

async function collect(body: AsyncIterable<Uint8Array> | Iterable<Uint8Array>): Promise<Buffer> {
  const chunks: Uint8Array[] = [];
  for await (const chunk of body as AsyncIterable<Uint8Array>) chunks.push(chunk);
  return Buffer.concat(chunks);
}
