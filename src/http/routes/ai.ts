import { Elysia } from "elysia";
import type { Services } from "../../services.ts";
import { httpCore } from "../core.ts";
import { requirePrincipal } from "../guards.ts";
import { assistInput, assistOutput } from "../../ai/schemas.ts";
import type { RouteDocs } from "../openapi.ts";

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

/** The OpenAPI entries of these routes (src/http/routes/openapi.ts assembles the document from every file's). */
export const aiDocs: RouteDocs = {
  "POST /api/ai/assist": { summary: "Writing assist: the configured model's rewrite, or instructions for the calling agent", tag: "ai", body: assistInput, response: assistOutput },
};
