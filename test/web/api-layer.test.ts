/** Screens and components reach the server through src/web/api/ only: no API address written inline elsewhere. */
import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { Glob } from "bun";
import { join } from "node:path";

const WEB = join(import.meta.dir, "../../src/web");

test("no file of the web app outside src/web/api/ builds an /api/ address", () => {
  const offenders: string[] = [];
  for (const file of new Glob("**/*.{ts,tsx}").scanSync(WEB)) {
    if (file.startsWith("api/") || file === "build-web.ts" || file === "shell-html.ts" || file === "prebuilt.ts") continue;
    const text = readFileSync(join(WEB, file), "utf8");
    text.split("\n").forEach((line, i) => {
      // A string or template literal that starts an API address; a check of an address (startsWith) is not a call.
      if (/[`"']\/api\//.test(line) && !/startsWith\(["']\/api\//.test(line)) offenders.push(`src/web/${file}:${i + 1}: ${line.trim()}`);
    });
  }
  expect(offenders, `API addresses belong in src/web/api/<domain>.ts:\n${offenders.join("\n")}`).toEqual([]);
});
