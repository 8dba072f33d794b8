import type { StandardSchemaWithJSON } from "@modelcontextprotocol/server";

/**
 * A schema whose JSON Schema form is computed once. The SDK converts a tool's input and output
 * schemas per server instance, and HTTP builds an instance per request: converting the page
 * object's schema alone took milliseconds on every call. Validation is the schema's own; each
 * caller gets its own copy of the JSON (the SDK may annotate what it is given).
 */
export function withCachedJson<S extends StandardSchemaWithJSON>(schema: S): S {
  const std = schema["~standard"];
  const cache = new Map<string, string>();
  const convert = (io: "input" | "output") => (options: { target: string }) => {
    const key = `${io}|${options.target}`;
    let json = cache.get(key);
    if (json === undefined) cache.set(key, (json = JSON.stringify(std.jsonSchema[io](options as never))));
    return JSON.parse(json) as Record<string, unknown>;
  };
  return {
    "~standard": {
      version: std.version,
      vendor: std.vendor,
      validate: (value: unknown) => std.validate(value),
      ...(std.types ? { types: std.types } : {}),
      jsonSchema: { input: convert("input"), output: convert("output") },
    },
  } as unknown as S;
}
