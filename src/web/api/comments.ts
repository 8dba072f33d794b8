/** Comments: a workspace's list and new threads (workspace routes), one comment's edits by id. */
import { del, get, post, put } from "./client.ts";
import type * as Api from "./openapi-types.ts";
import { workspaceBase } from "./workspaces.ts";

const commentsUrl = (workspaceId: string, query?: URLSearchParams | string) =>
  `${workspaceBase(workspaceId)}/comments${query === undefined ? "" : `?${query}`}`;
const commentUrl = (id: string) => `/api/v1/comments/${encodeURIComponent(id)}`;
const commentResolveUrl = (id: string, resolved: boolean) => `${commentUrl(id)}/${resolved ? "unresolve" : "resolve"}`;

/** A page of a workspace's comments (`query`: page, resolved, cursor, limit). */
export const listComments = (workspaceId: string, query: URLSearchParams) => get<Api.CommentList>(commentsUrl(workspaceId, query));
/** A new thread on a page (`page_path`), or a reply (`parent_id`). */
export const addComment = (workspaceId: string, body: { page_path?: string; parent_id?: string; body: string }) => post<Api.Comment>(commentsUrl(workspaceId), body);
export const editComment = (id: string, body: string) => put<Api.Comment>(commentUrl(id), { body });
export const deleteComment = (id: string) => del(commentUrl(id));
/** Resolves a thread, or reopens it when `resolved` is already true. */
export const toggleResolved = (id: string, resolved: boolean) => post<Api.Comment>(commentResolveUrl(id, resolved));
