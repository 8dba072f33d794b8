/** The people of a workspace (ids and names), cached per workspace for the tab's lifetime. */
import { useEffect, useState } from "react";
import { listPeople } from "../api/presence.ts";
import type { Person } from "../api/types.ts";

export type { Person } from "../api/types.ts";

const cache = new Map<string, Promise<Person[]>>();

function loadPeople(workspaceId: string, fresh = false): Promise<Person[]> {
  let p = cache.get(workspaceId);
  if (!p || fresh) {
    p = listPeople(workspaceId).then((l) => l.items);
    p.catch(() => cache.delete(workspaceId));
    cache.set(workspaceId, p);
  }
  return p;
}

/** People of the workspace; `missing` ids (someone who just joined) trigger one fresh read. */
export function usePeople(workspaceId: string | undefined, missing: string[] = []): Person[] {
  const [people, setPeople] = useState<Person[]>([]);
  const key = missing.join(",");
  useEffect(() => {
    if (!workspaceId) return;
    let cancelled = false;
    void loadPeople(workspaceId).then(async (list) => {
      const unknown = key !== "" && key.split(",").some((id) => !list.some((p) => p.id === id));
      const final = unknown ? await loadPeople(workspaceId, true) : list;
      if (!cancelled) setPeople(final);
    }, () => {});
    return () => {
      cancelled = true;
    };
  }, [workspaceId, key]);
  return people;
}
