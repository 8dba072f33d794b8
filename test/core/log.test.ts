import { expect, test } from "bun:test";
import { createLogger } from "../../src/core/log.ts";

test("a logger says which levels it writes, so costly fields are built only for lines that are written", () => {
  const lines: string[] = [];
  const log = createLogger({ level: "warn", write: (l) => lines.push(l) });
  expect(log.enabled("debug")).toBe(false);
  expect(log.enabled("info")).toBe(false);
  expect(log.enabled("warn")).toBe(true);
  expect(log.enabled("error")).toBe(true);
  expect(log.child({ area: "site" }).enabled("info")).toBe(false);
  log.info("dropped");
  log.warn("kept", { token: "secret-value" });
  expect(lines).toHaveLength(1);
  expect(JSON.parse(lines[0]!)).toMatchObject({ level: "warn", msg: "kept", token: "[redacted]" });
  expect(createLogger({ write: () => {} }).enabled("info")).toBe(true);
});
