/** Rename/move, "move to" a folder and delete confirmations for one node of the tree. */
import { useEffect, useState } from "react";
import { messageOf } from "../api/client.ts";
import type { TreeNode } from "../api/types.ts";
import { Dialog, Field, Notice } from "../ui/controls.tsx";
import { deletePage, movePage, retitlePage } from "../api/pages.ts";
import { findNode, foldersOf, movePlan, moveTargets, pagePathOf } from "./tree-ops.ts";
import { emitPageChange } from "../live/page-events.ts";
import { AccessDialog } from "./AccessDialog.tsx";

export type TreeDialogState =
  | { kind: "rename"; node: TreeNode }
  | { kind: "move"; node: TreeNode }
  | { kind: "delete"; node: TreeNode }
  | { kind: "access"; node: TreeNode }
  | null;

export function TreeDialogs(props: {
  slug: string;
  /** Whether the reader is the workspace's admin (only admins allow anyone with a share link). */
  admin: boolean;
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
      <MoveDialog {...props} node={state?.kind === "move" ? state.node : null} />
      <DeleteDialog {...props} node={state?.kind === "delete" ? state.node : null} />
      <AccessDialog slug={props.slug} admin={props.admin} node={state?.kind === "access" ? state.node : null} onClose={props.onClose} />
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

/**
 * "Move to…": the keyboard's way to drag a page or a whole folder into another folder. The folders
 * are a radio group (arrow keys choose, Enter moves). A folder moves page by page through the move
 * API with a progress bar; a failure stops there and says how far it got.
 */
function MoveDialog(props: { slug: string; tree: TreeNode[]; node: TreeNode | null; onClose(): void; onMoved(from: string, to: string): void; onChanged(): void }) {
  const { node } = props;
  const targets = node ? moveTargets(props.tree, node) : [];
  const [folder, setFolder] = useState<string | null>(null);
  const [done, setDone] = useState<{ moved: number; total: number } | null>(null);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    setFolder(null);
    setDone(null);
    setError(null);
  }, [node]);
  const label = node ? node.title || node.name : "";
  const busy = done !== null && error === null;
  return (
    <Dialog open={node !== null} title={`Move ${label}`} onClose={() => !busy && props.onClose()}>
      <form
        onSubmit={async (e) => {
          e.preventDefault();
          if (!node || folder === null) return;
          const plan = movePlan(node, folder);
          setError(null);
          let moved = 0;
          setDone({ moved, total: plan.length });
          try {
            for (const step of plan) {
              await movePage(props.slug, step.from, step.to);
              props.onMoved(step.from, step.to);
              setDone({ moved: ++moved, total: plan.length });
            }
            props.onChanged();
            props.onClose();
          } catch (err) {
            setError(err);
            if (moved > 0) props.onChanged();
          }
        }}
      >
        {error !== null && (
          <Notice kind="error">
            {messageOf(error)}
            {done && done.total > 1 ? ` (${done.moved} of ${done.total} pages were moved.)` : ""}
          </Notice>
        )}
        {targets.length === 0 ? (
          <p>There is no other folder to move it to. Create a page under a new folder first.</p>
        ) : (
          <fieldset className="move-targets">
            <legend>Move into</legend>
            {targets.map((f) => (
              <label key={f} className="move-target">
                <input type="radio" name="move-target" value={f} checked={folder === f} onChange={() => setFolder(f)} disabled={busy} />
                {f === "" ? (
                  "Top level"
                ) : (
                  <>
                    {findNode(props.tree, f)?.title || f} <span className="muted">{f}/</span>
                  </>
                )}
              </label>
            ))}
          </fieldset>
        )}
        {node?.kind === "folder" && <p className="hint">Every page in the folder moves with it; links to them are rewritten.</p>}
        {busy && done && (
          <div className="move-progress" role="status">
            Moving {Math.min(done.moved + 1, done.total)} of {done.total}…{" "}
            <progress max={done.total} value={done.moved} aria-label={`Moving ${label}`} />
          </div>
        )}
        <div className="dialog-actions">
          <button type="button" className="btn" onClick={props.onClose} disabled={busy}>
            Cancel
          </button>
          <button type="submit" className="btn btn-primary" disabled={busy || folder === null}>
            {busy ? "Moving…" : "Move"}
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
