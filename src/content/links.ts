import { posix } from "node:path";
import { parentOf } from "./paths.ts";

/**
 * Links between pages and their rewriting when a page moves. Two kinds:
 * - wikilinks `[[target]]`, `[[target|text]]`, `[[target#heading]]`: the target is a workspace
 *   path with or without `.md` (a leading `/` is allowed); when nothing lives at that path it is
 *   tried relative to the linking page's folder;
 * - Markdown links `[text](../a/b.md#h "title")` with a relative (or `/`-rooted) `.md` target.
 * Rewriting edits only the link target text; fenced code blocks and inline code are left alone.
 */
const WIKILINK = /\[\[([^\[\]|#\n]+?)(#[^\[\]|\n]*)?(\|[^\[\]\n]*)?\]\]/g;
const MD_LINK = /(!?\[(?:[^\[\]\n]|\[[^\[\]\n]*\])*\]\(\s*)(<[^>\n]*>|[^\s()<>]+)((?:\s+"[^"\n]*")?\s*\))/g;
const FENCE = /^ {0,3}(`{3,}|~{3,})/;

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

/** Applies `fn` to the parts of Markdown outside fenced code blocks and inline code spans. */
function outsideCode(text: string, fn: (chunk: string) => string): string {
  const out: string[] = [];
  let fence: string | null = null;
  for (const line of text.split(/(?<=\n)/)) {
    const m = FENCE.exec(line);
    if (fence !== null) {
      out.push(line);
      if (m && m[1]![0] === fence[0] && m[1]!.length >= fence.length && line.trim() === m[1]) fence = null;
      continue;
    }
    if (m) {
      fence = m[1]!;
      out.push(line);
      continue;
    }
    // Inline code spans: split on backtick runs and leave the code parts alone.
    const parts = line.split(/(`+[^`]*`+)/);
    out.push(parts.map((p, i) => (i % 2 === 1 ? p : fn(p))).join(""));
  }
  return out.join("");
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
  return outsideCode(text, (chunk) =>
    chunk
      .replace(WIKILINK, (whole, target: string, heading: string | undefined, label: string | undefined) => {
        const resolved = resolveWikiTarget(target, resolveFrom, (p) => p === oldPath || exists(p));
        if (resolved !== oldPath) return whole;
        const keepMd = target.trim().toLowerCase().endsWith(".md");
        const newTarget = (target.trim().startsWith("/") ? "/" : "") + (keepMd ? newPath : newPath.replace(/\.md$/, ""));
        return `[[${newTarget}${heading ?? ""}${label ?? ""}]]`;
      })
      .replace(MD_LINK, (whole, head: string, url: string, tail: string) => {
        if (head.startsWith("!")) return whole;
        const target = resolveMdTarget(url, resolveFrom);
        if (!target) return whole;
        let dest: string;
        if (target.path === oldPath) dest = newPath;
        else if (opts.selfMovedFrom !== undefined && exists(target.path)) dest = target.path;
        else return whole;
        const bare = url.startsWith("<") ? url.slice(1, -1) : url;
        const rooted = bare.startsWith("/");
        const rel = rooted ? "/" + (bare.includes("%") ? encodeURI(dest) : dest) : relativeUrl(fromPath, dest, bare.includes("%"), false);
        const next = url.startsWith("<") ? `<${rel}${target.suffix}>` : `${rel}${target.suffix}`;
        return next === url ? whole : `${head}${next}${tail}`;
      }),
  );
}

/** Every page path the text links to (wikilinks and relative Markdown links), for quick filtering. */
export function mentionsPath(text: string, path: string): boolean {
  const stem = posix.basename(path).replace(/\.md$/, "");
  return text.includes(stem);
}
