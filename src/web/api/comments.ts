/** Comments: a workspace's list and new threads (workspace routes), one comment's edits by id. */
import { workspaceBase } from "./workspaces.ts";

export const commentsUrl = (workspaceId: string, query?: URLSearchParams | string) =>
  `${workspaceBase(workspaceId)}/comments${query === undefined ? "" : `?${query}`}`;
export const commentUrl = (id: string) => `/api/v1/comments/${encodeURIComponent(id)}`;
export const commentResolveUrl = (id: string, resolved: boolean) => `${commentUrl(id)}/${resolved ? "unresolve" : "resolve"}`;
