/**
 * Git sync of a workspace (admins): the remote (fixed at creation), its write-only access token,
 * branch, auto-commit and poll interval; the webhook URL and secret for the git host; Sync now with its result; the status; and
 * the open conflicts, each with ours and theirs side by side and the three resolutions.
 */
import { useEffect, useState } from "react";
import { listConflicts, readConflict, readSettings, regenerateWebhookSecret, resolveConflict, saveSettings, syncNow, type ConflictDetail, type ConflictSummary, type SyncResult } from "../api/settings.ts";
import type { Workspace } from "../api/types.ts";
import { Field, Notice, Spinner } from "../ui/controls.tsx";
import { CopyButton, SecretBox, useAction, useResource } from "./common.tsx";

/** `20261121T131855Z` → a local date and time. */
function when(stamp: string): string {
  const m = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(stamp);
  return m ? new Date(`${m[1]}-${m[2]}-${m[3]}T${m[4]}:${m[5]}:${m[6]}Z`).toLocaleString() : stamp;
}

function ConflictView({ workspace, summary, onResolved }: { workspace: Workspace; summary: ConflictSummary; onResolved(): void }) {
  const [detail, setDetail] = useState<ConflictDetail | null>(null);
  const [merged, setMerged] = useState<string | null>(null);
  const action = useAction();
  useEffect(() => {
    void readConflict(workspace.id, summary.id).then(setDetail, () => setDetail(null));
  }, [workspace.id, summary.id]);
  const resolve = async (resolution: "kept_local" | "kept_remote" | "custom") => {
    const body = resolution === "custom" ? { resolution, content: merged ?? "" } : { resolution };
    if ((await action.run(() => resolveConflict(workspace.id, summary.id, body))) !== undefined) onResolved();
  };
  return (
    <li className="conflict-item" aria-label={`Conflict in ${summary.path}`}>
      <h4>
        <code>{summary.path}</code> <span className="muted">since {when(summary.timestamp)}</span>
      </h4>
      {action.error && <Notice kind="error">{action.error}</Notice>}
      {!detail ? (
        <Spinner label="Loading the conflict" />
      ) : (
        <>
          <div className="side-by-side">
            <div>
              <h5>Ours (this workspace)</h5>
              <pre aria-label={`Ours: ${summary.path}`}>{detail.ours}</pre>
            </div>
            <div>
              <h5>Theirs (the remote)</h5>
              <pre aria-label={`Theirs: ${summary.path}`}>{detail.theirs ?? "(deleted on the remote)"}</pre>
            </div>
          </div>
          {merged !== null && (
            <div className="field">
              <label htmlFor={`merge-${summary.id}`}>Merged version</label>
              <textarea id={`merge-${summary.id}`} rows={10} value={merged} onChange={(e) => setMerged(e.target.value)} />
            </div>
          )}
          <div className="conflict-actions">
            <button className="btn btn-small" type="button" disabled={action.busy} onClick={() => void resolve("kept_local")}>
              Keep ours
            </button>
            <button className="btn btn-small" type="button" disabled={action.busy} onClick={() => void resolve("kept_remote")}>
              Take theirs
            </button>
            {merged === null ? (
              <button className="btn btn-small" type="button" onClick={() => setMerged(detail.ours)}>
                Merge by hand
              </button>
            ) : (
              <button className="btn btn-small btn-primary" type="button" disabled={action.busy} onClick={() => void resolve("custom")}>
                Save merged version
              </button>
            )}
          </div>
        </>
      )}
    </li>
  );
}

