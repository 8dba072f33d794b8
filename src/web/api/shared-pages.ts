/**
 * Page share links (docs/decisions/restricted-folders.md, "Share links"): an admin makes one for a
 * page; anyone holding it opens the page, as far as the page's rules allow.
 */
import { get, post } from "./client.ts";
import type * as Api from "./openapi-types.ts";
import { workspaceBase } from "./workspaces.ts";

export type SharedPage = Api.SharedPage;

/** The page a link opens; a link that opens nothing answers as a missing page. */
export const openSharedPage = (token: string) => get<SharedPage>(`/api/v1/share-links/${encodeURIComponent(token)}/page`);

/** A view link to one page (admins); `anyone` says whether it opens for people without access now. */
export const createPageLink = (workspace: string, path: string, role: "viewer" | "commenter" = "viewer") =>
  post<Api.ShareLinkWithToken>(`${workspaceBase(workspace)}/share-links`, { role, path });

/** Where a page link is opened in the app. */
export const pageLinkUrl = (token: string) => `${location.origin}/shared/${encodeURIComponent(token)}`;

const linkComments = (token: string) => `/api/v1/share-links/${encodeURIComponent(token)}/comments`;

/** The thread of a comment-level link's page (signed in), a page at a time. */
export const listLinkComments = (token: string, cursor: string | null) =>
  get<Api.CommentList>(`${linkComments(token)}?limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`);

/** A new thread on the link's page, or a reply (`parent_id`), attributed to the signed-in person. */
export const addLinkComment = (token: string, body: { body: string; parent_id?: string }) => post<Api.Comment>(linkComments(token), body);
