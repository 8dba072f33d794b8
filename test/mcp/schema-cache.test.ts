import { expect, test } from "bun:test";
import type { StandardSchemaWithJSON } from "@modelcontextprotocol/server";
import { allTools, precomputedToolSchemas, toolInput, toolOutput } from "../../src/mcp/server.ts";
import { jsonKey } from "../../src/mcp/schema-cache.ts";

const json = (schema: StandardSchemaWithJSON, io: "input" | "output") => JSON.stringify(schema["~standard"].jsonSchema[io]({ target: "draft-2020-12" }));

test("the JSON Schemas the executable carries are exactly what the tools convert to at run time, in every variant", () => {
  const table = precomputedToolSchemas();
  let checked = 0;
  for (const transport of ["stdio", "http"] as const) {
    for (const assist of [false, true]) {
      for (const tool of allTools(transport, assist)) {
        for (const io of ["input", "output"] as const) {
          const carried = table[jsonKey(tool.name, io, "draft-2020-12")];
          if (carried === undefined) continue; // differs between variants: converted at run time
          expect(carried).toBe(json(io === "input" ? toolInput(tool) : toolOutput(tool), io));
          checked++;
        }
      }
    }
  }
  // 32 tools × input and output × 4 variants, less the one schema that depends on the transport (quire_export's input).
  expect(Object.keys(table).length).toBe(63);
  expect(checked).toBe(32 * 2 * 4 - 4);
});
