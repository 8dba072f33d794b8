import { Elysia } from "elysia";
import type { Services } from "../../services.ts";
import { httpCore } from "../core.ts";
import { requirePrincipal } from "../guards.ts";

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
