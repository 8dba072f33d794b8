import type { PageVisibility } from "../access/restrictions/visibility.ts";

/**
 * What a WebSocket client of a workspace with restricted folders is told of one event
 * (docs/decisions/restricted-folders.md): an event naming a page the person may not see is not
 * sent; a move between a hidden and a visible place reaches them as the page appearing or going;
 * a bulk sync lists only the pages they see. Events naming no page pass unchanged.
 */
type Payload = Record<string, unknown>;
interface Shown {
  type: string;
  payload: Payload;
}

/** The page paths an event names (none: it is about the workspace, not a page). */
function pathsOf(payload: Payload): string[] {
  const out: string[] = [];
  for (const key of ["path", "page_path", "old_path", "new_path"]) if (typeof payload[key] === "string") out.push(payload[key] as string);
  if (Array.isArray(payload.paths)) for (const p of payload.paths) if (typeof p === "string") out.push(p);
  return out;
}

/** Whether the event names a page at all (only those are checked per person). */
export function namesPages(payload: Payload): boolean {
  return pathsOf(payload).length > 0;
}

/** The event as this person may see it, or null when it is none of theirs. */
export function shownTo(type: string, payload: Payload, vis: PageVisibility): Shown | null {
  if (!vis.restricted) return { type, payload };
  if (type === "page-moved" && typeof payload.old_path === "string" && typeof payload.new_path === "string") {
    const before = vis.sees(payload.old_path);
    const after = vis.sees(payload.new_path);
    if (before && after) return { type, payload };
    const { old_path, new_path, ...rest } = payload;
    if (after) return { type: "page-created", payload: { ...rest, path: new_path } };
    if (before) return { type: "page-deleted", payload: { ...rest, path: old_path } };
    return null;
  }
  if (Array.isArray(payload.paths)) {
    const paths = (payload.paths as unknown[]).filter((p): p is string => typeof p === "string" && vis.sees(p));
    if (paths.length === 0) return null;
    return { type, payload: { ...payload, paths, changed_count: paths.length } };
  }
  return pathsOf(payload).every((p) => vis.sees(p)) ? { type, payload } : null;
}
