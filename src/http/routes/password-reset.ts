import { Elysia } from "elysia";
import type { Services } from "../../services.ts";
import { httpCore } from "../core.ts";
import { forgotPasswordInput, messageOutput, resetPasswordInput } from "../../identity/schemas.ts";
import type { RouteDocs } from "../openapi.ts";

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

/** The OpenAPI entries of these routes (src/http/routes/openapi.ts assembles the document from every file's). */
export const passwordResetDocs: RouteDocs = {
  "POST /api/auth/forgot-password": { summary: "Send a reset link (same answer for every address)", tag: "auth", auth: "public", body: forgotPasswordInput, response: messageOutput },
  "POST /api/auth/reset-password": { summary: "Set a new password with a reset token", tag: "auth", auth: "public", body: resetPasswordInput },
};
