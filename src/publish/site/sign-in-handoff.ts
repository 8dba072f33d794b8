import type { Config } from "../../config.ts";
import type { Principal } from "../../core/principal.ts";
import type { WorkspaceRow } from "../../workspaces/workspace-records.ts";
import { HANDOFF_STATE_COOKIE, SiteCookies, readCookie } from "../site-cookie.ts";
import type { SiteService } from "../site-service.ts";
import { NOT_FOUND, type SiteAnswer, type SiteRequest } from "./site-answer.ts";

/**
 * The sign-in hand-off to a custom domain (docs/decisions/published-sites.md). On the instance,
 * `/p/{slug}/_quire/sign-in?next=/path` turns the member's cookie into a one-time token and sends
 * the browser to `https://{domain}/_quire/sign-in?token=…&next=/path`; there the token is
 * exchanged, once, for the domain's own cookie. Every refusal a stranger could probe is the
 * missing page's 404.
 */
export function signInHandoff(
  deps: { site: SiteService; config: Config },
  ws: WorkspaceRow,
  req: SiteRequest,
  principal: Principal | null,
  role: ReturnType<SiteService["roleOf"]>,
  domain: string | undefined,
): SiteAnswer {
  const { site } = deps;
  const now = Date.now();
  // The token travels in the URL: no Referer may carry it on, and nothing may cache the answer.
  const noStore = { "cache-control": "no-store", "referrer-policy": "no-referrer" };
  const next = localPath(req.query.get("next"));
  if (domain !== undefined) {
    const token = req.query.get("token");
    if (token === null) {
      // The start, on the domain: a state cookie for this browser, then the instance.
      const { state, cookie } = site.cookies.newHandoffState();
      const start = `${deps.config.baseUrl}/p/${encodeURIComponent(ws.slug)}/_quire/sign-in?next=${encodeURIComponent(next)}&state=${state}`;
      return { status: 302, headers: { location: start, "set-cookie": cookie, ...noStore }, body: null };
    }
    const cookie = site.cookies.redeemHandoff(token, readCookie(req.headers.get("cookie"), HANDOFF_STATE_COOKIE), ws.id, domain, now);
    if (!cookie) return NOT_FOUND;
    // The state cookie is left to expire (minutes, only under /_quire/): its token is spent.
    return { status: 302, headers: { location: next, "set-cookie": cookie, ...noStore }, body: null };
  }
  const custom = site.domains.of(ws.id);
  if (!custom || custom.status !== "verified") return NOT_FOUND;
  const state = req.query.get("state");
  // Without the domain's state (a link straight to the instance), the domain starts the hand-off.
  if (!SiteCookies.isState(state)) return { status: 302, headers: { location: `https://${custom.domain}/_quire/sign-in?next=${encodeURIComponent(next)}`, ...noStore }, body: null };
  if (principal === null) {
    const query = req.query.toString();
    return { status: 302, headers: { location: `/login?next=${encodeURIComponent(query ? `${req.fullPath}?${query}` : req.fullPath)}`, ...noStore }, body: null };
  }
  if (principal.kind !== "session" || role === null) return NOT_FOUND;
  const token = site.cookies.issueHandoff(principal.sessionId, ws.id, custom.domain, state, now);
  return { status: 302, headers: { location: `https://${custom.domain}/_quire/sign-in?token=${token}&next=${encodeURIComponent(next)}`, ...noStore }, body: null };
}

/** Where a hand-off may land: a path on the same site (never `//host`, a scheme or a backslash trick); else the root. */
function localPath(next: string | null): string {
  if (!next || next.length > 2000 || !next.startsWith("/") || next.startsWith("//") || /[\\\u0000-\u001f\u007f]/.test(next)) return "/";
  return next;
}
