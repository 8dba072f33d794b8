import { posix } from "node:path";

/**
 * Where things live inside an export (docs/architecture.md §9 "Export ZIP layout") and how one exported file
 * names another. Every link is relative and names a file (`../guide/intro.html`, never `/p/…`,
 * never a folder URL that needs a server's index lookup), so the site works from file://, from a
 * sub-path and from any static host.
 */

/** `guide/intro.md` → `guide/intro.html`; a folder's `index.md` → `{folder}/index.html`. */
export function htmlPathOf(pagePath: string): string {
  return pagePath.replace(/\.md$/i, "") + ".html";
}

/** A relative URL from the exported file `from` to the exported file `to` (both ZIP paths). */
export function relativeHref(from: string, to: string): string {
  const dir = posix.dirname(from);
  let rel = posix.relative(dir === "." ? "" : dir, to);
  if (rel === "") rel = posix.basename(to);
  return rel.split("/").map(encodeURIComponent).join("/");
}
