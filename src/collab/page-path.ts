import { ValidationError } from "../core/errors.ts";

// C0, DEL, C1 controls and bidi overrides.
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

/**
 * A page path as comments and filters name it, normalized like the ledger's page paths (NFC,
 * `.md` added when omitted) so `?page=guides/intro` and `guides/intro.md` are the same page.
 * Anything that could never be a page path is refused with 400 naming `field`.
 */
export function normalizeCommentPath(raw: string, field: string): string {
  let path = raw.normalize("NFC");
  const bad = (reason: string): never => {
    throw new ValidationError(`Invalid page path: ${reason}`, field);
  };
  if (path.length === 0) bad("must not be empty");
  if (path.length > 512) bad("must be at most 512 characters");
  if (CONTROL.test(path)) bad("must not contain control characters");
  if (path.includes("\\")) bad("must use '/'");
  if (path.startsWith("/")) bad("must be relative");
  if (!path.toLowerCase().endsWith(".md")) path += ".md";
  else if (!path.endsWith(".md")) path = path.slice(0, -3) + ".md";
  for (const segment of path.split("/")) {
    if (segment === "" || segment === "." || segment === "..") bad("must not contain empty, '.' or '..' segments");
    if (segment.startsWith(".")) bad("segments must not start with '.'");
  }
  return path;
}
