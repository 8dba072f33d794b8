import { z } from "zod";
import { accessRulesOutput, effectiveAccessOutput } from "../../access/restrictions/schemas.ts";
import { defineTool, READ_ONLY } from "../tool.ts";
import { setAccessArgs } from "../tool-inputs.ts";

/** Restricted folders and pages, for workspace admins (docs/decisions/restricted-folders.md). */
export const accessTools = [
  defineTool({
    name: "quire_get_access",
    title: "Restricted folders",
    description: "Restricted folders' and pages' access lists.",
    input: z.strictObject({}),
    output: accessRulesOutput,
    workspace: true,
    scope: "admin",
    annotations: READ_ONLY,
    run: (call) => call.services.restrictions.list(call.principal, call.workspaceSlug()),
  }),
  defineTool({
    name: "quire_set_access",
    title: "Restrict a folder",
    description: "Set a path's access list; it only narrows its parent's.",
    input: setAccessArgs,
    output: effectiveAccessOutput,
    workspace: true,
    scope: "admin",
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    run: (call, args) => call.services.restrictions.set(call.principal, call.workspaceSlug(), args),
  }),
];
