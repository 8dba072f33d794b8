/**
 * The workspace's deleted pages (deleted in Quire, or removed by a push), newest first. Restoring
 * brings a page back with its id at its old path, or at the path the server picks when that one is
 * taken — the answer says which, and the screen links to it.
 */
import { useCallback, useEffect, useState } from "react";
import { messageOf } from "../api/client.ts";
import { listTrash, restoreFromTrash, type TrashEntry } from "../api/history.ts";
import type { Workspace } from "../api/types.ts";
import { linkClick, pageUrl } from "../app/router.ts";
import { Notice, Spinner } from "../ui/controls.tsx";
import { when } from "../history/format.ts";

export default function TrashScreen({ workspace, onTreeChanged }: { workspace: Workspace; onTreeChanged(): void }) {
  const [items, setItems] = useState<TrashEntry[] | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState<string | null>(null);
  const [restored, setRestored] = useState<{ from: string; to: string } | null>(null);

  const load = useCallback(async () => {
    try {
      setItems((await listTrash(workspace.id)).items);
      setError(null);
    } catch (e) {
      setError(e);
    }
  }, [workspace.id]);
  useEffect(() => {
    void load();
  }, [load]);

  const restore = async (entry: TrashEntry) => {
    setBusy(entry.trash_id);
    setError(null);
    setRestored(null);
    try {
      const page = await restoreFromTrash(workspace.id, entry.trash_id);
      setRestored({ from: entry.path, to: page.path });
      onTreeChanged();
      await load();
    } catch (e) {
      setError(e);
    } finally {
      setBusy(null);
    }
  };

  return (
    <div className="activity trash">
      <h1>Trash · {workspace.name}</h1>
      <p className="muted">Deleted pages stay in the workspace's git history: any of them can come back with its id and its history.</p>
      {restored && (
        <Notice kind="success">
          Restored{" "}
          <a href={pageUrl(workspace.slug, restored.to)} onClick={linkClick}>
            {restored.to}
          </a>
          {restored.to !== restored.from && <> ({restored.from} is taken by another page, so it came back under a new name)</>}.
        </Notice>
      )}
      {error !== null && <Notice kind="error">{messageOf(error)}</Notice>}
      {items === null ? (
        error === null && <Spinner label="Loading the trash" />
      ) : items.length === 0 ? (
        <p className="muted">The trash is empty.</p>
      ) : (
        <ul className="activity-list" aria-label="Deleted pages">
          {items.map((t) => (
            <li key={t.trash_id}>
              <time dateTime={t.deleted_at} className="muted">
                {when(t.deleted_at)}
              </time>
              <div className="trash-entry">
                <div>
                  <strong>{t.title || t.path}</strong> <code>{t.path}</code>
                  <div className="muted">
                    Deleted {t.deleted_by ? `by ${t.deleted_by}` : ""}
                    {t.source === "git" ? " by a git push or on disk" : ""}
                  </div>
                </div>
                {workspace.rights.create && (
                  <button type="button" className="btn btn-small" disabled={busy !== null} onClick={() => void restore(t)} aria-label={`Restore ${t.title || t.path}`}>
                    {busy === t.trash_id ? "Restoring…" : "Restore"}
                  </button>
                )}
              </div>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
