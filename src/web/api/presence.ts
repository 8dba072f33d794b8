/**
 * The workspace's people and who views what (page-level presence), and whether pages are live on
 * the published site — the reads and reports behind the live parts of the app.
 */
import { get, post } from "./client.ts";
import type * as Api from "./openapi-types.ts";
import { workspaceUrls } from "./workspaces.ts";

export const listPeople = (workspaceId: string) => get<Api.PersonList>(workspaceUrls(workspaceId).people);

/** Reports the page this tab has open (`null`: none). */
export const reportViewing = (workspaceId: string, path: string | null) => post(workspaceUrls(workspaceId).viewing, { path });

export const listViewing = (workspaceId: string) => get<Api.ViewingList>(workspaceUrls(workspaceId).viewing);

/** The workspace's site: whether it is published, and each live page's URL. */
export const livePages = (workspaceId: string, signal?: AbortSignal) => get<Api.LivePages>(workspaceUrls(workspaceId).sitePages, signal);
