import { afterAll, expect, test } from "bun:test";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../helpers/server.ts";
import { resolveDataDir } from "../../src/core/data-dir.ts";

const cwd = tempDir("quire-cwd-");
const withLegacy = tempDir("quire-cwd-legacy-");
mkdirSync(join(withLegacy, ".quire"));
afterAll(() => {
  rmSync(cwd, { recursive: true, force: true });
  rmSync(withLegacy, { recursive: true, force: true });
});

const HOME = "/home/ada";

test("the --data-dir flag wins over everything, relative to the working directory", () => {
  expect(resolveDataDir("data", { DATA_DIR: "/env/dir", HOME }, withLegacy, "linux")).toEqual({
    path: join(withLegacy, "data"),
    rule: "flag",
  });
  expect(resolveDataDir("/abs/dir", { DATA_DIR: "/env/dir" }, cwd, "linux")).toEqual({ path: "/abs/dir", rule: "flag" });
});

test("DATA_DIR comes next, also over an existing ./.quire", () => {
  expect(resolveDataDir(undefined, { DATA_DIR: "/env/dir", HOME }, withLegacy, "linux")).toEqual({
    path: "/env/dir",
    rule: "env",
  });
  expect(resolveDataDir("", { DATA_DIR: "rel", HOME }, cwd, "linux")).toEqual({ path: join(cwd, "rel"), rule: "env" });
  // Blank values count as absent.
  expect(resolveDataDir("  ", { DATA_DIR: " ", HOME }, cwd, "linux").rule).toBe("os-default");
});

test("an existing ./.quire directory is used in place; a ./.quire file is not", () => {
  expect(resolveDataDir(undefined, { HOME }, withLegacy, "linux")).toEqual({
    path: join(withLegacy, ".quire"),
    rule: "legacy",
  });
  const fileCwd = tempDir("quire-cwd-file-");
  writeFileSync(join(fileCwd, ".quire"), "not a directory");
  expect(resolveDataDir(undefined, { HOME }, fileCwd, "linux").rule).toBe("os-default");
  rmSync(fileCwd, { recursive: true, force: true });
});

test("otherwise the per-user data location of the OS", () => {
  expect(resolveDataDir(undefined, { HOME, XDG_DATA_HOME: "/xdg" }, cwd, "linux")).toEqual({
    path: "/xdg/quire",
    rule: "os-default",
  });
  expect(resolveDataDir(undefined, { HOME }, cwd, "linux").path).toBe("/home/ada/.local/share/quire");
  expect(resolveDataDir(undefined, { HOME }, cwd, "darwin").path).toBe("/home/ada/Library/Application Support/quire");
  expect(resolveDataDir(undefined, { HOME, LOCALAPPDATA: "C:\\Users\\ada\\AppData\\Local" }, cwd, "win32").path).toBe(
    join("C:\\Users\\ada\\AppData\\Local", "quire"),
  );
});
