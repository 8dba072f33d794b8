/**
 * docs/interfaces.md is generated from the code (scripts/interfaces-doc.ts): the OpenAPI document,
 * the CLI's command definitions, the MCP tool list, the error classes and the limits. Rebuilt here
 * in memory, it must equal the committed file, so a route, flag, tool or limit cannot change
 * without the document saying so.
 */
import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { INTERFACES_DOC, interfacesDoc } from "../../scripts/interfaces-doc.ts";
import { API_ROUTES } from "../../src/http/routes/openapi.ts";

const ROOT = join(import.meta.dir, "../..");

test("docs/interfaces.md is what the code generates (run `bun run docs:interfaces` after changing an interface)", async () => {
  const generated = await interfacesDoc();
  const committed = readFileSync(join(ROOT, INTERFACES_DOC), "utf8");
  if (generated !== committed) {
    const a = committed.split("\n");
    const b = generated.split("\n");
    const line = a.findIndex((l, i) => l !== b[i]);
    throw new Error(
      `${INTERFACES_DOC} is out of date: run \`bun run docs:interfaces\` and commit the result.\n` +
        `First difference at line ${line + 1}:\n  committed: ${a[line] ?? "(end of file)"}\n  generated: ${b[line] ?? "(end of file)"}`,
    );
  }
});

test("the generation is deterministic and covers every route, command, tool and error code", async () => {
  const [one, two] = [await interfacesDoc(), await interfacesDoc()];
  expect(one).toBe(two);
  for (const key of Object.keys(API_ROUTES)) {
    const [method, path] = key.split(" ") as [string, string];
    const openApiPath = path.replace(/:([A-Za-z_][A-Za-z0-9_]*)/g, "{$1}").replace(/\*$/, "{path}");
    expect(one, key).toContain(`| ${method} | \`${openApiPath}\` |`);
  }
  for (const command of ["serve", "init", "rebuild", "status", "open", "stop", "doctor", "backup", "export", "preview", "mcp", "mcp-server", "reset-password", "version", "history", "restore"]) {
    expect(one).toContain(`### quire ${command}\n`);
  }
  expect(one.match(/^### quire_[a-z_]+$/gm)).toHaveLength(32);
  expect(one).toContain("| 409 | `CONFLICT` | `ConflictError` |");
});
