/**
 * Page history (docs/decisions/page-history.md): a page's versions, one version, diffs, restore, the
 * workspace's trash and what changed since a date. `workspaceId` is the workspace's id.
 */
import { get, post } from "./client.ts";
import type * as Api from "./openapi-types.ts";
import type { Page } from "./types.ts";
import { workspaceBase } from "./workspaces.ts";

export type VersionEntry = Api.History["items"][number];
export type PageDiff = Api.PageDiff;
export type TrashEntry = Api.Trash["items"][number];
export type ChangeEntry = Api.Changes["items"][number];

const query = (params: Record<string, string | undefined>) =>
  new URLSearchParams(Object.entries(params).filter((e): e is [string, string] => e[1] !== undefined)).toString();

export const listVersions = (workspaceId: string, path: string, cursor?: string | null) =>
  get<Api.History>(`${workspaceBase(workspaceId)}/history?${query({ path, cursor: cursor ?? undefined, limit: "25" })}`);

/** Two versions (or a version and the current file when `to` is missing), with word highlights and the rendered diff. */
export const diffVersions = (workspaceId: string, path: string, from: string, to?: string) =>
  get<PageDiff>(`${workspaceBase(workspaceId)}/history/diff?${query({ path, from, to, words: "true", rendered: "true" })}`);

/** Puts a version back, checked against the hash of the file the person last saw (409 when someone saved since). */
export const restoreVersion = (workspaceId: string, body: { path: string; commit: string; last_known_hash: string }) =>
  post<Page>(`${workspaceBase(workspaceId)}/history/restore`, body);

export const listTrash = (workspaceId: string) => get<Api.Trash>(`${workspaceBase(workspaceId)}/trash`);

/** Brings a deleted page back at its old path, or at the path the server picks when that one is taken. */
export const restoreFromTrash = (workspaceId: string, trashId: string) => post<Page>(`${workspaceBase(workspaceId)}/trash/restore`, { trash_id: trashId });

export const listChanges = (workspaceId: string, since: string, cursor?: string | null) =>
  get<Api.Changes>(`${workspaceBase(workspaceId)}/changes?${query({ since, cursor: cursor ?? undefined })}`);

export type PageBlame = Api.Blame;

/** Each line of the page's current file with the version that last wrote it. */
export const blamePage = (workspaceId: string, path: string) => get<PageBlame>(`${workspaceBase(workspaceId)}/history/blame?${query({ path })}`);
