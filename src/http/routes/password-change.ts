import { Elysia } from "elysia";
import type { Services } from "../../services.ts";
import { httpCore } from "../core.ts";
import { requireSession } from "../guards.ts";

/** POST /api/auth/change-password {current_password, new_password} → 200 {revoked_sessions}; sessions only. */
export function passwordChangeRoutes(services: Services) {
  return new Elysia({ prefix: "/api/auth" })
    .use(httpCore(services))
    .post("/change-password", ({ principal, body }) => services.passwordChange.change(requireSession(principal).userId, body));
}
