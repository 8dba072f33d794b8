/**
 * `bun scripts/unused-exports.ts [--root <dir>] [--test-only] [--fix]`: lists every export of `src/` that no
 * other file of the project imports (src/, test/, bench/, scripts/, build.ts), and exits 1 when
 * there is one. `.ci/run` runs it after the type-check: an export nobody imports is either dead code
 * or a name that should not be exported. `--test-only` also lists, without failing, the exports
 * that only tests import (worth a look: keep one only if the test checks real behaviour through it).
 * `--fix` un-exports the declarations their own file still uses and lists the rest.
 *
 * TypeScript's own unused-symbol checks stop at a module's edge and the native compiler (7.x) has no
 * stable JavaScript API for a tool such as knip, so this reads the import and export statements
 * itself: comments and string contents are blanked first (keeping module specifiers), then
 * `import … from`, `import type`, `export … from` (re-exports, followed through), `export *`,
 * `import()` (a destructured or `.name` use names what it takes; any other use takes the whole
 * module) and `typeof import()` are resolved to files. A namespace import takes the whole module.
 *
 * ENTRIES are the files something outside the import graph loads (the executable's entry, the
 * browser bundle's, a worker started by URL): their exports are not checked.
 */
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";

/** Files loaded from outside the import graph, relative to the root. */
export const ENTRIES = [
  "src/cli.ts", // the executable's and `bun src/cli.ts`'s entry
  "src/web/main.tsx", // the browser app's bundle (src/web/build-web.ts)
  "src/publish/export/page-worker.ts", // a Worker started by URL (src/publish/export/page-pool.ts)
  "build.ts",
];

/**
 * Exports kept although nothing imports them, each with its reason: what imports it is generated,
 * or the export is a compile-time check that must not look like dead code.
 */
export const KEEP: Record<string, string[]> = {
  "src/core/assets.ts": ["registerEmbeddedAssets"], // imported by the entry build.ts generates
  "src/analytics/analytics.ts": ["AnalyticsAnswersFit"], // tsc checks the answers fit the output schemas
  "src/publish/quality/quality-service.ts": ["QualityAnswerFits"], // likewise
};

/** Where exports are checked, and where importers are looked for (relative to the root). */
const CHECKED = ["src"];
const IMPORTERS = ["src", "test", "bench", "scripts", "build.ts"];
const EXTENSIONS = [".ts", ".tsx"];

export interface Unused {
  file: string;
  name: string;
  /** Whether the name is still used inside its own file (then un-export it; otherwise delete it). */
  usedLocally: boolean;
}

interface Module {
  file: string;
  code: string;
  exports: Map<string, number>;
  /** `export { a as b } from "./x"`: b here is a of x. */
  forwards: Array<{ name: string; from: string; as: string }>;
  /** `export * from "./x"`. */
  forwardAll: string[];
}

