import { expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { ConfigError } from "../../src/config.ts";
import { NotFoundError, ValidationError } from "../../src/core/errors.ts";
import { CommandError, describeError, forStream } from "../../src/commands/exit.ts";
import { InstanceLockedError } from "../../src/ops/instance-lock.ts";
import { tempDir } from "../helpers/server.ts";

test("importing the CLI runs nothing (the test process would exit if it did)", async () => {
  const cli = await import("../../src/cli.ts");
  expect(typeof cli.main).toBe("function");
  expect(cli.root.meta).toBeDefined();
});

test("known errors map to a message and an exit code", () => {
  expect(describeError(new ConfigError(["PORT must be an integer", "BASE_URL must be an http(s) URL"]))).toEqual({
    message: "Invalid configuration:\n  - PORT must be an integer\n  - BASE_URL must be an http(s) URL",
    exitCode: 2,
  });
  expect(describeError(new NotFoundError("No account with that email"))).toEqual({
    message: "No account with that email",
    exitCode: 1,
  });
  expect(describeError(new ValidationError("slug is taken", "slug")).message).toBe("slug is taken (slug)");
  expect(describeError(new CommandError("nothing is running", 3))).toEqual({ message: "nothing is running", exitCode: 3 });
  const dir = tempDir();
  const locked = describeError(new InstanceLockedError(dir));
  rmSync(dir, { recursive: true, force: true });
  expect(locked.exitCode).toBe(1);
  expect(locked.message).toContain("holds the lock");
});

test("unexpected errors exit 1 with their message only, never a stack", () => {
  const r = describeError(new TypeError("x is not a function"));
  expect(r).toEqual({ message: "Unexpected error: x is not a function", exitCode: 1 });
  expect(describeError("a string").message).toBe("Unexpected error: a string");
});

test("colour codes reach terminals only", () => {
  expect(forStream("\x1b[36mserve\x1b[39m", { isTTY: false })).toBe("serve");
  expect(forStream("\x1b[36mserve\x1b[39m", { isTTY: true })).toBe("\x1b[36mserve\x1b[39m");
});
