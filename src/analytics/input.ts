/**
 * What analytics takes from a request, and what it leaves: normalised queries and paths, the
 * referring host only, the consent cookie and the browser's opt-out signals, and whether the
 * caller says it is automated. Nothing here stores anything.
 */

/** Longest path and query kept; longer ones are cut (a real page path or query is far shorter). */
const MAX_PATH_LENGTH = 300;
const MAX_QUERY_LENGTH = 100;

/** What a search query is counted as: trimmed, lower case, runs of white space as one space, cut to length. */
export function normalizeQuery(q: string): string {
  return q.normalize("NFKC").trim().toLowerCase().replace(/\s+/g, " ").slice(0, MAX_QUERY_LENGTH).replace(/[\u0000-\u001f\u007f]/g, "");
}

/** Anything normalizePath would change in a path that starts with `/`. */
const PATH_NEEDS_WORK = /[?#\u0000-\u001f\u007f]/;

export function normalizePath(path: string): string {
  // The usual case (every page view of a site): already a clean path, kept as it is.
  if (path.length <= MAX_PATH_LENGTH && path.startsWith("/") && !PATH_NEEDS_WORK.test(path)) return path;
  let p = path.split(/[?#]/, 1)[0]!.replace(/[\u0000-\u001f\u007f]/g, "");
  if (!p.startsWith("/")) p = `/${p}`;
  return p.slice(0, MAX_PATH_LENGTH);
}

/** The referring host, when it is a real http(s) URL of another site; null otherwise. */
export function referrerHost(referrer: string | null | undefined, ownHost: string | null): string | null {
  if (!referrer) return null;
  try {
    const u = new URL(referrer);
    if (u.protocol !== "http:" && u.protocol !== "https:") return null;
    const host = u.hostname.toLowerCase().slice(0, 253);
    return host === "" || host === ownHost ? null : host;
  } catch {
    return null;
  }
}

/** Whether a request carries a "do not track me" signal (Global Privacy Control, Do Not Track). */
function optedOut(headers: Headers): boolean {
  return headers.get("sec-gpc") === "1" || headers.get("dnt") === "1";
}

/** Crawlers, link previews and monitors announce themselves; their fetches are not readers' views. */
const AUTOMATED = /bot|crawl|spider|slurp|preview|monitor|headless|lighthouse|curl\/|wget\/|python-requests|go-http-client/i;
export function isAutomated(userAgent: string | null): boolean {
  return userAgent === null || userAgent === "" || AUTOMATED.test(userAgent);
}

export const CONSENT_COOKIE = "quire_analytics_consent";

/** Compiled once: consent is read for every page view of every published site. */
const GRANTED = new RegExp(`(?:^|;\\s*)${CONSENT_COOKIE}=granted(?:;|$)`);

/** Consent as the cookie set by POST /api/analytics/consent says, overruled by an opt-out signal. */
export function consentOf(headers: Headers): boolean {
  // No cookie, no consent: most views end here, without looking for the opt-out signals.
  const cookie = headers.get("cookie");
  if (cookie === null) return false;
  return !optedOut(headers) && GRANTED.test(cookie);
}

