import { z } from "zod";

/**
 * An object schema that refuses keys it does not know, naming the first one as the offending
 * field, so a mistyped or smuggled field is a 400 rather than silently dropped.
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
