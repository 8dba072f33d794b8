import { MAX_RESULT_CHARS } from "../budget.ts";
import { z } from "zod";
import { diffToolInput, listTrashToolInput, pageHistoryToolInput, restorePageToolInput } from "../../history/schemas.ts";
import { defineTool, READ_ONLY } from "../tool.ts";

/**
 * Output schemas kept short (tools/list has a token budget, docs/architecture.md §12): the key fields, open
 * to the rest of the answer, which is the REST answer as documented in the OpenAPI document.
 */
const loose = <S extends z.ZodRawShape>(shape: S) => z.looseObject(shape).meta({ additionalProperties: true } as Record<string, unknown>);
const str = z.string();
const historyOut = loose({ items: z.array(loose({ commit: str, path: str, channel: str })), next_cursor: str.nullable() });
const diffOut = loose({ from: str, to: str, unified: str });
const trashOut = loose({ items: z.array(loose({ trash_id: str, path: str })) });
const pageOut = loose({ page_id: str, path: str, content_hash: str });

/** Page history (docs/decisions/page-history.md): versions, diffs, restore of a version or of a deleted page, the trash. */
export const historyTools = [
  defineTool({
    name: "quire_page_history",
    title: "Page history",
    description: "A page's versions, newest first, across renames: commit, author, time, message, channel, lines added/removed. Read one with quire_read_page version=<commit>.",
    input: pageHistoryToolInput,
    output: historyOut,
    workspace: true,
    scope: "read",
    rate: "content_read",
    annotations: READ_ONLY,
    run: (call, args) => call.services.history.versions(call.access(), args.path, args.limit, args.cursor),
  }),
  defineTool({
    name: "quire_diff",
    title: "Diff two versions",
    description: "Unified diff of a page between version `from` and `to` (default: the current file), with frontmatter changes as fields.",
    input: diffToolInput,
    output: diffOut,
    workspace: true,
    scope: "read",
    rate: "content_read",
    annotations: READ_ONLY,
    run: async (call, args) => {
      const diff = await call.services.history.diffVersions(call.access(), args.path, args.from, args.to);
      // A rewrite of a long page would exceed the result budget: the head of the diff, said so.
      const room = MAX_RESULT_CHARS - 8_000;
      return diff.unified.length > room ? { ...diff, unified: `${diff.unified.slice(0, room)}\n[diff cut: compare smaller ranges of versions]\n` } : diff;
    },
  }),
  defineTool({
    name: "quire_restore_page",
    title: "Restore a version or a deleted page",
    description:
      "Restore a version (path, commit, last_known_hash: the current content_hash; a stale hash fails) as a new commit, or a deleted page (trash_id from quire_list_trash, optional new path).",
    input: restorePageToolInput,
    output: pageOut,
    workspace: true,
    scope: "write",
    rate: "content_write",
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
    run: (call, args) =>
      args.trash_id !== undefined
        ? call.services.history.restoreDeleted(call.access(), args.trash_id, args.path)
        : call.services.history.restoreVersion(call.access(), args.path!, args.commit!, args.last_known_hash!),
  }),
  defineTool({
    name: "quire_list_trash",
    title: "List deleted pages",
    description: "Deleted pages (in Quire or by a git push) with who deleted them and when; restore with quire_restore_page trash_id.",
    input: listTrashToolInput,
    output: trashOut,
    workspace: true,
    scope: "read",
    rate: "content_read",
    annotations: READ_ONLY,
    run: (call) => call.services.history.trash(call.access()),
  }),
];
