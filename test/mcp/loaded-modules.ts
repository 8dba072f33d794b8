/**
 * Preloaded (`bun --preload`) into a CLI process by test/mcp/start-imports.test.ts: records every
 * module the process resolves from a relative or absolute specifier — every file of src/ and the
 * files inside packages (a package's own entry, reached by its bare name, is seen through the src/
 * file that imports it), and every CommonJS module in `require.cache` (a package that is one
 * CommonJS file, such as isomorphic-git, has no other trace). The list, one absolute path a line,
 * is written to $QUIRE_LOADED_MODULES on SIGUSR2 and again at exit.
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
  process.on("SIGUSR2", write);
  process.on("exit", write);
}
