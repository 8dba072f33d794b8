import { posix } from "node:path";
import { slug } from "github-slugger";
import { resolveWikiTarget } from "../../content/links.ts";
import { parentOf } from "../../content/paths.ts";
import { decodeEntities } from "./escape.ts";
import type { LinkTarget } from "./types.ts";

/**
 * How a link destination written in a page becomes something the caller can turn into a URL.
 * Three outcomes: an external URL kept as written (a safe scheme only), a same-page anchor, or a
 * workspace target (page or file, workspace-relative and normalized) for the caller's
 * `resolveLink`. Everything else is broken with a reason the page shows in a tooltip.
 */
export type Classified =
  | { kind: "external"; href: string }
  | { kind: "anchor"; href: string }
  | { kind: "target"; target: LinkTarget; query?: string }
  | { kind: "broken"; reason: string };

/** Schemes a link may carry; anything else (javascript:, data:, vbscript:, file:, …) is refused. */
export const SAFE_SCHEMES = new Set(["http", "https", "mailto", "tel"]);
/** Inline images of raster types (never SVG, never HTML): harmless in an <img>. */
const RASTER_DATA = /^data:image\/(png|jpeg|gif|webp|avif);base64,[a-z0-9+/=\s]*$/i;
const SCHEME = /^([a-z][a-z0-9+.-]*):/i;
// What browsers ignore inside a URL (tabs, newlines) or strip at its ends (C0 controls and space).
const URL_NOISE = /[\u0000-\u0020\u007f-\u009f]/g;

/** The scheme a browser would see in `raw`, lowercased, or null for a relative reference. */
export function schemeOf(raw: string): string | null {
  const cleaned = decodeEntities(raw).replace(URL_NOISE, "");
  const m = SCHEME.exec(cleaned);
  return m ? m[1]!.toLowerCase() : null;
}

/** A URL as an attribute may carry it: characters outside URLs percent-encoded, existing escapes kept (marked's cleanUrl). */
function encodeUrl(url: string): string {
  try {
    return encodeURI(url).replace(/%25/g, "%");
  } catch {
    return url.replace(/[^\x21-\x7e]/g, (c) => encodeURIComponent(c).replace(/%25/g, "%"));
  }
}

function safeDecode(text: string): string | null {
  try {
    return decodeURIComponent(text);
  } catch {
    return null;
  }
}

/**
 * A Markdown link or image destination, relative to the page at `pagePath`. Relative paths are
 * percent-decoded before they are normalized (so `%2e%2e/` climbs like `../` and is caught), a
 * backslash counts as a slash (browsers read it so), and a path that climbs above the workspace
 * root is broken. A destination ending in `.md` is a page; `dir/` is that folder's `index.md`.
 */
export function classifyHref(href: string, pagePath: string, forImage = false): Classified {
  const raw = decodeEntities(href).trim();
  // An empty destination is the page itself (CommonMark keeps it as href="").
  if (raw === "") return { kind: "anchor", href: "" };
  const scheme = schemeOf(raw);
  if (scheme !== null) {
    if (forImage ? scheme === "http" || scheme === "https" : SAFE_SCHEMES.has(scheme)) return { kind: "external", href: encodeUrl(raw) };
    if (forImage && scheme === "data" && RASTER_DATA.test(raw)) return { kind: "external", href: raw };
    return { kind: "broken", reason: `links with the ${scheme}: scheme are not allowed` };
  }
  const compact = raw.replace(URL_NOISE, "");
  if (/^[\\/]{2}/.test(compact)) return { kind: "external", href: encodeUrl("https:" + compact.replace(/\\/g, "/")) };
  if (raw.startsWith("#")) return { kind: "anchor", href: encodeUrl(raw) };
  const cut = raw.search(/[?#]/);
  const pathPart = cut >= 0 ? raw.slice(0, cut) : raw;
  const hashAt = raw.indexOf("#");
  const anchor = hashAt >= 0 ? safeDecode(raw.slice(hashAt + 1)) ?? raw.slice(hashAt + 1) : undefined;
  if (pathPart === "") return { kind: "anchor", href: encodeUrl(raw) };
  const decoded = safeDecode(pathPart);
  if (decoded === null) return { kind: "broken", reason: "malformed percent-encoding" };
  if (/[\u0000-\u001f]/.test(decoded)) return { kind: "broken", reason: "control characters in the path" };
  const slashed = decoded.replace(/\\/g, "/");
  const joined = slashed.startsWith("/") ? slashed.replace(/^\/+/, "") : posix.join(parentOf(pagePath), slashed);
  let path = posix.normalize(joined === "" ? "." : joined);
  if (path === ".." || path.startsWith("../") || path.startsWith("/")) return { kind: "broken", reason: "the link leaves the workspace" };
  const folder = slashed.endsWith("/") || path === ".";
  if (path === ".") path = "";
  path = path.replace(/\/+$/, "");
  const q = raw.indexOf("?");
  const query = q >= 0 && (hashAt < 0 || q < hashAt) ? raw.slice(q, hashAt >= 0 ? hashAt : undefined) : "";
  const target: LinkTarget = folder
    ? { kind: "page", path: path === "" ? "index.md" : `${path}/index.md` }
    : { kind: path.toLowerCase().endsWith(".md") && !forImage ? "page" : "file", path };
  return query.length > 1 ? { kind: "target", target: withAnchor(target, anchor), query: encodeUrl(query) } : { kind: "target", target: withAnchor(target, anchor) };
}

function withAnchor(target: LinkTarget, anchor: string | undefined): LinkTarget {
  return anchor ? { ...target, anchor } : target;
}

/**
 * A wikilink target (`path`, `path#heading`, `#heading`): workspace-relative, `.md` optional, tried
 * relative to the page's folder when nothing exists at the root path (the ledger's own rule, see
 * src/content/links.ts). The heading becomes the anchor the target page's heading ids use.
 */
export function classifyWikiTarget(target: string, heading: string | undefined, pagePath: string, exists: (p: string) => boolean): Classified {
  const anchor = heading !== undefined && heading.trim() !== "" ? slug(heading.trim()) : undefined;
  const t = target.trim();
  if (t === "") return anchor ? { kind: "anchor", href: `#${anchor}` } : { kind: "broken", reason: "empty wikilink" };
  if (/[\u0000-\u001f\\]/.test(t)) return { kind: "broken", reason: "invalid characters in the wikilink" };
  if (SCHEME.test(t)) return { kind: "broken", reason: "a wikilink names a page, not a URL" };
  // The ledger reads wikilink targets as written; a percent sequence is decoded here as well so
  // `%2e%2e/` cannot sneak past the climb check of a caller that decodes later.
  const decoded = safeDecode(t) ?? t;
  const resolved = resolveWikiTarget(decoded, pagePath, exists);
  if (resolved === null || resolved === ".." || resolved.startsWith("../") || resolved.startsWith("/")) {
    return { kind: "broken", reason: "the link leaves the workspace" };
  }
  return { kind: "target", target: withAnchor({ kind: "page", path: resolved }, anchor) };
}
