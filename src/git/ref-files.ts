/**
 * A ref read straight from a work tree's `.git` files: `HEAD`, the loose ref it names, or its line
 * in `packed-refs`. What a start asks of every workspace (the page-history index's catch-up wants
 * HEAD) needs no git library: loading isomorphic-git for it cost ~2 MB of resident memory in a
 * server nobody had used yet (docs/decisions/runtime-footprint.md).
 *
 * Only the plain layout is read here. Anything else — `.git` as a file (a linked work tree), a
 * reftable, a missing ref (an unborn branch), a value that is not a SHA-1 — answers `undefined`,
 * and the caller asks isomorphic-git as before, so the answer never differs from the library's.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";

const OID = /^[0-9a-f]{40}$/;
/** Symbolic refs pointing at symbolic refs: git itself gives up after 5. */
const MAX_DEPTH = 5;

/** The commit `ref` names in `<dir>/.git`, or undefined when this plain reading cannot tell. */
export function readRefFromFiles(dir: string, ref: string): string | undefined {
  const gitDir = join(dir, ".git");
  let name = ref;
  for (let depth = 0; depth < MAX_DEPTH; depth++) {
    if (!/^(HEAD|refs\/[^\0]+)$/.test(name) || name.split("/").includes("..")) return undefined;
    const value = readText(join(gitDir, name)) ?? packed(gitDir, name);
    if (value === undefined) return undefined;
    if (OID.test(value)) return value;
    const target = /^ref: (\S+)$/.exec(value)?.[1];
    if (!target) return undefined;
    name = target;
  }
  return undefined;
}

function readText(path: string): string | undefined {
  try {
    return readFileSync(path, "utf8").trim();
  } catch {
    return undefined; // absent (packed, or unborn), or not a file
  }
}

/** The ref's line in packed-refs (`<oid> <name>`; `^<oid>` lines peel the tag above them). */
function packed(gitDir: string, name: string): string | undefined {
  const text = readText(join(gitDir, "packed-refs"));
  if (text === undefined) return undefined;
  for (const line of text.split("\n")) {
    if (line.startsWith("#") || line.startsWith("^")) continue;
    const space = line.indexOf(" ");
    if (space > 0 && line.slice(space + 1).trim() === name) return line.slice(0, space);
  }
  return undefined;
}
