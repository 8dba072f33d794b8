import type { Principal } from "../../core/principal.ts";
import { NOT_FOUND_HTML } from "./layout.ts";

/** A request to a published site, whatever the transport (the /p/{slug}/… route or a custom domain). */
export interface SiteRequest {
  method: string;
  /** The raw (still percent-encoded) path inside the site, starting with `/`. */
  tail: string;
  query: URLSearchParams;
  headers: Headers;
  /** The caller from `Authorization` (an API key or access token), if any. */
  principal: Principal | null;
  /** Where the site is mounted: `/p/{slug}` or `` on a custom domain. */
  prefix: string;
  /** Absolute origin for canonical URLs (BASE_URL, or https://{custom domain}). */
  origin: string;
  /** The request's own URL path (for `/login?next=`). */
  fullPath: string;
  /** The client's address (for the day's salted visitor hash, with consent only; never stored). */
  ip?: string;
}

/** A page served to a reader (a 200 or a 304 of a GET), for analytics. */
export interface SiteView {
  workspaceId: string;
  path: string;
  headers: Headers;
  ip: string | undefined;
  /** Known to carry no Cookie header (so no consent cookie): the header need not be read again. */
  cookieless?: boolean;
}

/** A site search, for analytics. */
export interface SiteSearch {
  workspaceId: string;
  query: string;
  results: number;
}

export interface SiteAnswer {
  status: number;
  /** This response's own headers (beyond `shared`). */
  headers: Record<string, string>;
  /**
   * Headers shared by every response of one cached page version (type, caching, ETag, referrer
   * policy, vary, nosniff), built once; never modified (copy them: `new Headers(shared)`). Sent
   * together with `headers`.
   */
  shared?: Headers;
  body: string | Uint8Array | Blob | null;
  /**
   * The same answer as a finished response, made once per cached page version (a 200 of a GET):
   * a transport may send a clone of it, with its own headers added, instead of building one from
   * `shared`, `headers` and `body`. Never sent or modified itself.
   */
  response?: Response;
  /**
   * Whether shared caches may store it (its Cache-Control is `public`), when the answer knows
   * already; otherwise read from its headers (storedByCaches).
   */
  storable?: boolean;
}

/**
 * Whether a shared cache (a CDN, a reverse proxy) may store this answer and hand it to other
 * readers: its Cache-Control is `public`. Such an answer carries nothing particular to one request
 * (no request id, no rate-limit state): a cache would repeat one reader's values to every other
 * reader until it expires, and a 304 would even overwrite the stored ones
 * (docs/decisions/site-caching.md).
 */
export function storedByCaches(answer: SiteAnswer): boolean {
  if (answer.storable !== undefined) return answer.storable;
  const control = answer.headers["cache-control"] ?? answer.shared?.get("cache-control");
  return control !== undefined && control !== null && control.startsWith("public");
}

/** Every "no" a reader may not learn about: the same answer as a page that does not exist. */
export const NOT_FOUND: SiteAnswer = {
  status: 404,
  headers: { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" },
  body: NOT_FOUND_HTML,
};
