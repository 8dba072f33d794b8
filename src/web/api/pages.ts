/** Pages by workspace slug and file path (…/content/:workspace/*): read, create, save, move, retitle, delete, upload. */
import { api, del, get, post, put, uploadWithProgress } from "./client.ts";
import type { Page } from "./types.ts";
import { earlyReads } from "./early-reads.ts";

export const contentBase = (slug: string) => `/api/v1/content/${encodeURIComponent(slug)}`;
export const pageApiUrl = (slug: string, path: string) => `${contentBase(slug)}/${path.split("/").map(encodeURIComponent).join("/")}`;

export const readPage = (slug: string, path: string, signal?: AbortSignal) => get<Page>(pageApiUrl(slug, path), signal);

/** Reads started before the page's screen existed, by page address. */
const early = earlyReads<Page>();

/**
 * Starts reading the page an address names as soon as the signed-in app knows that address, so
 * the read runs while the page screen's code loads instead of after it (a large workspace's
 * first paint waited on that chain).
 */
export function readPageEarly(slug: string, path: string): void {
  early.start(pageApiUrl(slug, path), () => readPage(slug, path), true);
}

/** The page, when the read started early has already answered (and is fresh); else null. */
export function pageIfRead(slug: string, path: string): Page | null {
  return early.answered(pageApiUrl(slug, path));
}

/** The early read's answer was used (`pageIfRead`): a later visit reads the page again. */
export function pageReadUsed(slug: string, path: string): void {
  early.drop(pageApiUrl(slug, path));
}

/** The page's read: the one started early when it is still fresh, else a new one. */
export function takePage(slug: string, path: string): Promise<Page> {
  return early.take(pageApiUrl(slug, path), () => readPage(slug, path));
}

export const createPage = (slug: string, path: string, body: { title: string; body?: string; [field: string]: unknown }) =>
  post<Page>(pageApiUrl(slug, path), body);

/** Saves against the hash the edit started from (a 409 ApiError when someone saved first). */
export const savePage = (slug: string, path: string, body: { body?: string; frontmatter?: object; lastKnownHash: string }) =>
  put<Page>(pageApiUrl(slug, path), body);

export const movePage = (slug: string, from: string, to: string) =>
  api<Page>(pageApiUrl(slug, from), { method: "PATCH", json: { new_path: to } });

/** Changes only the title line of the frontmatter, against the page as it is now. */
export async function retitlePage(slug: string, path: string, title: string): Promise<Page> {
  const current = await readPage(slug, path);
  return savePage(slug, path, { frontmatter: { title }, lastKnownHash: current.content_hash });
}

export const deletePage = (slug: string, path: string) => del<void>(pageApiUrl(slug, path));

export interface StoredUpload {
  filename: string;
  url: string;
  content_type: string;
  size: number;
}
export const uploadFile = (slug: string, form: FormData, onProgress: (fraction: number) => void) =>
  uploadWithProgress<StoredUpload>(`${contentBase(slug)}/uploads`, form, onProgress);
