import { z } from "zod";

/**
 * The shapes of the tools' results (`outputSchema`). Records are open (`looseObject`): they list
 * the fields an agent relies on, and a field added to a record later does not break a client that
 * validates results against the schema.
 */
/** An open record: the fields listed, and any others (spelled `additionalProperties: true` for strict clients). */
const open = <S extends z.ZodRawShape>(shape: S) => z.looseObject(shape).meta({ additionalProperties: true } as Record<string, unknown>);

const str = z.string();
const nullableStr = z.string().nullable();
const cursor = z.string().nullable();

const pageSummary = open({ path: str, title: str, page_id: str, updated_at: str, publish: z.boolean() });

const pageFields = {
  page_id: str,
  path: str,
  title: str,
  description: str,
  content: str.optional(),
  content_hash: str,
  frontmatter_hash: str,
  tags: z.array(str),
  status: str,
  publish: z.boolean(),
  created_at: str,
  updated_at: str,
};
export const pageObject = open(pageFields);

export const pageSlice = open({
  ...pageFields,
  content: str,
  offset: z.number(),
  total_chars: z.number(),
  truncated: z.boolean(),
  next_offset: z.number().nullable(),
});

export const pageWritten = open({ ...pageFields, created: z.boolean() });

export const listPagesOutput = z.object({ items: z.array(pageSummary), next_cursor: cursor });

export const deletedOutput = z.object({ deleted: z.literal(true), path: str, recoverable_until: str });

export const searchOutput = z.object({
  items: z.array(z.object({ path: str, title: str, snippet: str, score: z.number() })),
  indexing: open({}).optional(),
});

export const contextOutput = z.object({
  page: open({ path: str, title: str, page_id: str, description: str, content_hash: str }),
  parent: pageSummary.nullable(),
  siblings: z.array(pageSummary),
  siblings_total: z.number(),
  links_out: z.array(open({ path: str, title: nullableStr, exists: z.boolean() })),
  links_in: z.array(pageSummary),
});

export const workspaceRecord = open({ id: str, name: str, slug: str, role: nullableStr, page_count: z.number(), published: z.boolean() });

export const workspacesOutput = z.object({
  items: z.array(z.object({ slug: str, name: str, role: nullableStr, page_count: z.number() })),
  next_cursor: cursor,
});

type TreeNodeShape = { type: string; path: string; title: string; children?: TreeNodeShape[] };
const treeNode: z.ZodType<TreeNodeShape> = z.lazy(() =>
  open({ type: str, path: str, title: str, children: z.array(treeNode).optional() }),
);
export const treeOutput = z.object({ items: z.array(treeNode), truncated: z.boolean(), hint: str.optional() });

export const manifestOutput = z.object({
  workspace: z.object({ slug: str, name: str, description: str }),
  pages: z.array(z.object({ path: str, title: str, description: str, tags: z.array(str) })),
  next_cursor: cursor,
  versions: z.array(open({ slug: str, name: str })),
  theme: str,
});

export const activityOutput = z.object({
  items: z.array(open({ id: str, action: str, actor: z.object({ id: nullableStr, name: str }), page_path: nullableStr, created_at: str })),
  next_cursor: cursor,
});

export const commentRecord = open({
  id: str,
  page_path: str,
  parent_id: nullableStr,
  author: z.object({ id: nullableStr, name: str }),
  body: str,
  mentions: z.array(str),
  resolved: z.boolean(),
  created_at: str,
});
export const commentsOutput = z.object({ items: z.array(commentRecord), next_cursor: cursor });

export const assistOutput = z.object({ text: str, model: str.optional(), instructions: str.optional() });

export const conflictResolvedOutput = open({});

export const themeOutput = z.object({ theme: str });
export const publishOutput = z.object({ published: z.boolean(), visibility: str, url: str });
export const versionRecord = open({ slug: str, name: str, base_path: str, is_default: z.boolean() });
export const versionsOutput = z.object({ items: z.array(versionRecord) });
export const exportOutput = z.object({ pages: z.number(), bytes: z.number(), url: str.optional(), output: str.optional(), expires_at: str.optional() });
export const deadLinksOutput = z.object({ dead_links: z.array(open({ path: str, line: z.number().nullable(), target: str })) });
export const qualityOutput = open({ score: z.number(), pages: z.array(open({ path: str, score: z.number() })), findings: z.array(open({ path: str, kind: str, severity: str, message: str })) });
