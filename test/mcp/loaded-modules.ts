/**
 * Preloaded (`bun --preload`) into a CLI process by test/mcp/start-imports.test.ts: records every
 * module the process resolves from a relative or absolute specifier — every file of src/ and the
 * files inside packages (a package's own entry, reached by its bare name, is seen through the src/
 * file that imports it), and every CommonJS module in `require.cache` (a package that is one
 * CommonJS file, such as isomorphic-git, has no other trace). The list, one absolute path a line,
 * is written to $QUIRE_LOADED_MODULES on SIGUSR2 and again at exit; with $QUIRE_BUILT_SCHEMAS set,
 * the exported request and answer schemas built so far are written there just before
 * (test/cli/serve-start-imports.test.ts).
 */
import { writeFileSync } from "node:fs";
import { dirname, resolve } from "node:path";

const out = process.env.QUIRE_LOADED_MODULES;
if (out) {
  const seen = new Set<string>();
  Bun.plugin({
    name: "loaded-modules",
    setup(build) {
      build.onResolve({ filter: /.*/ }, (args) => {
        const spec = args.path;
        if (spec.startsWith("/")) seen.add(spec);
        else if (spec.startsWith(".") && args.importer.startsWith("/")) seen.add(resolve(dirname(args.importer), spec));
        return undefined; // resolution goes on as usual
      });
    },
  });
  const write = () => writeFileSync(out, [...new Set([...seen, ...Object.keys(require.cache)])].join("\n") + "\n");
  const built = process.env.QUIRE_BUILT_SCHEMAS;
  process.on("SIGUSR2", async () => {
    // Written first: the caller waits for the module list.
    if (built) writeFileSync(built, (await builtSchemas(seen)).join("\n") + "\n");
    write();
  });
  process.on("exit", write);
}

/**
 * The exported zod schemas already built, as "file: name", among the schemas modules the process
 * has loaded (every `…schemas.ts` and src/core/validate.ts): those built at import, and the lazy
 * ones (`lazyInput` in src/core/validate.ts, `lazyOutput` in src/core/schemas.ts) asked for since.
 * Importing a loaded module hands back its namespace without running it again; a lazy schema keeps
 * what it built on its definition (`_cachedInner`).
 */
async function builtSchemas(seen: Set<string>): Promise<string[]> {
  const out: string[] = [];
  for (const file of [...seen].filter((f) => /\/src\/(.*schemas|core\/validate)\.ts$/.test(f)).sort()) {
    const ns = (await import(file)) as Record<string, { _zod?: { def?: { type?: string; _cachedInner?: unknown } } }>;
    for (const [name, value] of Object.entries(ns)) {
      const def = value?._zod?.def;
      if (def && (def.type !== "lazy" || def._cachedInner !== undefined)) out.push(`${file}: ${name}`);
    }
  }
  return out;
}
