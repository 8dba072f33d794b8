/**
 * Tells the server which page this tab has open (page-level presence) and keeps the workspace's
 * picture of who views what current: one ordered queue of reports, so "left page A" never lands
 * after "opened page B"; the open page is repeated every 30 s so it does not lapse.
 */
import { useEffect } from "react";
import { listViewing, reportViewing } from "../api/presence.ts";
import type { LiveClient } from "./live.ts";

const REPEAT_MS = 30_000;
let queue: Promise<unknown> = Promise.resolve();

function report(workspaceId: string, path: string | null) {
  queue = queue.then(() => reportViewing(workspaceId, path).catch(() => {}));
}

export function useViewingReport(live: LiveClient | null, workspaceId: string | undefined, path: string | undefined) {
  const connected = live?.connections ?? 0;
  useEffect(() => {
    if (!workspaceId) return;
    report(workspaceId, path ?? null);
    const t = path ? setInterval(() => report(workspaceId, path), REPEAT_MS) : null;
    return () => {
      if (t) clearInterval(t);
    };
  }, [workspaceId, path]);
  // Leaving the workspace (or the app) clears this tab's page.
  useEffect(() => {
    if (!workspaceId) return;
    return () => report(workspaceId, null);
  }, [workspaceId]);
  // On every (re)connect: read who views what now.
  useEffect(() => {
    if (!live || !workspaceId || connected === 0) return;
    void listViewing(workspaceId).then(
      (l) => live.setViewing(workspaceId, l.items),
      () => {},
    );
  }, [live, workspaceId, connected]);
}
