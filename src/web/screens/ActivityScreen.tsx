/**
 * What happened in the workspace, newest first (filterable by kind), or one page's history when
 * opened with ?page=<path>. Older entries load on demand through the API's cursor.
 */
import { useCallback, useEffect, useState } from "react";
import { messageOf } from "../api/client.ts";
import type { Workspace } from "../api/types.ts";
import { listActivity, type Activity } from "../api/reports.ts";
import { linkClick, pageUrl } from "../app/router.ts";
import { Notice, Spinner } from "../ui/controls.tsx";

const ACTIONS: Record<string, string> = {
  page_created: "created",
  page_updated: "edited",
  page_deleted: "deleted",
  page_moved: "moved",
  comment_added: "commented on",
  comment_resolved: "resolved a comment on",
};

function describe(a: Activity): string {
  const verb = ACTIONS[a.action] ?? a.action.replace(/_/g, " ");
  return verb;
}

export default function ActivityScreen({ workspace, page }: { workspace: Workspace; page: string | null }) {
  const [items, setItems] = useState<Activity[] | null>(null);
  const [cursor, setCursor] = useState<string | null>(null);
  const [action, setAction] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);

  const load = useCallback(
    async (after: string | null) => {
      setBusy(true);
      try {
        const res = await listActivity(workspace.id, { page, action, cursor: after });
        setItems((prev) => (after && prev ? [...prev, ...res.items] : res.items));
        setCursor(res.next_cursor);
        setError(null);
      } catch (e) {
        setError(e);
      } finally {
        setBusy(false);
      }
    },
    [workspace.id, page, action],
  );
  useEffect(() => {
    setItems(null);
    void load(null);
  }, [load]);

  return (
    <div className="activity">
      <h1>{page ? `History of ${page}` : `Activity · ${workspace.name}`}</h1>
      {!page && (
        <div className="field activity-filter">
          <label htmlFor="activity-action">Kind of activity</label>
          <select id="activity-action" value={action} onChange={(e) => setAction(e.target.value)}>
            <option value="">Everything</option>
            {Object.entries(ACTIONS).map(([k, v]) => (
              <option key={k} value={k}>
                Pages {v}
              </option>
            ))}
          </select>
        </div>
      )}
      {error !== null && <Notice kind="error">{messageOf(error)}</Notice>}
      {items === null ? (
        <Spinner label="Loading activity" />
      ) : items.length === 0 ? (
        <p className="muted">Nothing yet.</p>
      ) : (
        <ol className="activity-list" aria-label={page ? "Page history" : "Activity"}>
          {items.map((a) => (
            <li key={a.id}>
              <time dateTime={a.created_at} className="muted">
                {new Date(a.created_at).toLocaleString()}
              </time>
              <div>
                <strong>{a.actor.name || "Someone"}</strong> {describe(a)}{" "}
                {a.page_path &&
                  (a.action === "page_deleted" ? (
                    <code>{a.page_path}</code>
                  ) : (
                    <a href={pageUrl(workspace.slug, a.page_path)} onClick={linkClick}>
                      {a.page_path}
                    </a>
                  ))}
                {a.action === "page_moved" && typeof a.details.moved_from === "string" && <span className="muted"> (from {a.details.moved_from})</span>}
              </div>
            </li>
          ))}
        </ol>
      )}
      {cursor && (
        <button type="button" className="btn" disabled={busy} onClick={() => void load(cursor)}>
          {busy ? "Loading…" : "Show older"}
        </button>
      )}
    </div>
  );
}
