/** Whether a page is live on its workspace's published site, and where (the "View on site" link, the publish toggle's note). */
import { useEffect, useState } from "react";
import { livePages } from "../api/presence.ts";

export interface LiveState {
  /** The site itself is switched on. */
  sitePublished: boolean;
  /** The page's URL on the site, or null when the page is not on it. */
  url: string | null;
}

/** Re-asked whenever `version` changes (pass something that changes on save, e.g. the content hash). */
export function useLivePage(workspaceId: string, path: string, version: string): LiveState | null {
  const [state, setState] = useState<LiveState | null>(null);
  useEffect(() => {
    const controller = new AbortController();
    livePages(workspaceId, controller.signal).then(
      (live) => setState({ sitePublished: live.published, url: live.published ? (live.pages.find((p) => p.path === path)?.url ?? null) : null }),
      () => setState(null),
    );
    return () => controller.abort();
  }, [workspaceId, path, version]);
  return state;
}
