import { Elysia } from "elysia";
import type { Services } from "../../services.ts";
import { httpCore } from "../core.ts";
import { z } from "zod";
import { lazyInput } from "../../core/validate.ts";
import type { RouteDocs } from "../openapi.ts";

/**
 * Inbound git push webhook (public; 30/min per IP by the HTTP core). The signature is over the
 * raw body, so the framework must not parse it first (`parse: "none"`); the handler reads the
 * bytes itself. 202 when a sync was started, 200 when the event is acknowledged and ignored.
 */
export function gitWebhookRoutes(services: Services) {
  const { webhooks } = services;
  return new Elysia({ prefix: "/api/git/webhook" }).use(httpCore(services)).post(
    "/:workspace_id",
    async ({ request, params, set }) => {
      const body = new Uint8Array(await request.arrayBuffer());
      const outcome = webhooks.receive(params.workspace_id, request.headers, body);
      set.status = outcome.status === "accepted" ? 202 : 200;
      return outcome;
    },
    { parse: "none" },
  );
}

const pushPayload = lazyInput(() => z.looseObject({}).describe("The hosting provider's push event, as it sends it (GitHub, GitLab or Bitbucket)"));
/** The OpenAPI entries of these routes (src/http/routes/openapi.ts assembles the document from every file's). */
export const gitWebhookDocs: RouteDocs = {
  "POST /api/git/webhook/:workspace_id": { summary: "Inbound git push webhook (signature or token per provider)", tag: "git", auth: "webhook-signature", body: pushPayload, status: 202 },
};
