/**
 * A small history router: the app has a handful of screens, so a dependency would weigh more than
 * it helps. Links call `navigate`; the back button fires popstate; both re-render subscribers.
 */
import { useSyncExternalStore } from "react";

const listeners = new Set<() => void>();
const notify = () => listeners.forEach((l) => l());
window.addEventListener("popstate", notify);

/** Guards (e.g. unsaved changes) may veto a navigation. */
const guards = new Set<() => boolean>();
export function addNavigationGuard(guard: () => boolean): () => void {
  guards.add(guard);
  return () => guards.delete(guard);
}

let leavingTo: string | null = null;

export function navigate(to: string, opts: { replace?: boolean } = {}): void {
  if (to === location.pathname + location.search) return;
  // Published sites (/p/…) are served by the server, not by this app: load them as documents.
  // Once: after sign-in both the form and the app's own redirect ask for it, and a second load
  // would abort the first.
  if (to === "/p" || to.startsWith("/p/")) {
    if (leavingTo === to) return;
    leavingTo = to;
    if (opts.replace) location.replace(to);
    else location.assign(to);
    return;
  }
  for (const guard of guards) if (!guard()) return;
  if (opts.replace) history.replaceState(null, "", to);
  else history.pushState(null, "", to);
  notify();
  window.scrollTo(0, 0);
}

function subscribe(listener: () => void) {
  listeners.add(listener);
  return () => listeners.delete(listener);
}
const snapshot = () => location.pathname + location.search;

interface Location {
  path: string;
  query: URLSearchParams;
  href: string;
}

export function useLocation(): Location {
  const href = useSyncExternalStore(subscribe, snapshot);
  const url = new URL(href, location.origin);
  return { path: url.pathname, query: url.searchParams, href };
}

/** The URL of a page in the editor; page paths keep their slashes. */
export function pageUrl(slug: string, path: string): string {
  return `/w/${encodeURIComponent(slug)}/p/${path.split("/").map(encodeURIComponent).join("/")}`;
}

/** Intercepts plain clicks on same-origin links so they navigate without a reload. */
export function linkClick(event: React.MouseEvent<HTMLAnchorElement>): void {
  if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
  const href = event.currentTarget.getAttribute("href");
  if (!href || !href.startsWith("/")) return;
  event.preventDefault();
  navigate(href);
}
