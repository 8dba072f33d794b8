import { lstatSync, mkdirSync, realpathSync } from "node:fs";
import { join, resolve, sep } from "node:path";
import { ValidationError } from "../core/errors.ts";
import { CONTROL } from "../core/validate.ts";

/**
 * Page paths as docs/architecture.md §5 fixes them: relative, `/`-separated, ending in `.md` (added when
 * omitted). Everything that could reach outside the workspace, or into `.git/` and `.quire/`, is
 * refused with 400 VALIDATION_ERROR naming `field` (default "path").
 *
 * Reserved: the first segment `assets` holds uploads (not pages), and the bare segments `tree`,
 * `reorder`, `move` and `uploads` directly under a workspace are endpoints, so a page there must be
 * addressed with its `.md` suffix (`tree.md`).
 */
export const MAX_PATH_LENGTH = 512;
const MAX_SEGMENT_BYTES = 200;
// A percent sequence that survived decoding: a double-encoded trick like %252e%252e.
const ENCODED = /%[0-9a-f]{2}/i;
const WINDOWS_FORBIDDEN = /[<>:"|?*]/;
// Names Windows gives to devices whatever follows a dot ("nul.md" is the null device there): a save
// to one would be acknowledged and kept nowhere, on a Windows server or in a Windows clone.
const WINDOWS_DEVICE = /^(con|prn|aux|nul|com[1-9¹²³]|lpt[1-9¹²³])(\.|$)/i;

function bad(reason: string, field: string): never {
  throw new ValidationError(`Invalid path: ${reason}`, field);
}

/** Validates and normalizes a page path (already URL-decoded). */
export function normalizePagePath(raw: unknown, field = "path"): string {
  if (typeof raw !== "string") bad("must be a string", field);
  let path = raw.normalize("NFC");
  if (path.length === 0) bad("must not be empty", field);
  if (path.length > MAX_PATH_LENGTH) bad(`must be at most ${MAX_PATH_LENGTH} characters`, field);
  if (CONTROL.test(path)) bad("must not contain control characters", field);
  if (path.includes("\\")) bad("must use '/' and no backslashes", field);
  if (ENCODED.test(path)) bad("must not contain percent-encoded sequences", field);
  if (path.startsWith("/") || /^[a-zA-Z]:/.test(path)) bad("must be relative", field);
  if (WINDOWS_FORBIDDEN.test(path)) bad('must not contain < > : " | ? *', field);
  if (!path.toLowerCase().endsWith(".md")) path += ".md";
  else if (!path.endsWith(".md")) path = path.slice(0, -3) + ".md";
  const segments = path.split("/");
  for (const segment of segments) {
    if (segment === "") bad("must not contain empty segments", field);
    if (segment === "." || segment === "..") bad("must not contain '.' or '..' segments", field);
    if (segment.startsWith(".")) bad("segments must not start with '.'", field);
    if (segment.endsWith(" ") || segment.startsWith(" ")) bad("segments must not start or end with a space", field);
    // Windows drops a trailing dot: "guide." and "guide" would be one folder there.
    if (segment.endsWith(".")) bad("segments must not end with '.'", field);
    if (WINDOWS_DEVICE.test(segment)) bad("must not use a name Windows reserves for a device (CON, PRN, AUX, NUL, COM1–9, LPT1–9)", field);
    if (Buffer.byteLength(segment) > MAX_SEGMENT_BYTES) bad("a segment is too long", field);
  }
  if (segments[segments.length - 1] === ".md") bad("needs a file name", field);
  if (segments.length > 1 && segments[0]!.toLowerCase() === "assets") bad("'assets/' holds uploads, not pages", field);
  return path;
}

/** Decodes a URL path tail once; malformed escapes are a bad path, not a server error. */
export function decodeUrlPath(raw: string, field = "path"): string {
  let decoded: string;
  try {
    decoded = decodeURIComponent(raw);
  } catch {
    bad("malformed percent-encoding", field);
  }
  // Raw bytes that are not UTF-8 in the request line (0xE9 sent as is) reach us already replaced
  // by U+FFFD: refused like their percent-encoded form, which could never decode to a name either.
  if (decoded.includes("\uFFFD")) bad("malformed percent-encoding", field);
  return decoded;
}

/** A folder path for tree/reorder: "" is the root; otherwise validated like page segments. */
export function normalizeFolderPath(raw: unknown, field = "parent_path"): string {
  if (raw === undefined || raw === null) return "";
  if (typeof raw !== "string") bad("must be a string", field);
  const trimmed = raw.replace(/^\/+|\/+$/g, "");
  if (trimmed === "") return "";
  const asPage = normalizePagePath(`${trimmed}/x.md`, field);
  return asPage.slice(0, -"/x.md".length);
}

/** The folder a page sits in ("" at the root). */
export function parentOf(path: string): string {
  const i = path.lastIndexOf("/");
  return i < 0 ? "" : path.slice(0, i);
}

/**
 * The directory of one workspace on disk. Every file operation goes through `resolveInside`, which
 * re-checks the resolved path and refuses symlinks that lead out of the workspace.
 */
export class WorkspaceDir {
  readonly root: string;
  constructor(dataDir: string, readonly workspaceId: string) {
    if (!/^[0-9A-HJKMNP-TV-Z]{26}$/.test(workspaceId)) throw new Error("workspace id must be a ULID");
    this.root = resolve(dataDir, "workspaces", workspaceId);
  }

  ensure(): void {
    mkdirSync(this.root, { recursive: true, mode: 0o700 });
  }

  /**
   * Absolute path of a validated relative path. Throws when the lexical or the real location
   * (after following any symlinked folder) is outside the workspace, or when the file itself is a
   * symlink: a link inside the tree must never become a way to read or overwrite files elsewhere.
   */
  resolveInside(relative: string): string {
    const abs = resolve(this.root, relative);
    if (!abs.startsWith(this.root + sep)) bad("resolves outside the workspace", "path");
    let realRoot: string;
    try {
      realRoot = realpathSync(this.root);
    } catch {
      return abs; // no workspace folder yet: nothing on disk can point anywhere
    }
    // Walk down from the root: every existing component must be a real folder (or the final file).
    let current = this.root;
    const parts = relative.split("/");
    for (let i = 0; i < parts.length; i++) {
      current = join(current, parts[i]!);
      let st;
      try {
        st = lstatSync(current);
      } catch {
        break; // the rest does not exist yet
      }
      if (st.isSymbolicLink()) {
        const real = safeRealpath(current);
        if (real === null || !(real + sep).startsWith(realRoot + sep) || i === parts.length - 1) {
          bad("is a symbolic link", "path");
        }
      }
    }
    return abs;
  }
}

function safeRealpath(p: string): string | null {
  try {
    return realpathSync(p);
  } catch {
    return null;
  }
}

/**
 * Agents name pages with a leading `/` (`/guide/intro`); the ledger's paths are relative. (The MCP
 * tools import it from here, so `quire mcp` answers tools/list without loading the page services.)
 */
export function agentPagePath(raw: string, field = "path"): string {
  return normalizePagePath(raw.startsWith("/") && !raw.startsWith("//") ? raw.slice(1) : raw, field);
}
