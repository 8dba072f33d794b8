/**
 * The server's log file cannot fill the disk: it rotates by size (bytes, whatever the script of
 * the text), keeps one older file, and so never holds more than about 2 MiB however much is
 * logged; the newest lines are the ones kept.
 */
import { afterAll, expect, test } from "bun:test";
import { readdirSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../helpers/server.ts";
import { LogFile, recentLogLines } from "../../src/ops/log-file.ts";

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

test("10 MiB of log lines (many not ASCII) leave two files of at most 1 MiB each, the newest lines kept", () => {
  const d = tempDir("quire-log-");
  dirs.push(d);
  const file = new LogFile(d);
  // Three bytes a character: counting characters would let the file reach 3 MiB.
  const text = "日本語のログ".repeat(40);
  let n = 0;
  for (let written = 0; written < 10 * 1024 * 1024; n++) {
    const line = JSON.stringify({ level: "info", msg: text, n });
    file.write(line);
    written += Buffer.byteLength(line) + 1;
  }
  file.flush();
  const logs = join(d, "logs");
  expect(readdirSync(logs).sort()).toEqual(["quire.log", "quire.log.1"]);
  for (const name of readdirSync(logs)) expect(statSync(join(logs, name)).size).toBeLessThanOrEqual(1024 * 1024);
  const last = recentLogLines(d, 3).map((l) => (JSON.parse(l) as { n: number }).n);
  expect(last).toEqual([n - 3, n - 2, n - 1]);

  // A restarted server continues the same file and keeps the same cap.
  const again = new LogFile(d);
  for (let i = 0; i < 2000; i++) again.write(JSON.stringify({ msg: text, i }));
  again.flush();
  expect(readdirSync(logs).sort()).toEqual(["quire.log", "quire.log.1"]);
  for (const name of readdirSync(logs)) expect(statSync(join(logs, name)).size).toBeLessThanOrEqual(1024 * 1024);
});
