import { describe, expect, test } from "bun:test";
import pkg from "../../package.json" with { type: "json" };
import { runCli } from "./spawn.ts";

const VERSION_LINE = `quire v${pkg.version}`;

describe("global options", () => {
  test("--help and -h list the commands and the global options, exit 0, no colour codes in a pipe", async () => {
    for (const flag of ["--help", "-h"]) {
      const r = await runCli([flag]);
      expect(r.code).toBe(0);
      expect(r.stdout).toContain("USAGE quire");
      expect(r.stdout).toContain("serve");
      expect(r.stdout).toContain("version");
      expect(r.stdout).toContain("-v, --version");
      expect(r.stdout).not.toContain("\x1b[");
    }
  });

  test("no arguments prints the usage", async () => {
    const r = await runCli([]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("USAGE quire");
  });

  test("a command's --help shows its own options", async () => {
    const r = await runCli(["serve", "--help"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("quire serve");
    expect(r.stdout).toContain("--port");
    expect(r.stdout).toContain("--data-dir");
  });

  test("--version and -v print the version, also after a command", async () => {
    for (const args of [["--version"], ["-v"], ["serve", "--version"], ["version", "-v"]]) {
      const r = await runCli(args);
      expect(r.code).toBe(0);
      expect(r.stdout.trim()).toBe(VERSION_LINE);
    }
  });
});

test("version prints version, commit and build date", async () => {
  const r = await runCli(["version"]);
  expect(r.code).toBe(0);
  expect(r.stdout).toBe(`${VERSION_LINE}\ncommit: dev\nbuilt: unknown\n`);
});

test("an unknown command is a usage error: usage and the message on stderr, exit 2", async () => {
  const r = await runCli(["frobnicate"]);
  expect(r.code).toBe(2);
  expect(r.stdout).toBe("");
  expect(r.stderr).toContain("USAGE quire");
  expect(r.stderr).toContain("quire: Unknown command frobnicate");
});

describe("invalid configuration", () => {
  test("serve lists every problem, naming each variable, and exits 2 without touching the data dir", async () => {
    const dir = `${require("node:os").tmpdir()}/quire-never-created-${Date.now()}`;
    const r = await runCli(["serve", "--port", "0", "--data-dir", dir], {
      env: { PORT: "abc", ARGON2_TIME: "0", QUIRE_ENV: "production" },
    });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.stderr).toContain("Invalid configuration");
    expect(r.stderr).toContain("ARGON2_TIME");
    expect(r.stderr).toContain("API_KEY_PEPPER");
    expect(r.stderr).not.toContain("    at "); // no stack trace
    expect(require("node:fs").existsSync(dir)).toBe(false);
  });

  test("PORT=abc is reported even when --port is not given", async () => {
    const r = await runCli(["serve"], { env: { PORT: "abc", LOG_LEVEL: "loud" } });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('PORT must be an integer from 0 to 65535 (got "abc")');
    expect(r.stderr).toContain("LOG_LEVEL");
  });

  test("a bad --port is refused with exit 2", async () => {
    for (const port of ["abc", "70000", "-1"]) {
      const r = await runCli(["serve", "--port", port]);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain("--port");
    }
  });
});
