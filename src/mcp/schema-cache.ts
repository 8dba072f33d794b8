import type { StandardSchemaWithJSON } from "@modelcontextprotocol/server";

/**
 * The JSON Schema of every tool's input and output, converted at build time (build.ts, from
 * `precomputedToolSchemas`) and carried by the executable as one JSON string: converting the 52 zod
 * schemas on the first `tools/list` cost 50–200 ms of `quire mcp`'s start. Run from source, it is
 * absent and the schemas are converted on first use as before.
 */
declare const QUIRE_MCP_JSON_SCHEMAS: string | undefined;
let precomputed: Record<string, string> | undefined;
function precomputedJson(key: string): string | undefined {
  precomputed ??= typeof QUIRE_MCP_JSON_SCHEMAS === "string" ? (JSON.parse(QUIRE_MCP_JSON_SCHEMAS) as Record<string, string>) : {};
  return precomputed[key];
}

/**
 * A schema's JSON form without what only restates a default, since every client reads tools/list
 * into its model's context: `$schema` when it names draft 2020-12 (the dialect MCP assumes when none
 * is named), and `additionalProperties: true` (JSON Schema's own default). Nothing a validator
 * reads differently.
 */
export function compactJsonSchema(json: Record<string, unknown>, target: string): Record<string, unknown> {
  const strip = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(strip);
    if (node === null || typeof node !== "object") return node;
    const out: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(node)) {
      if (key === "additionalProperties" && value === true) continue;
      out[key] = strip(value);
    }
    return out;
  };
  const compact = strip(json) as Record<string, unknown>;
  if (target === "draft-2020-12" && compact.$schema === "https://json-schema.org/draft/2020-12/schema") delete compact.$schema;
  return compact;
}

/** The key of a schema's JSON form in the build-time table. */
export function jsonKey(name: string, io: "input" | "output", target: string): string {
  return `${name}|${io}|${target}`;
}

/** Freezes a parsed JSON value throughout, so that no holder can change what every other holder reads. */
function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === "object" && !Object.isFrozen(value)) {
    for (const child of Object.values(value)) deepFreeze(child);
    Object.freeze(value);
  }
  return value;
}

/**
 * A schema whose JSON Schema form is computed once. The SDK converts a tool's input and output
 * schemas per server instance, and HTTP builds an instance per request: converting the page
 * object's schema alone took milliseconds on every call, and parsing a cached copy still cost two
 * JSON parses of every call (the input's, for the SDK's `Mcp-Param-*` header check, and the
 * output's, for the answer). Every caller now gets the one parsed form, frozen: the SDK reads it
 * and builds its own objects around it (a write to it would throw, not leak into the next
 * request). Validation is the schema's own. With a `name`, the build-time conversion is used when
 * the executable carries one.
 */
export function withCachedJson<S extends StandardSchemaWithJSON>(schema: S, name?: string): S {
  const std = schema["~standard"];
  const cache = new Map<string, Record<string, unknown>>();
  const convert = (io: "input" | "output") => (options: { target: string }) => {
    const key = `${io}|${options.target}`;
    let json = cache.get(key);
    if (json === undefined) {
      const text =
        (name !== undefined ? precomputedJson(jsonKey(name, io, options.target)) : undefined) ??
        JSON.stringify(compactJsonSchema(std.jsonSchema[io](options as never) as Record<string, unknown>, options.target));
      json = deepFreeze(JSON.parse(text) as Record<string, unknown>);
      cache.set(key, json);
    }
    return json;
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
