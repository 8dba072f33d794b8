import { Elysia } from "elysia";
import type { Services } from "../../services.ts";
import { httpCore } from "../core.ts";
import { requireSession } from "../guards.ts";
import { changePasswordInput, passwordChangedOutput } from "../../identity/schemas.ts";
import type { RouteDocs } from "../openapi.ts";

/** POST /api/auth/change-password {current_password, new_password} → 200 {revoked_sessions}; sessions only. */
export function passwordChangeRoutes(services: Services) {
  return new Elysia({ prefix: "/api/auth" })
    .use(httpCore(services))
    .post("/change-password", ({ principal, body }) => services.passwordChange.change(requireSession(principal).userId, body));
}

/** The OpenAPI entries of these routes (src/http/routes/openapi.ts assembles the document from every file's). */
export const passwordChangeDocs: RouteDocs = {
  "POST /api/auth/change-password": { summary: "Change the password (signed-in session)", tag: "auth", body: changePasswordInput, response: passwordChangedOutput },
};
