import { PayloadTooLargeError, ValidationError } from "../errors.ts";

/** The global request body limit, which also bounds uploads. */
export const MAX_BODY_BYTES = 10 * 1024 * 1024;

/**
 * The limit handed to Bun itself: out of reach on purpose. Above its own limit Bun answers a bare
 * 413 (empty body, no request id, no headers) before any hook runs, so the app enforces
 * MAX_BODY_BYTES instead: by Content-Length before a byte is read, and by counting a streamed body,
 * which stops reading at the limit. Neither buffers an oversize body, so memory stays bounded.
 */
export const SERVER_BODY_LIMIT = Number.MAX_SAFE_INTEGER;

export function tooLarge(): PayloadTooLargeError {
  return new PayloadTooLargeError("The request body exceeds the 10 MB limit", { limit_bytes: MAX_BODY_BYTES });
}

/**
 * A body sent without Content-Length (chunked) cannot be refused up front. Bun's own limit would
 * cut such a request off with a bare 413 and no error body, so the body is read here with a cap
 * instead: past MAX_BODY_BYTES the stream is cancelled and PAYLOAD_TOO_LARGE answered in the
 * usual shape. Within the cap the bytes are handed back as a plain Request, so the framework's
 * parsers (JSON, forms, text) treat it exactly like a body with a length.
 *
 * Returns null when the request needs nothing (it has a Content-Length, which was already checked,
 * or no body at all). Done before routing rather than in a parse hook: a global parse hook would
 * make the framework parse every body, even for routes that read the raw bytes themselves
 * (signature checks of webhooks).
 */
export async function bufferChunkedBody(request: Request): Promise<Request | null> {
  if (request.headers.get("content-length") !== null || request.body === null) return null;
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    let chunk: Awaited<ReturnType<typeof reader.read>>;
    try {
      chunk = await reader.read();
    } catch {
      // Bun ends the stream with an AbortError when the chunked encoding is malformed (a bad chunk
      // size) or the client goes away mid-body: the client's fault, answered and logged as a 400.
      throw new ValidationError("The request body is malformed: its chunked encoding is invalid or it ended early", "body");
    }
    const { done, value } = chunk;
    if (done) break;
    total += value.byteLength;
    if (total > MAX_BODY_BYTES) {
      await reader.cancel().catch(() => {});
      throw tooLarge();
    }
    chunks.push(value);
  }
  const headers = new Headers(request.headers);
  headers.delete("transfer-encoding");
  headers.set("content-length", String(total));
  return new Request(request.url, { method: request.method, headers, body: Buffer.concat(chunks, total) });
}
