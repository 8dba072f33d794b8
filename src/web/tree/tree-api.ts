/** The tree's writes, one request each: reorder a level, move a page, retitle it, delete it. */
import { api, del, get, post, put } from "../api/client.ts";
import type { Page } from "../api/types.ts";
import type { ReorderBody } from "./tree-ops.ts";

const base = (slug: string) => `/api/v1/content/${encodeURIComponent(slug)}`;
const pageApiUrl = (slug: string, path: string) => `${base(slug)}/${path.split("/").map(encodeURIComponent).join("/")}`;

export const reorder = (slug: string, body: ReorderBody) => post<void>(`${base(slug)}/reorder`, body);

export const movePage = (slug: string, from: string, to: string) =>
  api<Page>(pageApiUrl(slug, from), { method: "PATCH", json: { new_path: to } });

/** Changes only the title line of the frontmatter, against the page as it is now. */
export async function retitlePage(slug: string, path: string, title: string): Promise<Page> {
  const current = await get<Page>(pageApiUrl(slug, path));
  const page = await put<Page>(pageApiUrl(slug, path), { frontmatter: { title }, lastKnownHash: current.content_hash });
  return page;
}

export const deletePage = (slug: string, path: string) => del<void>(pageApiUrl(slug, path));
