import { z } from "zod";
import { closedObject, displayName, emailAddress } from "../core/validate.ts";

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
