import { posix } from "node:path";
import { parentOf } from "./paths.ts";
import { HIDDEN, linkRegions } from "./link-regions.ts";

/**
 * Links between pages and their rewriting when a page moves. Two kinds:
 * - wikilinks `[[target]]`, `[[target|text]]`, `[[target#heading]]`: the target is a workspace
 *   path with or without `.md` (a leading `/` is allowed); when nothing lives at that path it is
 *   tried relative to the linking page's folder;
 * - Markdown links with a relative (or `/`-rooted) `.md` destination: inline `[text](../a/b.md#h "title")`
 *   and reference definitions `[ref]: ../a/b.md "title"` (either may use `<...>`).
 * Rewriting edits only the destination text. Where links may be edited is decided by Markdown's own
 * reading of the page (marked's lexer): code blocks (fenced or indented), inline code spans and HTML
 * blocks are left exactly as written, since a link there is not a link.
 */
export const WIKILINK = /\[\[([^\[\]|#\n]+?)(#[^\[\]|\n]*)?(\|[^\[\]\n]*)?\]\]/g;
export const MD_LINK = /(!?\[(?:[^\[\]\n]|\[[^\[\]\n]*\])*\]\(\s*)(<[^>\n]*>|[^\s()<>]+)((?:\s+(?:"[^"\n]*"|'[^'\n]*'|\([^()\n]*\)))?\s*\))/g;
/** A reference definition from its label to its destination (which may sit on the next line); U+0001 is HIDDEN. */
const DEFINITION = /\[(?:[^\[\]\\\n]|\\.)+\]:[ \t]*(?:\u0001?\n[ \t]*)?(<[^<>\n]*>|[^\s<\u0001][^\s\u0001]*)/y;

/** Resolves a wikilink target to a page path, or null when it cannot name one. */
export function resolveWikiTarget(target: string, fromPath: string, exists: (p: string) => boolean): string | null {
  let t = target.trim();
  if (t === "") return null;
  const rooted = t.startsWith("/");
  t = t.replace(/^\/+/, "");
  if (!t.toLowerCase().endsWith(".md")) t += ".md";
  const fromRoot = posix.normalize(t);
  if (fromRoot.startsWith("..")) return null;
  if (rooted || exists(fromRoot)) return fromRoot;
  const relative = posix.normalize(posix.join(parentOf(fromPath), t));
  if (!relative.startsWith("..") && exists(relative)) return relative;
  return fromRoot;
}

/** Resolves a Markdown link URL to a page path, or null for external, non-page or escaping links. */
export function resolveMdTarget(url: string, fromPath: string): { path: string; suffix: string } | null {
  let u = url.startsWith("<") && url.endsWith(">") ? url.slice(1, -1) : url;
  if (/^[a-z][a-z0-9+.-]*:/i.test(u) || u.startsWith("//") || u.startsWith("#")) return null;
  const cut = u.search(/[?#]/);
  const suffix = cut >= 0 ? u.slice(cut) : "";
  u = cut >= 0 ? u.slice(0, cut) : u;
  if (!u.toLowerCase().endsWith(".md")) return null;
  let decoded: string;
  try {
    decoded = decodeURI(u);
  } catch {
    return null;
  }
  const joined = decoded.startsWith("/") ? decoded.slice(1) : posix.join(parentOf(fromPath), decoded);
  const path = posix.normalize(joined);
  if (path.startsWith("..") || path.startsWith("/")) return null;
  return { path, suffix };
}

function relativeUrl(fromPath: string, toPath: string, encode: boolean, angle: boolean): string {
  let rel = posix.relative(parentOf(fromPath) || ".", toPath);
  if (rel === "") rel = posix.basename(toPath);
  if (encode) rel = encodeURI(rel);
  return angle ? `<${rel}>` : rel;
}

/**
 * Rewrites, in the text of the page at `fromPath`, every link that points at `oldPath` so it
 * points at `newPath`. `selfMovedFrom` is set when the linking page itself is the one that moved
 * (from that old location): its relative links to other pages are re-pointed from the new folder.
 */
export function rewriteLinks(
  text: string,
  opts: { fromPath: string; oldPath: string; newPath: string; exists: (p: string) => boolean; selfMovedFrom?: string },
): string {
  const { fromPath, oldPath, newPath, exists } = opts;
  const resolveFrom = opts.selfMovedFrom ?? fromPath;
  // Any link to the moved page names its file (maybe percent-encoded): most pages of a workspace
  // do not, and skip the Markdown lexing below (a move reads every page).
  const stem = posix.basename(oldPath).replace(/\.md$/, "");
  if (opts.selfMovedFrom === undefined && !text.includes(stem) && !text.includes("%")) return text;
  const { view, definitions } = linkRegions(text);
  const edits: Array<{ at: number; length: number; text: string }> = [];

  /** The new destination for a Markdown link's URL, or null when it stays as written. */
  const newUrl = (url: string): string | null => {
    const target = resolveMdTarget(url, resolveFrom);
    if (!target) return null;
    let dest: string;
    if (target.path === oldPath) dest = newPath;
    else if (opts.selfMovedFrom !== undefined && exists(target.path)) dest = target.path;
    else return null;
    const angle = url.startsWith("<");
    const bare = angle ? url.slice(1, -1) : url;
    const encode = bare.includes("%");
    let rel = bare.startsWith("/") ? "/" + (encode ? encodeURI(dest) : dest) : relativeUrl(fromPath, dest, encode, false);
    // A bare destination cannot hold spaces or parentheses; brackets keep the new one a link.
    const wrap = angle || /[\s()<>]/.test(rel);
    const next = wrap ? `<${rel}${target.suffix}>` : `${rel}${target.suffix}`;
    return next === url ? null : next;
  };

  for (const m of view.matchAll(WIKILINK)) {
    const [whole, target, heading, label] = m as unknown as [string, string, string | undefined, string | undefined];
    if (whole.includes(HIDDEN)) continue;
    const resolved = resolveWikiTarget(target, resolveFrom, (p) => p === oldPath || exists(p));
    if (resolved !== oldPath) continue;
    const keepMd = target.trim().toLowerCase().endsWith(".md");
    const newTarget = (target.trim().startsWith("/") ? "/" : "") + (keepMd ? newPath : newPath.replace(/\.md$/, ""));
    edits.push({ at: m.index!, length: whole.length, text: `[[${newTarget}${heading ?? ""}${label ?? ""}]]` });
  }
  for (const m of view.matchAll(MD_LINK)) {
    const [, head, url] = m as unknown as [string, string, string];
    if (head.startsWith("!") || url.includes(HIDDEN)) continue;
    const next = newUrl(url);
    if (next !== null) edits.push({ at: m.index! + head.length, length: url.length, text: next });
  }
  for (const start of definitions) {
    DEFINITION.lastIndex = start;
    const m = DEFINITION.exec(view);
    if (!m || m[1]!.includes(HIDDEN)) continue;
    const next = newUrl(m[1]!);
    if (next !== null) edits.push({ at: m.index + m[0].length - m[1]!.length, length: m[1]!.length, text: next });
  }

  // Edits never overlap (a wikilink's text holds no Markdown link); apply them from the end.
  edits.sort((a, b) => b.at - a.at);
  let out = text;
  for (const e of edits) out = out.slice(0, e.at) + e.text + out.slice(e.at + e.length);
  return out;
}


/**
 * The page paths a page links to (wikilinks and relative Markdown links), in order of first
 * appearance, read from where Markdown has links (not from code). External links are skipped.
 */
export function linkedPaths(text: string, fromPath: string, exists: (p: string) => boolean): string[] {
  const { view } = linkRegions(text);
  const found = new Set<string>();
  for (const m of view.matchAll(WIKILINK)) {
    const target = resolveWikiTarget(m[1]!, fromPath, exists);
    if (target !== null && target !== fromPath) found.add(target);
  }
  for (const m of view.matchAll(MD_LINK)) {
    if (m[1]!.startsWith("!")) continue;
    const target = resolveMdTarget(m[2]!, fromPath);
    if (target !== null && target.path !== fromPath) found.add(target.path);
  }
  return [...found];
}
