import { Elysia } from "elysia";
import type { Services } from "../../services.ts";
import { httpCore } from "../core.ts";
import { requirePrincipal } from "../guards.ts";
import { accessRulesOutput, effectiveAccessOutput, effectiveAccessQuery, memberAccessOutput, peopleAccessOutput, setAccessInput } from "../../access/restrictions/schemas.ts";
import type { RouteDocs } from "../openapi.ts";

/** Restricted folders and pages: the rules (admins, and editors when the workspace allows), and anyone's view of one path (docs/decisions/restricted-folders.md). */
export function accessRoutes(services: Services) {
  const { restrictions } = services;
  return new Elysia()
    .use(httpCore(services))
    .get("/api/v1/workspaces/:id/access", ({ principal, params }) => restrictions.list(requirePrincipal(principal), params.id))
    .put("/api/v1/workspaces/:id/access", ({ principal, params, body }) => restrictions.set(requirePrincipal(principal), params.id, body))
    .get("/api/v1/workspaces/:id/access/effective", ({ principal, params, query }) =>
      restrictions.effective(requirePrincipal(principal), params.id, query),
    )
    .get("/api/v1/workspaces/:id/access/members", ({ principal, params, query }) => restrictions.members(requirePrincipal(principal), params.id, query))
    .get("/api/v1/workspaces/:id/access/people", ({ principal, params }) => restrictions.people(requirePrincipal(principal), params.id));
}

/** The OpenAPI entries of these routes (src/http/routes/openapi.ts assembles the document from every file's). */
export const accessDocs: RouteDocs = {
  "GET /api/v1/workspaces/:id/access": { summary: "Restricted folders and pages (admins; editors, where they edit, when editors_manage_access is on)", tag: "members", response: accessRulesOutput },
  "PUT /api/v1/workspaces/:id/access": { summary: "Restrict a folder or page, or lift it with entries: [] (admins; editors, where they edit, when editors_manage_access is on)", tag: "members", body: setAccessInput, response: effectiveAccessOutput },
  "GET /api/v1/workspaces/:id/access/members": { summary: "Each member's level on a folder or page (admins; editors, where they edit, when editors_manage_access is on)", tag: "members", query: effectiveAccessQuery, response: memberAccessOutput },
  "GET /api/v1/workspaces/:id/access/people": { summary: "Each member's level on every restricted folder and page (admins)", tag: "members", response: peopleAccessOutput },
  "GET /api/v1/workspaces/:id/access/effective": { summary: "Who may reach a folder or page, and your own level", tag: "members", query: effectiveAccessQuery, response: effectiveAccessOutput },
};
