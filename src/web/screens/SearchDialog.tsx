/**
 * Ctrl/Cmd+K: search the current workspace as you type (debounced; a newer query cancels the
 * older request), results with highlighted snippets, arrow keys to choose, Enter to open, Esc to close.
 */
import { useEffect, useId, useRef, useState } from "react";
import { messageOf } from "../api/client.ts";
import type { Workspace } from "../api/types.ts";
import { navigate, pageUrl } from "../app/router.ts";
import { Snippet } from "./search-snippet.tsx";
import { searchWorkspace, type SearchHit as Hit } from "../api/reports.ts";

export const SEARCH_DEBOUNCE_MS = 150;

export default function SearchDialog({ workspace, onClose }: { workspace: Workspace; onClose(): void }) {
  const ref = useRef<HTMLDialogElement>(null);
  const [q, setQ] = useState("");
  const [hits, setHits] = useState<Hit[] | null>(null);
  const [active, setActive] = useState(0);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const listId = useId();

  useEffect(() => {
    const d = ref.current;
    if (d && !d.open) d.showModal();
  }, []);

  useEffect(() => {
    const query = q.trim();
    if (!query) {
      setHits(null);
      setError(null);
      return;
    }
    const ctl = new AbortController();
    const t = setTimeout(async () => {
      setBusy(true);
      try {
        const res = await searchWorkspace(workspace.id, query, ctl.signal);
        setHits(res.items);
        setActive(0);
        setError(null);
      } catch (e) {
        if (!ctl.signal.aborted) setError(messageOf(e));
      } finally {
        if (!ctl.signal.aborted) setBusy(false);
      }
    }, SEARCH_DEBOUNCE_MS);
    return () => {
      clearTimeout(t);
      ctl.abort();
    };
  }, [q, workspace.id]);

  const open = (hit: Hit | undefined) => {
    if (!hit) return;
    onClose();
    navigate(pageUrl(workspace.slug, hit.path));
  };

  return (
    <dialog ref={ref} className="dialog search-dialog" aria-label="Search pages" onClose={onClose} onCancel={onClose}>
      <input
        className="search-input"
        type="search"
        role="combobox"
        aria-label={`Search ${workspace.name}`}
        aria-expanded={!!hits && hits.length > 0}
        aria-controls={listId}
        aria-activedescendant={hits && hits[active] ? `${listId}-${active}` : undefined}
        placeholder={`Search ${workspace.name}…`}
        value={q}
        autoFocus
        onChange={(e) => setQ(e.target.value)}
        onKeyDown={(e) => {
          // A search field would only clear itself on Esc; here Esc closes the dialog.
          if (e.key === "Escape") {
            e.preventDefault();
            onClose();
            return;
          }
          if (!hits || hits.length === 0) return;
          if (e.key === "ArrowDown") {
            e.preventDefault();
            setActive((a) => (a + 1) % hits.length);
          } else if (e.key === "ArrowUp") {
            e.preventDefault();
            setActive((a) => (a - 1 + hits.length) % hits.length);
          } else if (e.key === "Enter") {
            e.preventDefault();
            open(hits[active]);
          }
        }}
      />
      <div className="search-state muted" role="status" aria-live="polite">
        {busy ? "Searching…" : error ? "" : hits ? `${hits.length} ${hits.length === 1 ? "result" : "results"}` : "Type to search titles and text."}
      </div>
      {error && (
        <div className="notice notice-error" role="alert">
          {error}
        </div>
      )}
      <ul className="search-results" id={listId} role="listbox" aria-label="Results">
        {hits?.map((h, i) => (
          <li
            key={h.page_id}
            id={`${listId}-${i}`}
            role="option"
            aria-selected={i === active}
            className={i === active ? "active" : undefined}
            onMouseEnter={() => setActive(i)}
            onClick={() => open(h)}
          >
            <div className="search-title">{h.title}</div>
            <div className="search-path muted">{h.path}</div>
            {h.snippet && (
              <div className="search-snippet">
                <Snippet html={h.snippet} />
              </div>
            )}
          </li>
        ))}
      </ul>
      <div className="search-help muted">↑ ↓ to choose · Enter to open · Esc to close</div>
    </dialog>
  );
}