/** Blanks comments and the contents of strings, template literals and regular expressions; returns the specifiers kept. */
export function blank(source: string): { code: string; strings: string[] } {
  const strings: string[] = [];
  let out = "";
  let i = 0;
  // Template literal nesting: each entry is the brace depth at which a `${` began.
  const templates: number[] = [];
  let depth = 0;
  // The last significant token (a punctuator, or a word): a `/` after `)`, `]`, a name or a number divides.
  let last = "";
  let word = "";
  const regexAllowedAfter = /^(?:|[(,=:[!&|?{};+\-*%<>~^]|return|typeof|case|do|else|in|of|new|delete|void|throw|yield|await)$/;
  const readTemplate = () => {
    // From just after a backtick (or a closing `}` of `${`) to the next backtick or `${`.
    while (i < source.length) {
      const c = source[i]!;
      if (c === "\\") {
        i += 2;
        continue;
      }
      if (c === "`") {
        i++;
        out += '`"`';
        return;
      }
      if (c === "$" && source[i + 1] === "{") {
        i += 2;
        out += "`${";
        templates.push(depth);
        depth++;
        return;
      }
      if (c === "\n") out += "\n";
      i++;
    }
  };
  while (i < source.length) {
    const c = source[i]!;
    const next = source[i + 1];
    if (c === "/" && next === "/") {
      while (i < source.length && source[i] !== "\n") i++;
      continue;
    }
    if (c === "/" && next === "*") {
      const end = source.indexOf("*/", i + 2);
      const stop = end === -1 ? source.length : end + 2;
      out += source.slice(i, stop).replace(/[^\n]/g, "");
      i = stop;
      continue;
    }
    if (c === '"' || c === "'") {
      // A string ends at its quote, or (an apostrophe in JSX text) at the end of the line.
      let j = i + 1;
      let text = "";
      while (j < source.length && source[j] !== c && source[j] !== "\n") {
        if (source[j] === "\\") {
          text += source[j + 1] ?? "";
          j += 2;
        } else text += source[j++];
      }
      strings.push(text);
      out += `"${strings.length - 1}"`;
      i = source[j] === c ? j + 1 : j;
      last = '"';
      continue;
    }
    if (c === "`") {
      i++;
      out += "`";
      readTemplate();
      last = "`";
      continue;
    }
    if (c === "/" && regexAllowedAfter.test(last)) {
      let j = i + 1;
      let inClass = false;
      while (j < source.length && source[j] !== "\n") {
        const d = source[j]!;
        if (d === "\\") j += 2;
        else {
          if (d === "[") inClass = true;
          else if (d === "]") inClass = false;
          else if (d === "/" && !inClass) break;
          j++;
        }
      }
      if (source[j] === "/") {
        j++;
        while (j < source.length && /[a-z]/.test(source[j]!)) j++;
        out += "/r/";
        i = j;
        last = "/";
        continue;
      }
    }
    if (c === "{") depth++;
    if (c === "}") {
      depth--;
      if (templates.length > 0 && templates[templates.length - 1] === depth) {
        templates.pop();
        i++;
        readTemplate();
        continue;
      }
    }
    out += c;
    if (/[A-Za-z0-9_$]/.test(c)) last = word += c;
    else {
      word = "";
      if (!/\s/.test(c)) last = c;
    }
    i++;
  }
  return { code: out, strings };
}

const IDENT = "[A-Za-z_$][A-Za-z0-9_$]*";

/** `a, b as c, type d` → [[a, a], [b, c], [d, d]] (imported name, local or exported name). */
function specifiers(list: string): Array<[string, string]> {
  return list
    .split(",")
    .map((s) => s.trim().replace(/^type\s+/, ""))
    .filter(Boolean)
    .map((s) => {
      const m = new RegExp(`^(${IDENT}|"\\d+")(?:\\s+as\\s+(${IDENT}))?$`).exec(s);
      if (!m) return null;
      return [m[1]!, m[2] ?? m[1]!] as [string, string];
    })
    .filter((x): x is [string, string] => x !== null);
}

function walk(path: string, files: string[]): void {
  if (!existsSync(path)) return;
  if (statSync(path).isFile()) {
    if (EXTENSIONS.some((e) => path.endsWith(e)) && !path.endsWith(".d.ts")) files.push(path);
    return;
  }
  for (const name of readdirSync(path)) {
    if (name === "node_modules" || name.startsWith(".")) continue;
    walk(join(path, name), files);
  }
}

function resolveSpecifier(from: string, specifier: string): string | null {
  if (!specifier.startsWith(".")) return null;
  const base = resolve(dirname(from), specifier);
  for (const candidate of [base, ...EXTENSIONS.map((e) => base + e), ...EXTENSIONS.map((e) => join(base, `index${e}`))]) {
    if (existsSync(candidate) && statSync(candidate).isFile()) return candidate;
  }
  return null;
}

/** The exports of `root`'s src/ that nothing imports. */
export function findUnusedExports(root: string, opts: { testOnly?: boolean } = {}): { unused: Unused[]; testOnly: Unused[] } {
  const files: string[] = [];
  for (const dir of IMPORTERS) walk(join(root, dir), files);
  const entries = new Set(ENTRIES.map((e) => join(root, e)));
  const isChecked = (file: string) => CHECKED.some((dir) => file.startsWith(join(root, dir) + sep)) && !entries.has(file);
  const isTest = (file: string) => file.startsWith(join(root, "test") + sep);

  const modules = new Map<string, Module>();
  /** file → name → importing files ("*" for the whole module). */
  const used = new Map<string, Map<string, Set<string>>>();
  const use = (target: string, name: string, by: string) => {
    if (!used.has(target)) used.set(target, new Map());
    const names = used.get(target)!;
    if (!names.has(name)) names.set(name, new Set());
    names.get(name)!.add(by);
  };

  for (const file of files) {
    const { code, strings } = blank(readFileSync(file, "utf8"));
    const spec = (token: string) => resolveSpecifier(file, strings[Number(token)]!);
    const mod: Module = { file, code, exports: new Map(), forwards: [], forwardAll: [] };
    modules.set(file, mod);
    const addExport = (name: string, at: number) => {
      if (!mod.exports.has(name)) mod.exports.set(name, at);
    };

    // Declarations: export [default] [declare] [async] function|class|const|… name
    for (const m of code.matchAll(
      new RegExp(`\\bexport\\s+(?:declare\\s+)?(?:abstract\\s+)?(?:async\\s+)?(function\\s*\\*?|class|const\\s+enum|const|let|var|interface|type|enum|namespace)\\s+(${IDENT})`, "g"),
    )) {
      addExport(m[2]!, m.index);
    }
    for (const m of code.matchAll(/\bexport\s+(?:const|let|var)\s+\{([^}]*)\}\s*=/g)) {
      for (const [, local] of specifiers(m[1]!.replace(/:\s*/g, " as "))) addExport(local, m.index);
    }
    for (const m of code.matchAll(/\bexport\s+default\b/g)) addExport("default", m.index);
    // export { a, b as c } (local) and export { a as b } from "x" (forward)
    for (const m of code.matchAll(/\bexport\s+(?:type\s+)?\{([^}]*)\}(\s*from\s*"(\d+)")?/g)) {
      const target = m[3] !== undefined ? spec(m[3]) : null;
      for (const [name, as] of specifiers(m[1]!)) {
        addExport(as, m.index);
        if (m[3] !== undefined && target) mod.forwards.push({ name, from: target, as });
      }
    }
    for (const m of code.matchAll(/\bexport\s+(?:type\s+)?\*\s*(?:as\s+(\S+)\s+)?from\s*"(\d+)"/g)) {
      const target = spec(m[2]!);
      if (m[1]) addExport(m[1], m.index);
      if (target) (m[1] ? use(target, "*", file) : mod.forwardAll.push(target));
    }

    // import [type] default, { a, b as c } | * as ns from "x";  import "x"
    for (const m of code.matchAll(/\bimport\s+(?:type\s+)?([^"'`;]*?)\s*from\s*"(\d+)"/g)) {
      const target = spec(m[2]!);
      if (!target) continue;
      const clause = m[1]!;
      const braces = /\{([^}]*)\}/.exec(clause);
      if (braces) for (const [name] of specifiers(braces[1]!)) use(target, name, file);
      const outside = clause.replace(/\{[^}]*\}/, "").replace(/,/g, " ").trim();
      if (/\*\s*as\s+/.test(outside)) use(target, "*", file);
      else if (outside !== "" && outside !== "type") use(target, "default", file);
    }
    for (const m of code.matchAll(/\bimport\s*"(\d+)"/g)) {
      const target = spec(m[1]!);
      if (target) use(target, "<side effect>", file);
    }
    // Dynamic import() and import types.
    for (const m of code.matchAll(/\bimport\s*\(\s*"(\d+)"\s*\)/g)) {
      const target = spec(m[1]!);
      if (!target) continue;
      const before = code.slice(Math.max(0, m.index - 300), m.index);
      const after = code.slice(m.index + m[0].length, m.index + m[0].length + 200);
      const destructured = /(?:const|let|var)\s*\{([^}]*)\}\s*=\s*(?:await\s*)?$/.exec(before);
      const member = /^\s*\)?\s*\.\s*([A-Za-z_$][\w$]*)/.exec(after);
      const awaited = /\(\s*await\s*$/.exec(before) && /^\s*\)\s*\.\s*([A-Za-z_$][\w$]*)/.exec(after);
      if (destructured) {
        for (const [name] of specifiers(destructured[1]!.replace(/:\s*[^,]+/g, ""))) use(target, name, file);
      } else if (awaited) use(target, awaited[1]!, file);
      else if (member && member[1] !== "then") use(target, member[1]!, file);
      else use(target, "*", file);
    }
  }

  // Re-exports pass a use on: a forwarded name is used when the forwarding export is.
  let changed = true;
  while (changed) {
    changed = false;
    for (const mod of modules.values()) {
      const names = used.get(mod.file);
      const usedHere = (name: string) => names !== undefined && (names.has(name) || names.has("*"));
      for (const f of mod.forwards) {
        if (usedHere(f.as) && !used.get(f.from)?.get(f.name)?.has(mod.file)) {
          for (const by of [...(names!.get(f.as) ?? names!.get("*")!)]) use(f.from, f.name, by);
          use(f.from, f.name, mod.file);
          changed = true;
        }
      }
      for (const target of mod.forwardAll) {
        for (const [name, by] of names ?? []) {
          if (name === "*" || modules.get(target)?.exports.has(name)) {
            if (!used.get(target)?.get(name)?.has(mod.file)) {
              for (const b of by) use(target, name, b);
              use(target, name, mod.file);
              changed = true;
            }
          }
        }
      }
    }
  }

  const unused: Unused[] = [];
  const testOnly: Unused[] = [];
  for (const mod of modules.values()) {
    if (!isChecked(mod.file)) continue;
    const names = used.get(mod.file);
    if (names?.has("*")) continue;
    for (const name of mod.exports.keys()) {
      const by = [...(names?.get(name) ?? [])].filter((f) => f !== mod.file);
      const rel = relative(root, mod.file).split(sep).join("/");
      // Named again beyond its declaration (and beyond an `export { … }` list naming it).
      const mentions = name === "default" ? 0 : [...mod.code.matchAll(new RegExp(`(?<![\\w$.])${name.replace(/\$/g, "\\$")}(?![\\w$])`, "g"))].length;
      const usedLocally = mentions > 1;
      if (KEEP[rel]?.includes(name)) continue;
      if (by.length === 0) unused.push({ file: rel, name, usedLocally });
      else if (opts.testOnly && by.every(isTest)) testOnly.push({ file: rel, name, usedLocally });
    }
  }
  const order = (a: Unused, b: Unused) => a.file.localeCompare(b.file) || a.name.localeCompare(b.name);
  return { unused: unused.sort(order), testOnly: testOnly.sort(order) };
}

