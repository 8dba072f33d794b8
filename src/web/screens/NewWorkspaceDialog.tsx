/**
 * Super Admins create workspaces: a name, the address (slug) derived from it, a description, and
 * optionally a git remote (and branch) to clone. The remote is fixed once the workspace exists,
 * so this dialog is the one place to give it; the clone runs inside the create request.
 */
import { useState } from "react";
import { messageOf } from "../api/client.ts";
import { createWorkspace } from "../api/workspaces.ts";
import type { Workspace } from "../api/types.ts";
import { Dialog, Field, Notice } from "../ui/controls.tsx";

const slugFor = (name: string) =>
  name
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 60);

type Props = { open: boolean; onClose(): void; onCreated(ws: Workspace): void };

export function NewWorkspaceDialog(props: Props) {
  // The form lives inside the dialog, which mounts its children only while open: every opening
  // starts from empty fields at the first render, so nothing typed can be reset under the typist.
  return (
    <Dialog open={props.open} title="New workspace" onClose={props.onClose}>
      <NewWorkspaceForm {...props} />
    </Dialog>
  );
}

function NewWorkspaceForm(props: Props) {
  const [name, setName] = useState("");
  const [slug, setSlug] = useState<string | null>(null);
  const [description, setDescription] = useState("");
  const [remote, setRemote] = useState("");
  const [branch, setBranch] = useState("");
  const [token, setToken] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const effective = slug ?? slugFor(name);
  return (
    <form
      onSubmit={async (e) => {
        e.preventDefault();
        setBusy(true);
        setError(null);
        try {
          const ws = await createWorkspace({
            name,
            slug: effective,
            ...(description ? { description } : {}),
            ...(remote.trim() ? { git_remote: remote.trim() } : {}),
            ...(branch.trim() ? { git_branch: branch.trim() } : {}),
            ...(remote.trim() && token ? { git_token: token } : {}),
          });
          props.onCreated(ws);
        } catch (err) {
          setError(messageOf(err));
        } finally {
          setBusy(false);
        }
      }}
    >
      {error && <Notice kind="error">{error}</Notice>}
      <Field label="Workspace name" required value={name} onChange={(e) => setName(e.target.value)} autoFocus />
      <Field label="Address" required value={effective} onChange={(e) => setSlug(e.target.value)} hint="Lower-case letters, digits and dashes; part of every page's URL." />
      <Field label="Description" value={description} onChange={(e) => setDescription(e.target.value)} />
      <Field
        label="Git remote URL"
        value={remote}
        onChange={(e) => setRemote(e.target.value)}
        placeholder="https://git.example.com/team/docs.git"
        spellCheck={false}
        autoComplete="off"
        hint="Optional. An HTTPS or SSH repository whose Markdown pages this workspace starts from and syncs with; it cannot be changed later."
      />
      <Field label="Branch" value={branch} onChange={(e) => setBranch(e.target.value)} placeholder="main" spellCheck={false} autoComplete="off" hint="Optional; main when empty." />
      <Field
        label="Access token"
        type="password"
        value={token}
        onChange={(e) => setToken(e.target.value)}
        autoComplete="off"
        hint="Optional, for a private HTTPS remote: a token with read and write access to the repository. It is stored for this workspace and never shown again."
      />
      {busy && remote.trim() && (
        <p role="status" className="muted">
          <progress aria-label="Cloning the remote" /> Cloning the remote… a large repository can take a while.
        </p>
      )}
      <div className="dialog-actions">
        <button type="button" className="btn" onClick={props.onClose}>
          Cancel
        </button>
        <button type="submit" className="btn btn-primary" disabled={busy || !name.trim()}>
          {busy ? "Creating…" : "Create workspace"}
        </button>
      </div>
    </form>
  );
}
