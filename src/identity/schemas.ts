import { z } from "zod";
import { displayName, emailAddress } from "../core/validate.ts";

/** Input schemas of the identity endpoints, shared by every transport. */
export const registerInput = z.object({
  name: displayName(100),
  email: emailAddress,
  password: z.string(),
  terms_accepted: z.literal(true, { error: "must be true" }),
});

export const loginInput = z.object({
  email: z.string().max(1024),
  password: z.string().max(4096),
});

export const refreshInput = z.object({ refresh_token: z.string().min(1).max(512).optional() });

export const forgotPasswordInput = z.object({ email: z.string().max(1024) });

export const resetPasswordInput = z.object({
  token: z.string().min(1).max(512),
  new_password: z.string(),
});
