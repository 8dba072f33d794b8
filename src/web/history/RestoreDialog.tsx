/**
 * "Restore this version": first what will change (the current page → that version, read from the
 * API's diff and turned round), then one restore checked against the page's hash when the dialog
 * opened. A 409 means someone saved since: nothing is restored, and the caller reads the page again.
 */
import { useEffect, useState } from "react";
import { ApiError, messageOf } from "../api/client.ts";
import { diffVersions, restoreVersion, type PageDiff, type VersionEntry } from "../api/history.ts";
import type { Page, Workspace } from "../api/types.ts";
import { Dialog, Notice, Spinner } from "../ui/controls.tsx";
import { DiffView } from "./DiffView.tsx";
import { invertDiff } from "./diff-model.ts";

export function RestoreDialog(props: {
  workspace: Workspace;
  path: string;
  version: VersionEntry;
  unsaved: boolean;
  currentHash(): string;
  onClose(): void;
  onRestored(page: Page): void;
  onStale(): void;
}) {
  const { workspace, path, version } = props;
  const [diff, setDiff] = useState<PageDiff | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  // The hash of the page this confirmation was opened on: a save after it (here or anywhere) makes
  // what the dialog shows out of date, and the restore is then refused rather than done unseen.
  const [shownHash] = useState(props.currentHash);
  useEffect(() => {
    diffVersions(workspace.id, path, version.commit).then((d) => setDiff(invertDiff(d)), setError);
  }, [workspace.id, path, version.commit]);

  const restore = async () => {
    setBusy(true);
    setError(null);
    try {
      props.onRestored(await restoreVersion(workspace.id, { path, commit: version.commit, last_known_hash: shownHash }));
    } catch (e) {
      if (e instanceof ApiError && e.status === 409) props.onStale();
      else setError(e);
    } finally {
      setBusy(false);
    }
  };

  return (
    <Dialog open title="Restore this version?" onClose={props.onClose}>
      <p>
        The page becomes the version of {new Date(version.at).toLocaleString()} by {version.author.name || version.author.email}. This is saved as a new version; the current text stays
        in the history.
      </p>
      {props.unsaved && <Notice kind="warning">This page has unsaved changes. Save them (or wait for the autosave) before restoring, so nothing you typed is replaced.</Notice>}
      {error !== null && <Notice kind="error">{messageOf(error)}</Notice>}
      {diff ? <DiffView diff={diff} label="What will change" /> : error === null && <Spinner label="Loading what will change" />}
      <div className="dialog-actions">
        <button type="button" className="btn" onClick={props.onClose}>
          Cancel
        </button>
        <button type="button" className="btn btn-primary" disabled={busy || props.unsaved || !diff} onClick={() => void restore()}>
          {busy ? "Restoring…" : "Restore"}
        </button>
      </div>
    </Dialog>
  );
}
