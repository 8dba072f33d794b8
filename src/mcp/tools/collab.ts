import { assistInput } from "../../ai/schemas.ts";
import { agentPagePath } from "../../content/paths.ts";
import { activityOutput, assistOutput, commentRecord, commentsOutput, conflictResolvedOutput } from "../outputs.ts";
import { defineTool, READ_ONLY } from "../tool.ts";
import { activityArgs, addCommentArgs, listCommentsArgs, resolveConflictArgs } from "../tool-inputs.ts";

/** Writing assist, activity, comments and sync conflicts. */
export const collabTools = (assistConfigured: boolean) => [
  defineTool({
    name: "quire_writing_assist",
    title: "Writing assist",
    description:
      "Rewrite text in one of six modes (improve, shorten, expand, fix_grammar, summarize, translate). With a model configured on the server the result is its text; otherwise the answer is {instructions, text} for you to carry out yourself.",
    input: assistInput,
    output: assistOutput,
    workspace: false,
    scope: "read",
    rate: "ai_assist",
    annotations: { ...READ_ONLY, idempotentHint: false, openWorldHint: assistConfigured },
    run: (call, args) => call.services.assist.assist(args),
  }),
  defineTool({
    name: "quire_get_activity",
    title: "Recent activity",
    description: "The workspace's activity feed, newest first (page_created, page_updated, page_deleted, page_moved, comment_added, …), optionally one action. Paginated.",
    input: activityArgs,
    output: activityOutput,
    workspace: true,
    scope: "read",
    annotations: READ_ONLY,
    run: (call, args) => call.services.activity.list(call.principal, call.workspaceSlug(), args),
  }),
  defineTool({
    name: "quire_list_comments",
    title: "List comments",
    description: "Comments of the workspace, or of one page (path), oldest first, with threads (parent_id) and mentions. Paginated.",
    input: listCommentsArgs,
    output: commentsOutput,
    workspace: true,
    scope: "read",
    annotations: READ_ONLY,
    run: (call, args) => {
      const { path, resolved, ...rest } = args;
      return call.services.comments.list(call.principal, call.workspaceSlug(), {
        ...rest,
        ...(path !== undefined ? { page: agentPagePath(path) } : {}),
        ...(resolved !== undefined ? { resolved: String(resolved) } : {}),
      });
    },
  }),
  defineTool({
    name: "quire_add_comment",
    title: "Add a comment",
    description: "Comment on a page, or reply in a thread with parent_id. @name mentions notify members as in the web app.",
    input: addCommentArgs,
    output: commentRecord,
    workspace: true,
    scope: "write",
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    run: (call, args) => {
      const { path, ...rest } = args;
      return call.services.comments.create(call.principal, call.workspaceSlug(), { ...rest, page_path: agentPagePath(path) });
    },
  }),
  defineTool({
    name: "quire_resolve_sync_conflict",
    title: "Resolve a sync conflict",
    description:
      "Resolve a git sync conflict (ids from the workspace's conflict list): kept_local keeps this side, kept_remote takes the remote's, custom writes content (the whole file, frontmatter included).",
    input: resolveConflictArgs,
    output: conflictResolvedOutput,
    workspace: true,
    scope: "write",
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
    run: async (call, args) => {
      const { conflict_id, ...body } = args;
      return (await call.services.conflictService.resolve(call.principal, call.workspaceSlug(), conflict_id, body)) as object;
    },
  }),
];
