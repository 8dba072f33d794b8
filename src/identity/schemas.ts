import { z } from "zod";
import { displayName, emailAddress } from "../core/validate.ts";

/**
 * An object schema that refuses keys it does not know, naming the first one as the offending
 * field: a mistyped or smuggled field (`is_platform_owner`, `email_verified`) is a 400, never
 * silently dropped or, worse, assigned.
 */
function closedObject<S extends z.ZodRawShape>(shape: S) {
  const known = new Set(Object.keys(shape));
  return z.looseObject(shape).transform((value, ctx) => {
    const unknown = Object.keys(value).filter((k) => !known.has(k));
    for (const key of unknown) ctx.addIssue({ code: "custom", path: [key], message: "is not a known field" });
    if (unknown.length > 0) return z.NEVER;
    return value as z.infer<z.ZodObject<S>>;
  });
}

/** Input schemas of the identity endpoints, shared by every transport. */
export const registerInput = closedObject({
  name: displayName(100),
  email: emailAddress,
  password: z.string(),
  terms_accepted: z.literal(true, { error: "must be true" }),
});

export const loginInput = closedObject({
  email: z.string().max(1024),
  password: z.string().max(4096),
});

export const refreshInput = closedObject({ refresh_token: z.string().min(1).max(512).optional() });

export const forgotPasswordInput = closedObject({ email: z.string().max(1024) });

export const resetPasswordInput = closedObject({
  token: z.string().min(1).max(512),
  new_password: z.string(),
});
