/**
 * ETags of the published site's answers and the If-None-Match check. Text answers (pages, feeds,
 * Markdown) are tagged by a SHA-256 prefix of their text, made once per cached version; bytes read
 * per request (theme files, uploads) by Bun's fast non-cryptographic hash.
 */

/** The ETag of a text answer. */
export function etagOf(text: string): string {
  return `"${new Bun.CryptoHasher("sha256").update(text).digest("hex").slice(0, 32)}"`;
}

/** The ETag of a file's bytes. */
export function bytesEtag(bytes: Uint8Array): string {
  return `"${Bun.hash(bytes).toString(16)}"`;
}

/** Whether a request's If-None-Match names this ETag (weak or strong) or `*`. */
export function etagMatches(ifNoneMatch: string | null, etag: string): boolean {
  if (!ifNoneMatch) return false;
  return ifNoneMatch.split(",").some((t) => t.trim().replace(/^W\//, "") === etag || t.trim() === "*");
}
