/**
 * What changed in the workspace since a date: pages created, edited, moved and deleted, newest
 * first, each edit and move with its own diff a click away (the API's `diff` link: the version
 * before it → this one), the reviewer's view of a busy week.
 */
import { useCallback, useEffect, useState } from "react";
import { messageOf } from "../api/client.ts";
import { diffVersions, listChanges, type ChangeEntry } from "../api/history.ts";
import type { Workspace } from "../api/types.ts";
import { linkClick, pageUrl } from "../app/router.ts";
import { Notice, Spinner } from "../ui/controls.tsx";
import { DiffDialog } from "../history/DiffDialog.tsx";
import { shortCommit, when } from "../history/format.ts";
import { usePagedList } from "../history/use-paged-list.ts";
import { useShownDiff } from "../history/use-shown-diff.ts";

const WEEK_MS = 7 * 24 * 3600 * 1000;
const dateInput = (d: Date) => d.toISOString().slice(0, 10);

/** The commits of a change's diff link (…/history/diff?path=…&from=…&to=…). */
function diffRef(entry: ChangeEntry): { path: string; from: string; to?: string } | null {
  if (!entry.diff) return null;
  const q = new URL(entry.diff, location.origin).searchParams;
  const from = q.get("from");
  return from ? { path: q.get("path") ?? entry.path, from, to: q.get("to") ?? undefined } : null;
}

export default function ChangesScreen({ workspace }: { workspace: Workspace }) {
  const [since, setSince] = useState(() => dateInput(new Date(Date.now() - WEEK_MS)));
  const { shown, show: showDiff, close: closeDiff } = useShownDiff();
  const read = useCallback((after: string | null) => listChanges(workspace.id, since, after), [workspace.id, since]);
  const { items, setItems, cursor, busy, error, load } = usePagedList(read);

  useEffect(() => {
    setItems(null);
    void load(null);
  }, [load]);

  const show = async (entry: ChangeEntry) => {
    const ref = diffRef(entry);
    if (!ref) return;
    await showDiff(`Changes to ${entry.path} in ${shortCommit(entry.commit)}`, () => diffVersions(workspace.id, ref.path, ref.from, ref.to));
  };

  return (
    <div className="activity changes">
      <h1>Changes · {workspace.name}</h1>
      <div className="field activity-filter">
        <label htmlFor="changes-since">Changed since</label>
        <input id="changes-since" type="date" value={since} max={dateInput(new Date())} onChange={(e) => e.target.value && setSince(e.target.value)} />
      </div>
      {error !== null && <Notice kind="error">{messageOf(error)}</Notice>}
      {items === null ? (
        error === null && <Spinner label="Loading changes" />
      ) : items.length === 0 ? (
        <p className="muted">Nothing changed since then.</p>
      ) : (
        <ol className="activity-list" aria-label="Changes">
          {items.map((c) => (
            <li key={`${c.commit}:${c.path}`}>
              <time dateTime={c.at} className="muted">
                {when(c.at)}
              </time>
              <div>
                <strong>{c.author.name || c.author.email}</strong> {c.change}{" "}
                {c.change === "deleted" ? (
                  <code>{c.path}</code>
                ) : (
                  <a href={pageUrl(workspace.slug, c.path)} onClick={linkClick}>
                    {c.path}
                  </a>
                )}
                {c.old_path && <span className="muted"> (from {c.old_path})</span>} <span className={`channel channel-${c.channel}`}>{c.channel}</span>
                {c.diff && (
                  <>
                    {" "}
                    <button type="button" className="btn-link" onClick={() => void show(c)} aria-label={`Show changes to ${c.path} in ${shortCommit(c.commit)}`}>
                      Show changes
                    </button>
                  </>
                )}
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
      <DiffDialog shown={shown} onClose={closeDiff} />
    </div>
  );
}
