import { Elysia } from "elysia";
import type { Services } from "../../services.ts";
import { httpCore } from "../core.ts";

/** The same answer for every address, so the endpoint cannot be used to find out who has an account. */
const FORGOT_RESPONSE = {
  message: "If an account exists for this email address, a password reset link has been sent to it.",
};

export function passwordResetRoutes(services: Services) {
  const { passwordResets } = services;
  return new Elysia({ prefix: "/api/auth" })
    .use(httpCore(services))
    .post("/forgot-password", ({ body }) => {
      passwordResets.requestByEmail(body);
      return FORGOT_RESPONSE;
    })
    .post("/reset-password", async ({ body }) => {
      await passwordResets.reset(body);
      return { message: "Your password has been changed. Sign in with the new password." };
    });
}
