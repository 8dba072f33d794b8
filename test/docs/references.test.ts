/**
 * Every reference in the repository's own text points at something the repository holds: a
 * Markdown document (`docs/architecture.md §5`, `docs/decisions/mcp.md`, `README.md#quick-start`) with
 * the section or heading it names, and every repository path (`src/…`, `test/…`, `docs/…`,
 * `bench/…`, `assets/…`) written in comments and documents. The scanner is test/docs/reference-scan.ts.
 */
import { describe, expect, test } from "bun:test";
import { commentsOnly, describeRef, referencesIn, scanRepository, scannedFiles } from "./reference-scan.ts";

describe("references to documents and repository paths", () => {
  test("every one resolves (a failure lists each bad reference as file:line)", () => {
    const refs = scanRepository();
    const bad = refs.filter((r) => r.problem);
    expect(bad.map(describeRef), `${bad.length} reference(s) name nothing in the repository:\n${bad.map(describeRef).join("\n")}`).toEqual([]);
  });

  test("the scan is not vacuous: it reads the whole tree and finds hundreds of references of both kinds", () => {
    const files = scannedFiles();
    for (const f of ["README.md", "build.ts", "docs/architecture.md", "src/content/ledger.ts", "test/docs/references.test.ts", "bench/run.ts"]) expect(files).toContain(f);
    const refs = scanRepository();
    expect(refs.length).toBeGreaterThan(500);
    expect(refs.filter((r) => /\.md( §\d+|#|$)/.test(r.text) && r.text.includes("docs/architecture.md §")).length).toBeGreaterThan(50);
    expect(refs.filter((r) => r.text.startsWith("src/")).length).toBeGreaterThan(100);
    // A known good citation in the code is among them.
    expect(refs.some((r) => r.file === "src/content/ledger.ts" && r.text === "docs/architecture.md §5" && !r.problem)).toBe(true);
  });

  test("the same function flags a missing document, section, anchor, file and folder, and passes good ones", () => {
    // Built from pieces so this file's own text holds no bad reference.
    const doc = (name: string) => `${name}.md`;
    const ARCH = "docs/" + "architecture";
    const text = [
      `// see ${doc("DES" + "IGN")} §5 and ${doc(ARCH)} §99`,
      `// and ${doc(ARCH)}#no-such-heading, ${doc("docs/decisions/" + "nope")}`,
      `// code in ${"src/content/" + "no-such-file.ts"} and ${"test/no-such-" + "folder/"}`,
      `// fine: ${doc(ARCH)} §5, ${doc(ARCH)}#5-the-content-ledger, ${doc("README")}, src/content/ledger.ts, src/core/net/, src/identity/oidc-*.ts`,
      `const s = "${"src/" + "not/a/reference.ts"}"; // a string in code is data`,
    ].join("\n");
    const refs = referencesIn("src/example.ts", commentsOnly(text));
    const problems = refs.filter((r) => r.problem).map((r) => `${r.line}: ${r.text}`);
    expect(problems).toEqual([
      `1: ${doc("DES" + "IGN")} §5`,
      `1: ${doc(ARCH)} §99`,
      `2: ${doc(ARCH)}#no-such-heading`,
      `2: ${doc("docs/decisions/" + "nope")}`,
      `2: ${doc("docs/decisions/" + "nope")}`,
      `3: ${"src/content/" + "no-such-file.ts"}`,
      `3: ${"test/no-such-" + "folder/"}`,
    ]);
    expect(refs.filter((r) => r.line === 4 && !r.problem).length).toBeGreaterThanOrEqual(7);
    expect(refs.some((r) => r.line === 5)).toBe(false);
  });
});
