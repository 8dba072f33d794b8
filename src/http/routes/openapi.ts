import { Elysia } from "elysia";
import type { Services } from "../../services.ts";
import { httpCore } from "../core.ts";
import { openApiDocument } from "../openapi.ts";

/** GET /api/openapi.json: the OpenAPI 3.1 document of every /api route (public, built once). */
export function openApiRoutes(services: Services) {
  let doc: string | null = null;
  return new Elysia().use(httpCore(services)).get("/api/openapi.json", () => {
    doc ??= JSON.stringify(openApiDocument({ version: services.version, baseUrl: services.config.baseUrl }));
    return new Response(doc, { headers: { "content-type": "application/json; charset=utf-8", "cache-control": "public, max-age=300" } });
  });
}
