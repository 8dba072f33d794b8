import { z } from "zod";
import { createVersionToolInput, publishInput, themeInput } from "../../workspaces/workspace-schemas.ts";
import { deadLinksOutput, exportOutput, publishOutput, qualityOutput, themeOutput, versionRecord, versionsOutput } from "../outputs.ts";
import { defineTool, READ_ONLY } from "../tool.ts";
import { Unavailable } from "../errors.ts";

const optionalPath = z.strictObject({ path: z.string().min(1, "must not be empty").max(520, "must be at most 512 characters").optional() });
const writeHints = { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false } as const;

/** The published site, quality checks and export. */
export const siteTools = (transport: "stdio" | "http") => [
  defineTool({
    name: "quire_validate_links",
    title: "Find dead links",
    description: "Dead links (wikilinks, relative links, heading anchors) in the workspace or one page, with the line of each.",
    input: optionalPath,
    output: deadLinksOutput,
    workspace: true,
    scope: "read",
    annotations: READ_ONLY,
    run: () => {
      throw new Unavailable("quire_validate_links");
    },
  }),
  defineTool({
    name: "quire_quality_scan",
    title: "Quality scan",
    description: "Documentation quality: a 0-100 score for the workspace and each page, with findings (dead links, missing titles or descriptions, empty or orphan pages, images without alt, heading skips, long paragraphs, readability).",
    input: optionalPath,
    output: qualityOutput,
    workspace: true,
    scope: "read",
    annotations: READ_ONLY,
    run: () => {
      throw new Unavailable("quire_quality_scan");
    },
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
    run: () => {
      throw new Unavailable("quire_get_theme");
    },
  }),
  defineTool({
    name: "quire_update_theme",
    title: "Change the site theme",
    description: "Set the published site's theme (workspace admins).",
    input: themeInput,
    output: themeOutput,
    workspace: true,
    scope: "write",
    annotations: writeHints,
    run: () => {
      throw new Unavailable("quire_update_theme");
    },
  }),
  defineTool({
    name: "quire_publish_workspace",
    title: "Publish the site",
    description: "Publish (or with published: false, unpublish) the workspace's documentation site and set its visibility (authenticated or public); returns its URL. Workspace admins.",
    input: publishInput,
    output: publishOutput,
    workspace: true,
    scope: "write",
    annotations: writeHints,
    run: () => {
      throw new Unavailable("quire_publish_workspace");
    },
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
    run: () => {
      throw new Unavailable("quire_list_versions");
    },
  }),
  defineTool({
    name: "quire_create_version",
    title: "Create a site version",
    description: "Create a named version of the site whose pages live under base_path; snapshot: true copies the current published pages there (one commit).",
    input: createVersionToolInput,
    output: versionRecord,
    workspace: true,
    scope: "write",
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    run: () => {
      throw new Unavailable("quire_create_version");
    },
  }),
  defineTool({
    name: "quire_export",
    title: "Export the site",
    description:
      transport === "stdio"
        ? "Export the published pages as a static-site ZIP: a download URL valid 15 minutes, or written to output (a file path) when given."
        : "Export the published pages as a static-site ZIP; returns a download URL valid 15 minutes.",
    input:
      transport === "stdio"
        ? z.strictObject({ output: z.string().min(1, "must not be empty").max(4096, "must be at most 4096 characters").optional() })
        : z.strictObject({}),
    output: exportOutput,
    workspace: true,
    scope: "read",
    annotations: { readOnlyHint: transport !== "stdio", destructiveHint: false, idempotentHint: true, openWorldHint: false },
    run: () => {
      throw new Unavailable("quire_export");
    },
  }),
];
