/** Every command's --help ends with examples of its use; data-printing commands speak JSON. */
import { expect, test } from "bun:test";
import { EXAMPLES } from "../../src/cli.ts";
import { runCli } from "./spawn.ts";

test("each command's --help shows its examples (status, open, stop, doctor and backup among them)", async () => {
  for (const name of ["status", "open", "stop", "doctor", "backup", "serve", "init", "rebuild", "reset-password", "version"]) {
    expect(EXAMPLES[name]?.length ?? 0).toBeGreaterThan(0);
  }
  const results = await Promise.all(Object.keys(EXAMPLES).map((name) => runCli([name, "--help"]).then((r) => [name, r] as const)));
  for (const [name, r] of results) {
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`USAGE quire ${name}`);
    expect(r.stdout).toContain("Examples:");
    for (const example of EXAMPLES[name]!) expect(r.stdout).toContain(`  ${example}`);
  }
}, 60_000);

test("version --json", async () => {
  const r = await runCli(["version", "--json"]);
  expect(r.code).toBe(0);
  expect(JSON.parse(r.stdout)).toEqual({ version: expect.stringMatching(/^v\d/), commit: expect.any(String), built: expect.any(String) });
}, 60_000);
