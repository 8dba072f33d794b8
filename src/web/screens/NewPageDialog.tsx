import { useState } from "react";
import { ApiError, messageOf } from "../api/client.ts";
import { createPage } from "../api/pages.ts";
import type { Page } from "../api/types.ts";
import { pathForTitle } from "../app/workspace-data.ts";
import { Dialog, Field, Notice } from "../ui/controls.tsx";

/** Asks for a title (and shows the file path it becomes), creates the page, hands it back. */
type Props = { slug: string; folder: string | null; onClose(): void; onCreated(page: Page): void };

/** The form mounts with each opening (and each folder), so its fields start empty at the first render. */
export function NewPageDialog(props: Props) {
  return (
    <Dialog open={props.folder !== null} title="New page" onClose={props.onClose}>
      <NewPageForm key={props.folder ?? ""} {...props} />
    </Dialog>
  );
}

function NewPageForm(props: Props) {
  const [title, setTitle] = useState("");
  const [path, setPath] = useState("");
  const [pathEdited, setPathEdited] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError | Error | null>(null);
  const effectivePath = pathEdited ? path : pathForTitle(title, props.folder ?? "");
  return (
    <form
      onSubmit={async (e) => {
        e.preventDefault();
        setBusy(true);
        setError(null);
        try {
          const page = await createPage(props.slug, effectivePath, { title, body: "" });
          props.onCreated(page);
        } catch (err) {
          setError(err as Error);
        } finally {
          setBusy(false);
        }
      }}
    >
      {error && <Notice kind="error">{error instanceof ApiError && error.status === 409 ? "A page already exists at this path. Choose another title or path." : messageOf(error)}</Notice>}
      <Field label="Title" required value={title} onChange={(e) => setTitle(e.target.value)} autoFocus />
      <Field
        label="File path"
        required
        value={effectivePath}
        onChange={(e) => {
          setPathEdited(true);
          setPath(e.target.value);
        }}
        hint="Where the Markdown file lives in the workspace."
      />
      <div className="dialog-actions">
        <button type="button" className="btn" onClick={props.onClose}>
          Cancel
        </button>
        <button type="submit" className="btn btn-primary" disabled={busy || !title.trim()}>
          {busy ? "Creating…" : "Create page"}
        </button>
      </div>
    </form>
  );
}
