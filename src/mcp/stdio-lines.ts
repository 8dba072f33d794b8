import { PassThrough, type Readable } from "node:stream";

/** The SDK's own stdio read limit; a longer line would make it close the connection. */
const MAX_LINE_BYTES = 10 * 1024 * 1024;

/**
 * stdin as the SDK's stdio transport should see it: only lines that are JSON-RPC messages. The
 * SDK drops a line it cannot parse without answering; a client that sent it would wait forever.
 * Here garbage gets the JSON-RPC answer it deserves (-32700 parse error, -32600 invalid request,
 * with the request's id when it has one) and the server keeps running. An over-long line is
 * skipped without being buffered. `onMessage` sees the method of each message passed on (undefined
 * for a response), before the SDK does.
 */
export function guardedStdin(input: Readable, answer: (line: string) => void, onMessage?: (method: string | undefined) => void): Readable {
  const out = new PassThrough();
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let skipping = false;

  const reply = (id: unknown, code: number, message: string) =>
    answer(JSON.stringify({ jsonrpc: "2.0", id: typeof id === "string" || typeof id === "number" ? id : null, error: { code, message } }) + "\n");

  const line = (raw: string) => {
    const text = raw.endsWith("\r") ? raw.slice(0, -1) : raw;
    if (text.trim() === "") return;
    let msg: unknown;
    try {
      msg = JSON.parse(text);
    } catch {
      return reply(null, -32700, "Parse error: each line must be one JSON-RPC message");
    }
    const m = msg as Record<string, unknown> | null;
    const isObject = m !== null && typeof m === "object" && !Array.isArray(m);
    const valid =
      isObject &&
      m.jsonrpc === "2.0" &&
      ((typeof m.method === "string" && (m.params === undefined || (typeof m.params === "object" && m.params !== null))) ||
        ((typeof m.id === "string" || typeof m.id === "number") && ("result" in m || "error" in m)));
    if (!valid) return reply(isObject ? m.id : null, -32600, "Invalid Request: not a JSON-RPC 2.0 message");
    onMessage?.(typeof m.method === "string" ? m.method : undefined);
    out.write(text + "\n");
  };

  input.on("data", (chunk: Buffer) => {
    let start = 0;
    for (let nl = chunk.indexOf(10, start); nl >= 0; nl = chunk.indexOf(10, start)) {
      const piece = chunk.subarray(start, nl);
      start = nl + 1;
      if (skipping) {
        skipping = false;
        continue;
      }
      const whole = pending.length > 0 ? Buffer.concat([...pending, piece]) : piece;
      pending = [];
      pendingBytes = 0;
      line(whole.toString("utf8"));
    }
    const rest = chunk.subarray(start);
    if (rest.length === 0 || skipping) return;
    pendingBytes += rest.length;
    if (pendingBytes > MAX_LINE_BYTES) {
      pending = [];
      pendingBytes = 0;
      skipping = true;
      reply(null, -32600, `Invalid Request: a message longer than ${MAX_LINE_BYTES} bytes`);
      return;
    }
    pending.push(Buffer.from(rest));
  });
  input.on("end", () => {
    if (!skipping && pending.length > 0) line(Buffer.concat(pending).toString("utf8"));
    out.end();
  });
  input.on("error", (error) => out.destroy(error));
  return out;
}