/**
 * Drops the `export` keyword of each declaration that its own file still uses (a top-level
 * `export const|function|class|interface|type|enum …` at the start of a line); returns what it
 * could not change (to remove, or to take out of an `export { … }` list, by hand).
 */
export function unexport(root: string, found: Unused[]): Unused[] {
  const left: Unused[] = [];
  const byFile = Map.groupBy(found, (u) => u.file);
  for (const [file, names] of byFile) {
    const path = join(root, file);
    let source = readFileSync(path, "utf8");
    for (const u of names) {
      const declaration = new RegExp(
        `^export\\s+((?:declare\\s+)?(?:abstract\\s+)?(?:async\\s+)?(?:function\\s*\\*?|class|const\\s+enum|const|let|var|interface|type|enum)\\s+${u.name.replace(/\$/g, "\\$")}(?![\\w$]))`,
        "m",
      );
      if (u.usedLocally && declaration.test(source)) source = source.replace(declaration, "$1");
      else left.push(u);
    }
    writeFileSync(path, source);
  }
  return left;
}

if (import.meta.main) {
  const args = process.argv.slice(2);
  const rootArg = args.indexOf("--root");
  const root = resolve(rootArg === -1 ? join(import.meta.dir, "..") : args[rootArg + 1]!);
  let { unused, testOnly } = findUnusedExports(root, { testOnly: args.includes("--test-only") });
  // --fix: un-export what its own file uses; the rest is listed below for a decision.
  if (args.includes("--fix")) unused = unexport(root, unused);
  const line = (u: Unused) => `  ${u.file}: ${u.name}${u.usedLocally ? " (used in its own file: un-export it)" : ""}`;
  if (testOnly.length > 0) console.log(`Exports only tests import (${testOnly.length}):\n${testOnly.map(line).join("\n")}`);
  if (unused.length > 0) {
    console.error(`Exports nothing imports (${unused.length}): remove them, or un-export them (scripts/unused-exports.ts)\n${unused.map(line).join("\n")}`);
    process.exit(1);
  }
  console.log("unused exports: none");
}
