/**
 * The shape of src/ that keeps it easy to live in (docs/decisions/import-graph.md): no import
 * cycles between modules (type-only and lazy imports included), `core` and `db` at the bottom,
 * domain services free of transports, and no cycle between folders (a folder, or a file directly
 * in src/, is one node): the folders form layers, each importing only those below it.
 */
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { cycles, importGraph, unitGraph, unitOf } from "./helpers/import-graph.ts";

const REPO = join(import.meta.dir, "..");
const graph = importGraph(REPO);

/** Folders that present services to the outside world; everything else in src/ is a domain (or core/db). */
const TRANSPORTS = new Set(["http", "mcp", "commands", "web"]);
/** The composition: files directly in src/ that build and start everything. */
const ROOT = new Set(["app.ts", "server.ts", "cli.ts", "services.ts"]);
const TRANSPORT_PACKAGES = new Set(["elysia", "@modelcontextprotocol/server", "@modelcontextprotocol/sdk", "citty"]);


test("the graph sees the imports it must judge (static, type-only, lazy)", () => {
  expect(graph.files.length).toBeGreaterThan(300);
  const edgeCount = [...graph.edges.values()].reduce((n, s) => n + s.size, 0);
  expect(edgeCount).toBeGreaterThan(1000);
  // A type-only import and a lazy import() both count.
  expect(graph.edges.get("src/http/core.ts")?.has("src/services.ts")).toBe(true);
  expect([...(graph.edges.get("src/web/screens/Shell.tsx") ?? [])]).toContain("src/web/screens/PageScreen.tsx");
});

test("the cycle finder reports a cycle it is shown, and nothing for a chain", () => {
  const loop = new Map([["a", ["b"]], ["b", ["c"]], ["c", ["a"]], ["d", ["a"]]]);
  expect(cycles(loop)).toEqual([["a", "b", "c"]]);
  expect(cycles(new Map([["a", ["b"]], ["b", ["c"]], ["c", []]]))).toEqual([]);
});

test("no module imports itself back through others (type-only and lazy imports included)", () => {
  expect(cycles(graph.edges)).toEqual([]);
});

describe("layers", () => {
  test("core imports nothing else from src; db only core", () => {
    const bad: string[] = [];
    for (const [from, targets] of graph.edges) {
      const unit = unitOf(from);
      for (const to of targets) {
        const target = unitOf(to);
        if (unit === "core" && target !== "core") bad.push(`${from} → ${to}`);
        if (unit === "db" && target !== "db" && target !== "core") bad.push(`${from} → ${to}`);
      }
    }
    expect(bad).toEqual([]);
  });

  test("domain services know nothing of transports or the composition root", () => {
    const bad: string[] = [];
    for (const [from, targets] of graph.edges) {
      const unit = unitOf(from);
      if (TRANSPORTS.has(unit) || ROOT.has(unit)) continue;
      for (const to of targets) if (TRANSPORTS.has(unitOf(to)) || ROOT.has(unitOf(to))) bad.push(`${from} → ${to}`);
      for (const pkg of graph.packages.get(from) ?? []) if (TRANSPORT_PACKAGES.has(pkg)) bad.push(`${from} → ${pkg}`);
    }
    expect(bad).toEqual([]);
  });
});

test("no import cycle between folders: each folder imports only folders below it", () => {
  const units = unitGraph(graph);
  const unitEdges = new Map([...units].map(([a, targets]) => [a, [...targets.keys()]]));
  // Each cycle with the modules behind its edges, so a failure says which import closed it.
  const found = cycles(unitEdges).map((component) =>
    component.flatMap((a) => [...(units.get(a) ?? [])].filter(([b]) => component.includes(b)).map(([b, modules]) => `${a} → ${b} (e.g. ${modules[0]})`)),
  );
  expect(found).toEqual([]);
});
