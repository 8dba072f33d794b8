import { agentPagePath } from "../../content/paths.ts";
import { SOFT_DELETE_KEEP_MS } from "../../content/page-records.ts";
import { editPageInput, listPagesInput, pagePathInput, writePageInput } from "../../content/schemas.ts";
import { deletedOutput, listPagesOutput, pageObject, pageSlice, pageWritten } from "../outputs.ts";
import { defineTool, READ_ONLY } from "../tool.ts";
import { movePageArgs } from "../tool-inputs.ts";
import { readPageVersionInput } from "../../history/schemas.ts";
import { sliceContent } from "../../content/page-slice.ts";

/** Pages: list, read, write (upsert), update (hash-checked), delete (soft), move. */
export const contentTools = [
  defineTool({
    name: "quire_list_pages",
    title: "List pages",
    description: "List pages (path, title, id, updated_at, publish) by path, optionally under a folder. Paginated: pass next_cursor back as cursor.",
    input: listPagesInput,
    output: listPagesOutput,
    workspace: true,
    scope: "read",
    rate: "content_read",
    annotations: READ_ONLY,
    run: (call, args) => call.services.agentPages.list(call.access(), args),
  }),
  defineTool({
    name: "quire_read_page",
    title: "Read a page",
    description:
      "Read a page: metadata, frontmatter, content_hash and Markdown content (without frontmatter). Long content is cut at max_chars (default 20000): when truncated, read on from next_offset. version: a commit from quire_page_history.",
    input: readPageVersionInput,
    output: pageSlice,
    workspace: true,
    scope: "read",
    rate: "content_read",
    annotations: READ_ONLY,
    run: (call, args) =>
      args.version !== undefined
        ? call.services.history.pageAt(call.access(), args.path, args.version).then((page) => sliceContent(page, args.offset, args.max_chars))
        : call.services.agentPages.read(call.access(), args.path, args.offset, args.max_chars),
  }),
  defineTool({
    name: "quire_write_page",
    title: "Write a page (create or replace)",
    description:
      "Create a page, or replace an existing page's body whatever changed meanwhile (upsert). title/description/tags/publish are set when given; other frontmatter is kept. To change part of a page safely, prefer quire_update_page with edits.",
    input: writePageInput,
    output: pageWritten,
    workspace: true,
    scope: "write",
    rate: "content_write",
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    run: async (call, args) => {
      const { page, created } = await call.services.agentPages.write(call.access(), args.path, args);
      return { ...page, created };
    },
  }),
  defineTool({
    name: "quire_update_page",
    title: "Update a page",
    description:
      "Change a page you have read, with its content_hash as last_known_hash: either the whole body, or edits [{find, replace}] (each find must match the current content exactly once), and/or frontmatter keys. A stale hash fails and names the current one. An unchanged result makes no commit.",
    input: editPageInput,
    output: pageObject,
    workspace: true,
    scope: "write",
    rate: "content_write",
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
    run: (call, args) => call.services.agentPages.edit(call.access(), args.path, args),
  }),
  defineTool({
    name: "quire_delete_page",
    title: "Delete a page",
    description: "Delete a page (soft delete: recoverable for 24 hours by an administrator).",
    input: pagePathInput,
    output: deletedOutput,
    workspace: true,
    scope: "delete",
    rate: "content_write",
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    run: async (call, args) => {
      const path = agentPagePath(args.path);
      await call.services.ledger.delete(call.access(), path);
      return { deleted: true as const, path, recoverable_until: new Date(Date.now() + SOFT_DELETE_KEEP_MS).toISOString() };
    },
  }),
  defineTool({
    name: "quire_move_page",
    title: "Move or rename a page",
    description: "Move or rename a page; it keeps its id, history and comments, and every link to it in the workspace is rewritten.",
    input: movePageArgs,
    output: pageObject,
    workspace: true,
    scope: "write",
    rate: "content_write",
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    run: (call, args) => {
      const newPath = agentPagePath(args.new_path, "new_path");
      return call.services.ledger.move(call.access(), agentPagePath(args.path), { new_path: newPath });
    },
  }),
];
