import { expect } from "bun:test";
import type { ApiResponse } from "../helpers/client.ts";

const ULID = /^[0-9A-HJKMNP-TV-Z]{26}$/;

/** Asserts the error shape of docs/interfaces.md §7: machine code, message, request id echoed in X-Request-Id. */
export function expectError(r: ApiResponse, status: number, code: string): ApiResponse {
  expect({ status: r.status, error: r.body?.error }).toEqual({ status, error: code });
  expect(r.headers.get("content-type")).toContain("application/json");
  expect(typeof r.body.message).toBe("string");
  expect(r.body.request_id).toMatch(ULID);
  expect(r.headers.get("x-request-id")).toBe(r.body.request_id);
  return r;
}

/** The request log lines (JSON) a test server wrote. */
export function requestLogs(logs: string[]): Array<Record<string, any>> {
  return logs.map((l) => JSON.parse(l)).filter((l) => l.msg === "request");
}

/** Waits for the request log of a response: it is written just after the response goes out. */
export async function logOf(logs: string[], requestId: string): Promise<Record<string, any>> {
  for (let i = 0; i < 100; i++) {
    const line = requestLogs(logs).find((l) => l.request_id === requestId);
    if (line) return line;
    await Bun.sleep(5);
  }
  throw new Error(`no request log for ${requestId}`);
}
