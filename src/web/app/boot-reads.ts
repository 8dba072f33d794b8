/**
 * What a page's address needs, started from the entry before React mounts: as soon as the session
 * is renewed the page's text is read and the page screen's code (preloaded by the shell) runs,
 * beside the sign-in's own reads (who this is, the workspace list), instead of after them and
 * after the app's first render (docs/decisions/editor-blocks.md).
 */
import { readPageEarly } from "../api/pages.ts";
import { bootSession } from "./auth.tsx";

/** The workspace and page an address opens (`/w/<workspace>/p/<path>`, as Shell.tsx reads it). */
function pageAddressOf(path: string): { slug: string; page: string } | null {
  const match = /^\/w\/([^/]+)\/p\/(.+)/.exec(path);
  if (!match) return null;
  try {
    return { slug: decodeURIComponent(match[1]!), page: match[2]!.split("/").map(decodeURIComponent).join("/") };
  } catch {
    return null; // a malformed address: the screens report it
  }
}

export function startBootReads(path: string): void {
  const address = pageAddressOf(path);
  if (!address) return;
  void bootSession().then((signedIn) => {
    if (!signedIn) return;
    readPageEarly(address.slug, address.page);
    void import("../screens/PageScreen.tsx");
  });
}
