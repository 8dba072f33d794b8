import { z } from "zod";
import { resolve } from "node:path";
import { createVersionInput, exportInput, publishWorkspaceInput, qualityQuery, updateThemeInput } from "../../publish/schemas.ts";
import { agentPagePath } from "../../content/paths.ts";
import { deadLinksOutput, exportOutput, publishOutput, qualityOutput, themeOutput, versionRecord, versionsOutput } from "../outputs.ts";
import { defineTool, READ_ONLY } from "../tool.ts";
import { stdioExportArgs } from "../tool-inputs.ts";

const writeHints = { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false } as const;

/** `path` as agents write it (a leading `/`, no `.md`), the rest as the quality service reads it. */
const qualityArgs = (args: { path?: string | undefined }) => (args.path === undefined ? {} : { path: agentPagePath(args.path) });

/** The published site, quality checks and export (src/publish/). */
export const siteTools = (transport: "stdio" | "http") => [
  defineTool({
    name: "quire_validate_links",
    title: "Find dead links",
    description: "Dead links (wikilinks, relative links, heading anchors) in the workspace or one page, with the line of each.",
    input: qualityQuery,
    output: deadLinksOutput,
    workspace: true,
    scope: "read",
    annotations: READ_ONLY,
    run: (call, args) => call.services.quality.deadLinks(call.principal, call.workspaceSlug(), qualityArgs(args)),
  }),
  defineTool({
    name: "quire_quality_scan",
    title: "Quality scan",
    description: "Documentation quality: a 0-100 score for the workspace and each page, with findings (dead links, missing titles or descriptions, empty or orphan pages, images without alt, heading skips, long paragraphs, readability).",
    input: qualityQuery,
    output: qualityOutput,
    workspace: true,
    scope: "read",
    annotations: READ_ONLY,
    run: (call, args) => call.services.quality.scan(call.principal, call.workspaceSlug(), qualityArgs(args)),
  }),
  defineTool({
    name: "quire_get_theme",
    title: "Site theme",
    description: "The published site's theme (default, dark, forest, rose, amber, minimal or corporate).",
    input: z.strictObject({}),
    output: themeOutput,
    workspace: true,
    scope: "read",
    annotations: READ_ONLY,
    run: (call) => call.services.site.getTheme(call.principal, call.workspaceSlug()),
  }),
  defineTool({
    name: "quire_update_theme",
    title: "Change the site theme",
    description: "Set the published site's theme (workspace admins).",
    input: updateThemeInput,
    output: themeOutput,
    workspace: true,
    scope: "write",
    annotations: writeHints,
    run: (call, args) => call.services.site.updateTheme(call.principal, call.workspaceSlug(), args),
  }),
  defineTool({
    name: "quire_publish_workspace",
    title: "Publish the site",
    description: "Publish (published: true, the default) or unpublish the workspace's documentation site, optionally setting its visibility (authenticated or public); returns its URL. Workspace admins.",
    input: publishWorkspaceInput,
    output: publishOutput,
    workspace: true,
    scope: "write",
    annotations: writeHints,
    run: (call, args) => call.services.site.publish(call.principal, call.workspaceSlug(), { published: true, ...args }),
  }),
  defineTool({
    name: "quire_list_versions",
    title: "Site versions",
    description: "The published site's named versions (slug, name, base_path, is_default).",
    input: z.strictObject({}),
    output: versionsOutput,
    workspace: true,
    scope: "read",
    annotations: READ_ONLY,
    run: (call) => call.services.site.listVersions(call.principal, call.workspaceSlug()),
  }),
  defineTool({
    name: "quire_create_version",
    title: "Create a site version",
    description: "Create a named version of the site whose pages live under base_path (default versions/{slug}); snapshot: true copies the current published pages there (one commit). Workspace admins.",
    input: createVersionInput,
    output: versionRecord,
    workspace: true,
    scope: "write",
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    run: (call, args) => call.services.site.createVersion(call.principal, call.workspaceSlug(), args),
  }),
  defineTool({
    name: "quire_export",
    title: "Export the site",
    description:
      transport === "stdio"
        ? "Export the published pages as a static-site ZIP (workspace admins; once a day): a download URL valid 15 minutes, or written to output (a file path) when given."
        : "Export the published pages as a static-site ZIP (workspace admins; once a day); returns a download URL valid 15 minutes.",
    input: transport === "stdio" ? stdioExportArgs : exportInput,
    output: exportOutput,
    workspace: true,
    // Over HTTP it returns a URL and changes nothing: read-only, `read`. Over stdio it may write a
    // file on this machine: not read-only, so it needs `write` (docs/decisions/mcp.md, "Scopes follow the annotation").
    scope: transport === "stdio" ? "write" : "read",
    annotations: { readOnlyHint: transport !== "stdio", destructiveHint: false, idempotentHint: false, openWorldHint: false },
    run: async (call, args) => {
      const { output, ...input } = args as typeof args & { output?: string };
      if (output !== undefined) {
        const done = await call.services.exporter.exportToFile(call.principal, call.workspaceSlug(), resolve(output), input);
        return { pages: done.pages, bytes: done.bytes, output: done.file };
      }
      return call.services.exporter.prepareDownload(call.principal, call.workspaceSlug(), input);
    },
  }),
];