export default function GitSettings({ workspace }: { workspace: Workspace }) {
  const { data, error, reload } = useResource(workspace.id, () => readSettings(workspace.id));
  const conflicts = useResource(workspace.id, () => listConflicts(workspace.id));
  const [form, setForm] = useState<{ git_branch: string; git_auto_commit: boolean; sync_interval: string } | null>(null);
  const [saved, setSaved] = useState(false);
  const [result, setResult] = useState<SyncResult | null>(null);
  const save = useAction();
  const sync = useAction();
  const secret = useAction();
  const tokenAction = useAction();
  const [token, setToken] = useState("");
  const [tokenSaved, setTokenSaved] = useState<string | null>(null);
  useEffect(() => {
    if (data) setForm({ git_branch: data.git_branch, git_auto_commit: data.git_auto_commit, sync_interval: String(data.sync_interval) });
  }, [data]);
  if (error) return <Notice kind="error">{String((error as Error).message)}</Notice>;
  if (!data || !form) return <Spinner label="Loading git settings" />;
  const status = conflicts.data?.sync_status ?? data.sync_status;
  return (
    <div className="git-settings">
      <dl className="facts">
        <dt>Remote</dt>
        <dd>{data.git_remote ? <code>{data.git_remote}</code> : <span className="muted">None: this workspace is a local git repository only. A remote is given when a workspace is created (Git remote URL in the New workspace dialog).</span>}</dd>
        <dt>Status</dt>
        <dd>
          <span className={`badge sync-${status}`} data-sync-status={status}>
            {status}
          </span>
        </dd>
      </dl>

      <div className="sync-now">
        <button
          type="button"
          className="btn btn-primary"
          disabled={sync.busy}
          onClick={async () => {
            setResult(null);
            const r = await sync.run(() => syncNow(workspace.id));
            if (r) setResult(r);
            await Promise.all([reload(), conflicts.reload()]);
          }}
        >
          {sync.busy ? "Syncing…" : "Sync now"}
        </button>
        {sync.busy && (
          <span role="status" className="muted">
            Pulling and pushing…
          </span>
        )}
        {sync.error && <Notice kind="error">{sync.error}</Notice>}
        {result && (
          <Notice kind={result.status === "failed" ? "error" : result.status === "conflict" ? "warning" : "success"}>
            Sync {result.status}: {result.changes.added} added, {result.changes.updated} updated, {result.changes.deleted} deleted
            {result.conflicts ? `, ${result.conflicts} in conflict` : ""}
            {result.error ? `. ${result.error}` : "."}
          </Notice>
        )}
      </div>

      <h3>Options</h3>
      {/* The API checks the options and says what is wrong in words; the browser's own validation
          would block the request with a bubble that names no limit and that no test or screen
          reader sees, so the form leaves checking to the API (min/max still guide the arrows). */}
      <form
        className="settings-form"
        noValidate
        onSubmit={async (e) => {
          e.preventDefault();
          setSaved(false);
          const ok = await save.run(() => saveSettings(workspace.id, { git_branch: form.git_branch, git_auto_commit: form.git_auto_commit, sync_interval: Number(form.sync_interval) }));
          if (ok !== undefined) {
            setSaved(true);
            await reload();
          }
        }}
      >
        {save.error && <Notice kind="error">{save.error}</Notice>}
        {saved && <Notice kind="success">Git settings saved.</Notice>}
        <Field label="Branch" required value={form.git_branch} onChange={(e) => setForm({ ...form, git_branch: e.target.value })} />
        <div className="check">
          <input id="git-auto" type="checkbox" checked={form.git_auto_commit} onChange={(e) => setForm({ ...form, git_auto_commit: e.target.checked })} />
          <label htmlFor="git-auto">Commit every change automatically</label>
        </div>
        <Field label="Pull interval (seconds)" type="number" min={10} max={604800} required value={form.sync_interval} onChange={(e) => setForm({ ...form, sync_interval: e.target.value })} />
        <button className="btn" type="submit" disabled={save.busy}>
          {save.busy ? "Saving…" : "Save git settings"}
        </button>
      </form>

      {data.git_remote && (
        <>
          <h3>Access token</h3>
          <p className="hint" data-token-set={data.git_token_set}>
            {data.git_token_set
              ? "An access token is stored for this remote; it is sent as the password over HTTPS and never shown."
              : "No access token is stored: the remote is reached with the credentials in its URL, if any."}
          </p>
          <form
            className="settings-form"
            onSubmit={async (e) => {
              e.preventDefault();
              setTokenSaved(null);
              const ok = await tokenAction.run(() => saveSettings(workspace.id, { git_token: token }));
              if (ok !== undefined) {
                setToken("");
                setTokenSaved("Access token saved.");
                await reload();
              }
            }}
          >
            {tokenAction.error && <Notice kind="error">{tokenAction.error}</Notice>}
            {tokenSaved && <Notice kind="success">{tokenSaved}</Notice>}
            <Field label={data.git_token_set ? "New access token" : "Access token"} type="password" autoComplete="off" required value={token} onChange={(e) => setToken(e.target.value)} />
            <div className="row-actions">
              <button className="btn" type="submit" disabled={tokenAction.busy || token === ""}>
                Save access token
              </button>
              {data.git_token_set && (
                <button
                  type="button"
                  className="btn btn-danger"
                  disabled={tokenAction.busy}
                  onClick={async () => {
                    setTokenSaved(null);
                    const ok = await tokenAction.run(() => saveSettings(workspace.id, { git_token: null }));
                    if (ok !== undefined) {
                      setTokenSaved("Access token removed.");
                      await reload();
                    }
                  }}
                >
                  Remove access token
                </button>
              )}
            </div>
          </form>
        </>
      )}

      <h3>Webhook</h3>
      <p className="hint">Point your git host's push webhook here so pushes are pulled at once.</p>
      <div className="secret-box">
        <label className="secret-label">
          Webhook URL
          <input readOnly value={data.webhook_url} onFocus={(e) => e.currentTarget.select()} />
        </label>
        <CopyButton text={data.webhook_url} />
      </div>
      <SecretBox label="Webhook secret" value={data.webhook_secret} />
      {secret.error && <Notice kind="error">{secret.error}</Notice>}
      <button
        type="button"
        className="btn btn-small"
        disabled={secret.busy}
        onClick={async () => {
          if (!window.confirm("Generate a new webhook secret? The git host must be given the new one.")) return;
          await secret.run(() => regenerateWebhookSecret(workspace.id));
          await reload();
        }}
      >
        New secret
      </button>

      <h3>Conflicts</h3>
      {conflicts.error ? (
        <Notice kind="error">{String((conflicts.error as Error).message)}</Notice>
      ) : !conflicts.data ? (
        <Spinner />
      ) : conflicts.data.conflicts.length === 0 ? (
        <p className="muted">No open conflicts.</p>
      ) : (
        <ul className="conflict-list">
          {conflicts.data.conflicts.map((c) => (
            <ConflictView key={c.id} workspace={workspace} summary={c} onResolved={() => void Promise.all([conflicts.reload(), reload()])} />
          ))}
        </ul>
      )}
    </div>
  );
}
