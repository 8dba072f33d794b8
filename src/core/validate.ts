import { z } from "zod";
import { ValidationError } from "./errors.ts";

/**
 * Where `value` holds a string or an object key that is not well-formed UTF-16 (a lone surrogate,
 * which JSON's `\ud800` escapes can carry): its dotted path ("" for `value` itself), or null.
 * Such a string cannot be written as UTF-8: YAML parsers refuse it (a page would lose its id and
 * title) and encoders silently turn it into U+FFFD. Checked before any schema, for every input.
 */
function illFormedAt(value: unknown): string | null {
  const stack: Array<[unknown, string]> = [[value, ""]];
  const at = (path: string, key: string) => (path === "" ? key : `${path}.${key}`);
  while (stack.length > 0) {
    const [v, path] = stack.pop()!;
    if (typeof v === "string") {
      if (!v.isWellFormed()) return path;
    } else if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push([v[i], at(path, String(i))]);
    } else if (v !== null && typeof v === "object" && (Object.getPrototypeOf(v) === Object.prototype || Object.getPrototypeOf(v) === null)) {
      const entries = Object.entries(v);
      for (const [key] of entries) if (!key.isWellFormed()) return at(path, key.toWellFormed());
      for (let i = entries.length - 1; i >= 0; i--) stack.push([entries[i]![1], at(path, entries[i]![0])]);
    }
  }
  return null;
}

/**
 * A request schema, built when first used: the first request that validates with it, the MCP
 * tools' listing or the OpenAPI document. A start would otherwise build every domain's ~1,200
 * request schemas (and compile the code that builds them) before its first request; a route group
 * nobody calls never builds its own (docs/decisions/runtime-footprint.md). It accepts and refuses
 * exactly what the built schema does, with the same issues, and its JSON Schema is the built one's.
 */
export const lazyInput = <T extends z.ZodType>(build: () => T): z.ZodLazy<T> => z.lazy(build);

/**
 * Parses `value` with a zod schema; the first problem becomes a VALIDATION_ERROR whose
 * `details.field` names the offending field (dotted path). Every transport validates through this.
 *
 * An absent input (`undefined`: no body, no query) reads as `{}` so optional fields take their
 * defaults. A JSON `null`, an array or a scalar where an object is expected is refused naming
 * `body`: it is a malformed request, not a request for the defaults.
 */
export function parseInput<S extends z.ZodType>(schema: S, value: unknown): z.infer<S> {
  const illFormed = illFormedAt(value);
  if (illFormed !== null) {
    const field = illFormed === "" ? "body" : illFormed;
    throw new ValidationError(`${field}: must be well-formed Unicode text (it holds a lone surrogate)`, field);
  }
  const result = schema.safeParse(value === undefined ? {} : value);
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  if (issue.path.length === 0 && issue.code === "invalid_type" && issue.expected === "object") {
    throw new ValidationError("body: must be a JSON object", "body", { issues: result.error.issues.length });
  }
  const field = issue.path.map(String).join(".") || undefined;
  const message = field ? `${field}: ${issue.message}` : issue.message;
  throw new ValidationError(message, field, { issues: result.error.issues.length });
}

/**
 * An object schema that refuses keys it does not know, naming the first one as the offending
 * field: a mistyped or smuggled field (`is_platform_owner`, `role`) is a 400, never silently
 * dropped or, worse, assigned.
 */
export function closedObject<S extends z.ZodRawShape>(shape: S) {
  const known = new Set(Object.keys(shape));
  return z.looseObject(shape).transform((value, ctx) => {
    const unknown = Object.keys(value).filter((k) => !known.has(k));
    for (const key of unknown) ctx.addIssue({ code: "custom", path: [key], message: "is not a known field" });
    if (unknown.length > 0) return z.NEVER;
    return value as z.infer<z.ZodObject<S>>;
  });
}

/** Control characters (C0, DEL, C1) and bidi overrides: no place in names, one-line fields or paths. */
export const CONTROL = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

export const displayName = (max = 100) =>
  z
    .string()
    .trim()
    .min(1, "must not be empty")
    .max(max, `must be at most ${max} characters`)
    .refine((s) => !CONTROL.test(s), "must not contain control characters");

export const emailAddress = lazyInput(() => z
  .string()
  .trim()
  .max(254, "must be at most 254 characters")
  .refine((s) => !CONTROL.test(s) && /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(s), "must be a valid email address"));

/** One URL-safe path segment: lowercase letters, digits and single hyphens. */
export const slug = lazyInput(() => z
  .string()
  .trim()
  .min(1, "must not be empty")
  .max(64, "must be at most 64 characters")
  .regex(/^[a-z0-9]+(?:-[a-z0-9]+)*$/, "must be lowercase letters, digits and hyphens"));

export const ulidString = lazyInput(() => z.string().regex(/^[0-9A-HJKMNP-TV-Z]{26}$/, "must be a ULID"));
