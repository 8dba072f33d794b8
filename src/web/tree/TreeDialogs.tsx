/** Rename/move and delete confirmations for one page of the tree. */
import { useEffect, useState } from "react";
import { messageOf } from "../api/client.ts";
import type { TreeNode } from "../api/types.ts";
import { Dialog, Field, Notice } from "../ui/controls.tsx";
import { deletePage, movePage, retitlePage } from "./tree-api.ts";
import { foldersOf, pagePathOf } from "./tree-ops.ts";
import { emitPageChange } from "../live/page-events.ts";

export type TreeDialogState = { kind: "rename"; node: TreeNode } | { kind: "delete"; node: TreeNode } | null;

export function TreeDialogs(props: {
  slug: string;
  tree: TreeNode[];
  state: TreeDialogState;
  onClose(): void;
  onMoved(from: string, to: string): void;
  onDeleted(path: string): void;
  onChanged(): void;
}) {
  const { state } = props;
  return (
    <>
      <RenameDialog {...props} node={state?.kind === "rename" ? state.node : null} />
      <DeleteDialog {...props} node={state?.kind === "delete" ? state.node : null} />
    </>
  );
}

function RenameDialog(props: { slug: string; tree: TreeNode[]; node: TreeNode | null; onClose(): void; onMoved(from: string, to: string): void; onChanged(): void }) {
  const { node } = props;
  const from = node ? pagePathOf(node) : null;
  const [title, setTitle] = useState("");
  const [path, setPath] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    setTitle(node?.title ?? "");
    setPath(from ?? "");
    setError(null);
  }, [node, from]);
  const folders = foldersOf(props.tree).filter((f) => f !== "");
  return (
    <Dialog open={node !== null} title="Rename or move page" onClose={props.onClose}>
      <form
        onSubmit={async (e) => {
          e.preventDefault();
          if (!node || !from) return;
          setBusy(true);
          setError(null);
          try {
            if (title.trim() !== node.title) await retitlePage(props.slug, from, title.trim());
            const to = path.trim();
            if (to !== from) {
              await movePage(props.slug, from, to);
              props.onMoved(from, to);
            } else if (title.trim() !== node.title) {
              // The open page (if it is this one) picks up its new title.
              emitPageChange({ slug: props.slug, path: from, type: "page-updated" });
            }
            props.onChanged();
            props.onClose();
          } catch (err) {
            setError(err);
          } finally {
            setBusy(false);
          }
        }}
      >
        {error !== null && <Notice kind="error">{messageOf(error)}</Notice>}
        <Field label="Title" required value={title} onChange={(e) => setTitle(e.target.value)} autoFocus />
        <Field
          label="File path"
          required
          value={path}
          onChange={(e) => setPath(e.target.value)}
          list="quire-folders"
          hint="Change the folder or file name to move the page; links to it are rewritten."
        />
        <datalist id="quire-folders">
          {folders.map((f) => (
            <option key={f} value={`${f}/${from?.split("/").pop() ?? ""}`} />
          ))}
        </datalist>
        <div className="dialog-actions">
          <button type="button" className="btn" onClick={props.onClose}>
            Cancel
          </button>
          <button type="submit" className="btn btn-primary" disabled={busy || !title.trim() || !path.trim()}>
            {busy ? "Saving…" : "Save"}
          </button>
        </div>
      </form>
    </Dialog>
  );
}

function DeleteDialog(props: { slug: string; node: TreeNode | null; onClose(): void; onDeleted(path: string): void; onChanged(): void }) {
  const { node } = props;
  const path = node ? pagePathOf(node) : null;
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => setError(null), [node]);
  return (
    <Dialog open={node !== null} title="Delete page?" onClose={props.onClose}>
      {error !== null && <Notice kind="error">{messageOf(error)}</Notice>}
      <p>
        <strong>{node?.title}</strong> ({path}) will be deleted from the workspace.
      </p>
      <div className="dialog-actions">
        <button type="button" className="btn" onClick={props.onClose} autoFocus>
          Cancel
        </button>
        <button
          type="button"
          className="btn btn-danger"
          disabled={busy}
          onClick={async () => {
            if (!path) return;
            setBusy(true);
            try {
              await deletePage(props.slug, path);
              props.onDeleted(path);
              props.onChanged();
              props.onClose();
            } catch (err) {
              setError(err);
            } finally {
              setBusy(false);
            }
          }}
        >
          {busy ? "Deleting…" : "Delete page"}
        </button>
      </div>
    </Dialog>
  );
}
