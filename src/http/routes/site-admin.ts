import { Elysia } from "elysia";
import type { Services } from "../../services.ts";
import { httpCore } from "../core.ts";
import { requirePrincipal } from "../guards.ts";
import { createVersionInput, customDomainOutput, livePagesOutput, setCustomDomainInput, siteStatusOutput, versionListOutput, versionOutput } from "../../publish/schemas.ts";
import type { RouteDocs } from "../openapi.ts";

/**
 * Managing a workspace's site: its status (the Site screen), which pages are live, named
 * versions (the `/versions` routes of docs/interfaces.md §3) and the custom domain. Publishing, visibility and the
 * theme are workspace settings (`PUT …/admin/settings`); SiteService holds all of it.
 */
export function siteAdminRoutes(services: Services) {
  const { site } = services;
  return new Elysia({ prefix: "/api/v1/workspaces" })
    .use(httpCore(services))
    .get("/:id/site", ({ principal, params }) => site.status(requirePrincipal(principal), params.id))
    .get("/:id/site/pages", ({ principal, params }) => site.livePages(requirePrincipal(principal), params.id))
    .get("/:id/versions", ({ principal, params }) => site.listVersions(requirePrincipal(principal), params.id))
    .post("/:id/versions", async ({ principal, params, body, set }) => {
      const version = await site.createVersion(requirePrincipal(principal), params.id, body);
      set.status = 201;
      return version;
    })
    .get("/:id/versions/:slug", ({ principal, params }) => site.getVersion(requirePrincipal(principal), params.id, params.slug))
    .put("/:id/versions/:slug/default", ({ principal, params }) => site.setDefaultVersion(requirePrincipal(principal), params.id, params.slug))
    .delete("/:id/versions/:slug", ({ principal, params, set }) => {
      site.deleteVersion(requirePrincipal(principal), params.id, params.slug);
      set.status = 204;
      return null;
    })
    .get("/:id/custom-domain", ({ principal, params }) => site.getCustomDomain(requirePrincipal(principal), params.id))
    .put("/:id/custom-domain", ({ principal, params, body }) => site.setCustomDomain(requirePrincipal(principal), params.id, body))
    .post("/:id/custom-domain/verify", ({ principal, params }) => site.verifyCustomDomain(requirePrincipal(principal), params.id))
    .delete("/:id/custom-domain", ({ principal, params, set }) => {
      site.removeCustomDomain(requirePrincipal(principal), params.id);
      set.status = 204;
      return null;
    });
}

/** The OpenAPI entries of these routes (src/http/routes/openapi.ts assembles the document from every file's). */
export const siteAdminDocs: RouteDocs = {
  "GET /api/v1/workspaces/:id/site": { summary: "The site's status (published, visibility, theme, address)", tag: "sites", response: siteStatusOutput },
  "GET /api/v1/workspaces/:id/site/pages": { summary: "Which pages are live on the site", tag: "sites", response: livePagesOutput },
  "GET /api/v1/workspaces/:id/versions": { summary: "Named documentation versions", tag: "sites", response: versionListOutput },
  "POST /api/v1/workspaces/:id/versions": { summary: "Create a version (admin)", tag: "sites", body: createVersionInput, status: 201, response: versionOutput },
  "GET /api/v1/workspaces/:id/versions/:slug": { summary: "A version", tag: "sites", response: versionOutput },
  "PUT /api/v1/workspaces/:id/versions/:slug/default": { summary: "Make a version the default (admin)", tag: "sites", response: versionOutput },
  "DELETE /api/v1/workspaces/:id/versions/:slug": { summary: "Delete a version (admin)", tag: "sites", status: 204 },
  "GET /api/v1/workspaces/:id/custom-domain": { summary: "The custom domain and its verification status (admin)", tag: "sites", response: customDomainOutput },
  "PUT /api/v1/workspaces/:id/custom-domain": { summary: "Set the custom domain (admin)", tag: "sites", body: setCustomDomainInput, response: customDomainOutput },
  "POST /api/v1/workspaces/:id/custom-domain/verify": { summary: "Check the domain's TXT record now (admin)", tag: "sites", response: customDomainOutput },
  "DELETE /api/v1/workspaces/:id/custom-domain": { summary: "Remove the custom domain (admin)", tag: "sites", status: 204 },
};
