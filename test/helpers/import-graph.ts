/**
 * The import graph of src/: every relative specifier a module names — static imports, type-only
 * imports, re-exports, and `import("…")` or `require("…")` with a literal path (a lazy load is
 * still a dependency: the module cannot be understood without the one it loads). Package imports
 * are kept by name.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";

export interface ImportGraph {
  /** Repository-relative paths of every module under the root folder. */
  files: string[];
  /** Module → the modules it imports (repository-relative), in src/ only. */
  edges: Map<string, Set<string>>;
  /** Module → the packages it imports (`elysia`, `@modelcontextprotocol/server`, …). */
  packages: Map<string, Set<string>>;
}

const STATIC = /(?:^|[;\s])(?:import|export)\s+(?:type\s+)?(?:[\w*{}\s,$]*?\s+from\s+)?["']([^"']+)["']/g;
const DYNAMIC = /(?:import|require)\(\s*["']([^"']+)["']\s*\)/g;
const EXTENSIONS = ["", ".ts", ".tsx", "/index.ts", "/index.tsx"];

export function importGraph(repo: string, folder = "src"): ImportGraph {
  const files: string[] = [];
  (function walk(dir: string) {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (/\.tsx?$/.test(name) && !name.endsWith(".d.ts")) files.push(relative(repo, path));
    }
  })(join(repo, folder));
  const known = new Set(files);
  const edges = new Map<string, Set<string>>();
  const packages = new Map<string, Set<string>>();
  for (const file of files) {
    const text = stripComments(readFileSync(join(repo, file), "utf8"));
    const out = new Set<string>();
    const pkgs = new Set<string>();
    for (const m of [...text.matchAll(STATIC), ...text.matchAll(DYNAMIC)]) {
      const spec = m[1]!;
      if (!spec.startsWith(".")) {
        pkgs.add(packageName(spec));
        continue;
      }
      const base = relative(repo, resolve(repo, dirname(file), spec));
      const target = EXTENSIONS.map((e) => base + e).find((p) => known.has(p));
      if (target) out.add(target);
    }
    edges.set(file, out);
    packages.set(file, pkgs);
  }
  return { files, edges, packages };
}

/** Comments cite modules in prose ("see import(…)"); only code counts. Strings are left alone. */
function stripComments(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, "").replace(/(^|[^:"'`\\])\/\/.*$/gm, "$1");
}

function packageName(spec: string): string {
  const parts = spec.split("/");
  return spec.startsWith("@") ? parts.slice(0, 2).join("/") : parts[0]!;
}

/** Strongly connected components with more than one member (Tarjan), each sorted; sorted by first member. */
export function cycles(edges: Map<string, Iterable<string>>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of edges.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1) found.push(component.sort());
    }
  };
  for (const v of [...edges.keys()].sort()) if (!index.has(v)) visit(v);
  return found.sort((a, b) => a[0]!.localeCompare(b[0]!));
}

/** The folder a module belongs to: `src/<folder>/…`; a file directly in src/ is a unit of its own. */
export function unitOf(file: string): string {
  const parts = file.split("/");
  return parts.length > 2 ? parts[1]! : parts[1]!.replace(/\.tsx?$/, ".ts");
}

/** The graph between units (folders, and the files directly in src/), with the modules behind each edge. */
export function unitGraph(graph: ImportGraph): Map<string, Map<string, string[]>> {
  const units = new Map<string, Map<string, string[]>>();
  for (const [from, targets] of graph.edges) {
    const a = unitOf(from);
    if (!units.has(a)) units.set(a, new Map());
    for (const to of targets) {
      const b = unitOf(to);
      if (a === b) continue;
      const via = units.get(a)!.get(b) ?? [];
      via.push(`${from} → ${to}`);
      units.get(a)!.set(b, via);
    }
  }
  return units;
}
