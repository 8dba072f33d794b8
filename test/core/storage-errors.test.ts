import { describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { createLogger } from "../../src/core/log.ts";
import { InsufficientStorageError, ServiceUnavailableError } from "../../src/core/errors.ts";
import { StorageHealth, storageFailureOf, storageRefusal } from "../../src/core/storage-errors.ts";
import { toErrorResponse } from "../../src/http/error-response.ts";
import { toolError } from "../../src/mcp/errors.ts";
import { describeError } from "../../src/commands/exit.ts";

/** A real ENOSPC: /dev/full refuses every write for want of space. */
function enospc(): Error {
  try {
    writeFileSync("/dev/full", "x");
  } catch (error) {
    return error as Error;
  }
  throw new Error("/dev/full accepted a write");
}

/** A real SQLITE_FULL: a database capped at a few pages. */
function sqliteFull(): Error {
  const db = new Database(":memory:");
  db.run("PRAGMA max_page_count = 3");
  db.run("CREATE TABLE t (v TEXT)");
  try {
    for (let i = 0; i < 100; i++) db.run("INSERT INTO t VALUES (?)", ["x".repeat(4000)]);
  } catch (error) {
    return error as Error;
  } finally {
    db.close();
  }
  throw new Error("the capped database took everything");
}

function capture() {
  const lines: Array<Record<string, unknown>> = [];
  return { lines, log: createLogger({ level: "debug", write: (l) => lines.push(JSON.parse(l)) }) };
}

describe("storage refusals", () => {
  test("ENOSPC, SQLITE_FULL and EROFS are told apart from other errors", () => {
    expect(storageFailureOf(enospc())).toBe("full");
    const full = sqliteFull();
    expect((full as { code?: string }).code).toBe("SQLITE_FULL");
    expect(storageFailureOf(full)).toBe("full");
    expect(storageFailureOf(Object.assign(new Error("EROFS: read-only file system, open 'x'"), { code: "EROFS" }))).toBe("read-only");
    expect(storageFailureOf(new Error("fatal: unable to write new index file: No space left on device"))).toBe("full");
    expect(storageFailureOf(new Error("wrapped", { cause: enospc() }))).toBe("full");
    expect(storageFailureOf(new Error("ENOENT: no such file"))).toBeNull();
    expect(storageRefusal(enospc())).toBeInstanceOf(InsufficientStorageError);
    expect(storageRefusal(Object.assign(new Error("x"), { code: "EROFS" }))).toBeInstanceOf(ServiceUnavailableError);
  });

  test("HTTP answers 507 in the error shape, logged once a minute at warn with the free space", () => {
    const { lines, log } = capture();
    let now = 1_000_000;
    const storage = new StorageHealth(tmpdir(), log, 0, () => now);
    const first = toErrorResponse(enospc(), undefined, "r1", log, storage);
    expect(first.status).toBe(507);
    expect(first.body).toEqual({
      error: "INSUFFICIENT_STORAGE",
      message: "The server's disk is full; nothing was saved. Ask your administrator to free space.",
      request_id: "r1",
    });
    for (let i = 0; i < 5; i++) expect(toErrorResponse(enospc(), undefined, `r${i}`, log, storage).status).toBe(507);
    expect(lines).toHaveLength(1);
    expect(lines[0]!.level).toBe("warn");
    expect(typeof lines[0]!.free_bytes).toBe("number");
    expect(lines.some((l) => l.msg === "unhandled error")).toBe(false);
    expect(storage.recentFailure()).toBe("full");
    now += 61_000;
    expect(storage.recentFailure()).toBeNull();
    toErrorResponse(enospc(), undefined, "r9", log, storage);
    expect(lines).toHaveLength(2);
    expect(lines[1]!.not_logged_since).toBe(5);
    const ro = toErrorResponse(Object.assign(new Error("EROFS: read-only file system"), { code: "EROFS" }), undefined, "r10", log, storage);
    expect(ro.status).toBe(503);
    expect(ro.body.error).toBe("SERVICE_UNAVAILABLE");
  });

  test("MCP names the cause in an isError result; the CLI says it plainly", () => {
    const { lines, log } = capture();
    const result = toolError(enospc(), "quire_update_page", { path: "a.md" }, log);
    expect(result.isError).toBe(true);
    expect(result.content[0]!.text).toContain("disk is full");
    expect(result.content[0]!.text).toContain('"error":"INSUFFICIENT_STORAGE"');
    expect(lines.filter((l) => l.level === "error")).toHaveLength(0);
    expect(describeError(sqliteFull())).toEqual({ message: "The server's disk is full; nothing was saved. Ask your administrator to free space.", exitCode: 1 });
  });
});
