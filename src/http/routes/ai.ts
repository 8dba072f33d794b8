import { Elysia } from "elysia";
import type { Services } from "../../services.ts";
import { httpCore } from "../core.ts";
import { requirePrincipal } from "../guards.ts";

/**
 * `POST /api/ai/assist {text, mode, language?}` → `{text, model}` from the configured model, or
 * `{instructions, text}` when none is configured (the web app shows its Assist menu only when
 * `GET /api/auth/config` says `ai_assist: true`). Any signed-in caller; it reads and changes nothing.
 */
export function aiRoutes(services: Services) {
  return new Elysia({ prefix: "/api/ai" })
    .use(httpCore(services))
    .post("/assist", ({ principal, body }) => {
      requirePrincipal(principal);
      return services.assist.assist(body);
    });
}
