/**
 * The History panel beside the editor: the page's versions newest first (author, time, channel,
 * lines added and removed), older ones by cursor; each version's changes, a comparison with the
 * current file, and — for people with edit rights — "Restore this version" (RestoreDialog.tsx).
 */
import { useCallback, useEffect, useState } from "react";
import { messageOf } from "../api/client.ts";
import { diffVersions, listVersions, type VersionEntry } from "../api/history.ts";
import type { Page, Workspace } from "../api/types.ts";
import { Notice, Spinner } from "../ui/controls.tsx";
import { BlameDialog } from "./BlameDialog.tsx";
import { DiffDialog } from "./DiffDialog.tsx";
import { RestoreDialog } from "./RestoreDialog.tsx";
import { shortCommit, when } from "./format.ts";
import { usePagedList } from "./use-paged-list.ts";
import { useShownDiff } from "./use-shown-diff.ts";

const CHANNEL_LABEL: Record<string, string> = { web: "Web", api: "API", mcp: "MCP", git: "Git", restore: "Restore", recovery: "Recovery", import: "Import" };

function initials(name: string): string {
  const words = name.trim().split(/\s+/).filter(Boolean);
  return ((words[0]?.[0] ?? "?") + (words.length > 1 ? (words[words.length - 1]?.[0] ?? "") : "")).toUpperCase();
}

interface Props {
  workspace: Workspace;
  path: string;
  /** Changes whenever the page is saved: the list is read again. */
  version: string;
  /** The editor holds text not saved yet (a restore would replace it). */
  unsaved: boolean;
  currentHash(): string;
  onRestored(page: Page): void;
  /** Someone saved first: the page is read again. */
  onStale(): void;
  onClose(): void;
}

export default function HistoryPanel(props: Props) {
  const { workspace, path } = props;
  const [indexing, setIndexing] = useState(false);
  // What the last restore did; kept when the list is read again (a restore changes the page, which reloads the list).
  const [message, setMessage] = useState<{ kind: "success" | "error"; text: string } | null>(null);
  const { shown, show: showDiff, close: closeDiff } = useShownDiff();
  const [restoring, setRestoring] = useState<VersionEntry | null>(null);
  const [blaming, setBlaming] = useState(false);
  const read = useCallback((after: string | null) => listVersions(workspace.id, path, after), [workspace.id, path]);
  const [noGit, setNoGit] = useState(false);
  const { items, cursor, busy, error, load } = usePagedList(read, (page) => (setIndexing(page.indexing), setNoGit(!page.git)));
  useEffect(() => {
    void load(null);
  }, [load, props.version]);

  const show = (title: string, from: string, to?: string) => showDiff(title, () => diffVersions(workspace.id, path, from, to));

  return (
    <aside className="history-panel" aria-label="Page history">
      <div className="panel-head">
        <h2>History</h2>
        <button type="button" className="btn btn-small" onClick={() => void load(null)} disabled={busy}>
          Refresh
        </button>
        <button type="button" className="btn btn-small" onClick={() => setBlaming(true)}>
          Who wrote each line
        </button>
        <button type="button" className="btn btn-small" onClick={props.onClose} aria-label="Close history">
          Close
        </button>
      </div>
      {message && <Notice kind={message.kind}>{message.text}</Notice>}
      {error !== null && <Notice kind="error">{messageOf(error)}</Notice>}
      {noGit && <Notice>This workspace keeps no git history, so there are no earlier versions to list. The page's Activity shows who changed it and when.</Notice>}
      {indexing && <Notice>The history is still being read from git: older versions may be missing for now.</Notice>}
      {items === null ? (
        <Spinner label="Loading history" />
      ) : items.length === 0 ? (
        <p className="muted">No versions yet.</p>
      ) : (
        <ol className="version-list" aria-label="Versions">
          {items.map((v, i) => {
            const previous = items[i + 1];
            const deleted = v.change === "deleted";
            const label = `${v.author.name || v.author.email}, ${when(v.at)}`;
            return (
              <li key={`${v.commit}:${v.path}`} className="version" aria-label={`Version by ${label}`}>
                <div className="version-meta">
                  <span className="avatar" aria-hidden="true">{initials(v.author.name || v.author.email)}</span>
                  <div>
                    <strong>{v.author.name || v.author.email}</strong> <span className={`channel channel-${v.channel}`}>{CHANNEL_LABEL[v.channel] ?? v.channel}</span>
                    {i === 0 && <span className="channel channel-current">Current</span>}
                    {v.on_remote === false && (
                      <span className="channel channel-local" title="The git remote does not hold this version: not pushed yet, or removed from the remote by a force-push">
                        Not on the remote
                      </span>
                    )}
                    <div className="muted">
                      <time dateTime={v.at}>{when(v.at)}</time> · <code>{shortCommit(v.commit)}</code>
                    </div>
                  </div>
                </div>
                <div className="version-message">{v.message}</div>
                <div className="version-stats">
                  {v.change === "renamed" && v.old_path ? <span>Moved from {v.old_path} · </span> : v.change !== "modified" ? <span>{v.change} · </span> : null}
                  <span className="added-count">+{v.added}</span> <span className="removed-count">−{v.removed}</span>
                  <span className="visually-hidden">
                    {" "}
                    ({v.added} lines added, {v.removed} removed)
                  </span>
                </div>
                {!deleted && (
                  <div className="version-actions">
                    {previous && previous.change !== "deleted" && (
                      <button type="button" className="btn-link" onClick={() => void show(`Changes in ${shortCommit(v.commit)}`, previous.commit, v.commit)}>
                        Show changes
                      </button>
                    )}
                    {i > 0 && (
                      <button type="button" className="btn-link" onClick={() => void show(`${shortCommit(v.commit)} compared with the current page`, v.commit)}>
                        Compare with current
                      </button>
                    )}
                    {i > 0 && workspace.rights.edit && (
                      <button type="button" className="btn-link" onClick={() => (setMessage(null), setRestoring(v))}>
                        Restore this version
                      </button>
                    )}
                  </div>
                )}
              </li>
            );
          })}
        </ol>
      )}
      {cursor && (
        <button type="button" className="btn btn-small" disabled={busy} onClick={() => void load(cursor)}>
          {busy ? "Loading…" : "Show older versions"}
        </button>
      )}
      <DiffDialog shown={shown} onClose={closeDiff} />
      {blaming && <BlameDialog workspaceId={workspace.id} path={path} onClose={() => setBlaming(false)} />}
      {restoring && (
        <RestoreDialog
          workspace={workspace}
          path={path}
          version={restoring}
          unsaved={props.unsaved}
          currentHash={props.currentHash}
          onClose={() => setRestoring(null)}
          onRestored={(page) => {
            setRestoring(null);
            setMessage({ kind: "success", text: `Restored the version of ${when(restoring.at)}. The page's previous text is still in its history.` });
            props.onRestored(page);
          }}
          onStale={() => {
            setRestoring(null);
            setMessage({
              kind: "error",
              text: "Someone saved this page after you opened it, so nothing was restored. The page and its history have been read again: check the change and restore again if you still want to.",
            });
            props.onStale();
            void load(null);
          }}
        />
      )}
    </aside>
  );
}
