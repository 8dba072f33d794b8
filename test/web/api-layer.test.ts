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

test("screens and components call the server through the typed calls of src/web/api/, not the low-level client", () => {
  // The sign-in flows hold the session itself (tokens, the refresh, a passkey ceremony): they use
  // the client directly, on purpose.
  const SESSION = new Set(["app/auth.tsx", "app/passkey-client.ts", "screens/AuthScreens.tsx", "screens/InviteScreens.tsx"]);
  const offenders: string[] = [];
  for (const file of new Glob("**/*.{ts,tsx}").scanSync(WEB)) {
    if (file.startsWith("api/") || SESSION.has(file)) continue;
    const text = readFileSync(join(WEB, file), "utf8");
    const m = /import \{([^}]*)\} from "[./]*api\/client\.ts"/.exec(text);
    const calls = (m?.[1] ?? "").split(",").map((s) => s.trim()).filter((s) => ["get", "post", "put", "del", "patch", "api"].includes(s));
    if (calls.length > 0) offenders.push(`src/web/${file}: ${calls.join(", ")}`);
  }
  expect(offenders, `make a typed call in src/web/api/<domain>.ts instead:\n${offenders.join("\n")}`).toEqual([]);
});
