/**
 * scripts/unused-exports.ts, which `.ci/run` runs after the type-check, on a small project of its
 * own: it must report an export nothing imports (and exit 1), and must not report one that is
 * imported in any of the ways TypeScript allows.
 */
import { afterAll, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { findUnusedExports } from "../../scripts/unused-exports.ts";

const root = mkdtempSync(join(tmpdir(), "quire-unused-exports-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function write(path: string, text: string): void {
  mkdirSync(dirname(join(root, path)), { recursive: true });
  writeFileSync(join(root, path), text);
}

write(
  "src/lib.ts",
  `// export const inComment = 1;
export const used = 1;
export const FORGOTTEN = "export const notAnExport = 2";
export function localOnly(): number { return 3; }
export const callsLocal = () => localOnly();
export type Shape = { a: number };
export interface Viewed { b: string }
export const lazy = 4;
export const lazyMember = 5;
const re = /"export const x"/g;
export { re };
`,
);
write("src/other.ts", `export { used as again } from "./lib.ts";\nexport * from "./star.ts";\n`);
write("src/star.ts", `export const viaStar = 6;\nexport const notViaStar = 7;\n`);
write(
  "src/cli.ts",
  `import { again, viaStar } from "./other.ts";
import type { Shape } from "./lib.ts";
import { type Viewed, callsLocal } from "./lib.ts";
const { lazy } = await import("./lib.ts");
const m = (await import("./lib.ts")).lazyMember;
import { View } from "./view.tsx";
export const alsoEntry = [again, viaStar, lazy, m, callsLocal, View] as unknown as Shape & Viewed;
`,
);
// An apostrophe in JSX text is not the start of a string that would hide the next export.
write("src/view.tsx", `export const View = () => <p>Don't stop</p>;\nexport const unusedView = 8;\n`);
write("test/lib.test.ts", `import { re } from "../src/lib.ts";\nvoid re;\n`);

test("reports exactly the exports nothing imports, and whether their own file uses them", () => {
  const { unused, testOnly } = findUnusedExports(root, { testOnly: true });
  expect(unused).toEqual([
    { file: "src/lib.ts", name: "FORGOTTEN", usedLocally: false },
    { file: "src/lib.ts", name: "localOnly", usedLocally: true },
    { file: "src/star.ts", name: "notViaStar", usedLocally: false },
    { file: "src/view.tsx", name: "unusedView", usedLocally: false },
  ]);
  expect(testOnly).toEqual([{ file: "src/lib.ts", name: "re", usedLocally: true }]);
});

test("the command fails naming them, and passes on a project without any", async () => {
  const run = (dir: string) => Bun.spawnSync(["bun", join(import.meta.dir, "../../scripts/unused-exports.ts"), "--root", dir]);
  const failing = run(root);
  expect(failing.exitCode).toBe(1);
  expect(failing.stderr.toString()).toContain("src/lib.ts: FORGOTTEN");
  const clean = mkdtempSync(join(tmpdir(), "quire-unused-exports-clean-"));
  try {
    mkdirSync(join(clean, "src"));
    writeFileSync(join(clean, "src/a.ts"), `export const a = 1;\n`);
    writeFileSync(join(clean, "src/cli.ts"), `import { a } from "./a.ts";\nconsole.log(a);\n`);
    const passing = run(clean);
    expect([passing.exitCode, passing.stdout.toString().trim()]).toEqual([0, "unused exports: none"]);
  } finally {
    rmSync(clean, { recursive: true, force: true });
  }
});
