/**
 * Restricted folders and pages (docs/decisions/restricted-folders.md): a folder's or page's access
 * list, read and set by admins. `workspace` is the workspace's id or slug.
 */
import { get, put } from "./client.ts";
import type * as Api from "./openapi-types.ts";
import { workspaceBase } from "./workspaces.ts";

export type EffectiveAccess = Api.EffectiveAccess;
export type AccessEntry = EffectiveAccess["entries"][number];
export type MemberAccess = Api.MemberAccess;

/** The rule that governs `path` (a folder ending in `/`, or a page), and the caller's own level there. */
export const effectiveAccess = (workspace: string, path: string) =>
  get<EffectiveAccess>(`${workspaceBase(workspace)}/access/effective?${new URLSearchParams({ path })}`);

/** Each member's level on `path`, computed by the server (admins). */
export const membersAccess = (workspace: string, path: string) =>
  get<MemberAccess>(`${workspaceBase(workspace)}/access/members?${new URLSearchParams({ path })}`);

/** Sets the list of `path` (`[]` lifts the restriction); `confirmPrivateRemote` says the git remote is private. */
export const setAccess = (workspace: string, path: string, entries: AccessEntry[], confirmPrivateRemote: boolean) =>
  put<EffectiveAccess>(`${workspaceBase(workspace)}/access`, { path, entries, ...(confirmPrivateRemote ? { confirm_private_remote: true } : {}) });

/** Every member's level on every restricted folder and page (admins: the members screen's column). */
export const peopleAccess = (workspace: string) => get<Api.PeopleAccess>(`${workspaceBase(workspace)}/access/people`);
