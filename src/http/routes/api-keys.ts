import { Elysia } from "elysia";
import type { Services } from "../../services.ts";
import { httpCore } from "../core.ts";
import { requirePrincipal, requireSession } from "../guards.ts";
import { apiKeyListOutput, apiKeySecretOutput, createApiKeyInput } from "../../identity/schemas.ts";
import type { RouteDocs } from "../openapi.ts";

/**
 * API key management. Making, rotating and deleting keys needs a signed-in session: a key that
 * could mint keys could outgrow its own scopes or workspace limit, and a leaked key could lock
 * its owner out by rotating their other keys. Any credential may list its owner's keys.
 */
export function apiKeyRoutes(services: Services) {
  const { apiKeys } = services;
  return new Elysia({ prefix: "/api/v1/api-keys" })
    .use(httpCore(services))
    .post("/", ({ principal, body, set }) => {
      const p = requireSession(principal);
      const { key, secret } = apiKeys.create(p.userId, p.orgId, body);
      set.status = 201;
      return { ...key, key: secret };
    })
    .get("/", ({ principal }) => {
      const p = requirePrincipal(principal);
      return { items: apiKeys.list(p.userId), next_cursor: null };
    })
    .delete("/:id", ({ principal, params, set }) => {
      const p = requireSession(principal);
      apiKeys.delete(p.userId, params.id);
      set.status = 204;
    })
    .post("/:id/rotate", ({ principal, params }) => {
      const p = requireSession(principal);
      const { key, secret } = apiKeys.rotate(p.userId, params.id);
      return { ...key, key: secret };
    });
}

/** The OpenAPI entries of these routes (src/http/routes/openapi.ts assembles the document from every file's). */
export const apiKeysDocs: RouteDocs = {
  "POST /api/v1/api-keys": { summary: "Create an API key (the secret is shown once)", tag: "api-keys", body: createApiKeyInput, status: 201, response: apiKeySecretOutput },
  "GET /api/v1/api-keys": { summary: "List API keys (prefix only)", tag: "api-keys", response: apiKeyListOutput },
  "DELETE /api/v1/api-keys/:id": { summary: "Delete an API key", tag: "api-keys", status: 204 },
  "POST /api/v1/api-keys/:id/rotate": { summary: "Rotate an API key", tag: "api-keys", response: apiKeySecretOutput },
};
