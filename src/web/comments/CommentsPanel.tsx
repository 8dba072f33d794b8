/**
 * The comments of the open page: threads (a root and its replies), a new-thread box and a reply
 * box with @mention autocomplete, resolve/reopen, and edit/delete of one's own comments (admins may
 * delete anyone's). Live comment events of this page re-read the list.
 */
import { useCallback, useEffect, useState, type ReactNode } from "react";
import { messageOf } from "../api/client.ts";
import type { Workspace } from "../api/types.ts";
import { useAuth } from "../app/auth.tsx";
import { usePeople, type Person } from "../app/people.ts";
import { useLive } from "../live/LiveContext.tsx";
import { Notice, Spinner } from "../ui/controls.tsx";
import { MentionTextarea } from "./MentionTextarea.tsx";
import { addComment, deleteComment, editComment, listComments, toggleResolved } from "../api/comments.ts";
import { useCommentList } from "./use-comment-list.ts";
import type { Comment } from "../api/types.ts";


// What the caller may do comes from the server with the workspace (docs/decisions/web-rights.md).
const canComment = (ws: Workspace) => ws.rights.comment;
const isAdmin = (ws: Workspace) => ws.rights.admin;

/** Comment text with the mentioned people's names marked. */
function Body({ text, people, mentions }: { text: string; people: Person[]; mentions: string[] }) {
  const names = people.filter((p) => mentions.includes(p.id)).map((p) => p.name).sort((a, b) => b.length - a.length);
  if (names.length === 0) return <p className="comment-body">{text}</p>;
  const escaped = names.map((n) => n.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"));
  const parts = text.split(new RegExp(`(@(?:${escaped.join("|")}))`, "i"));
  return (
    <p className="comment-body">
      {parts.map((p, i) => (i % 2 === 1 ? <span key={i} className="mention">{p}</span> : p))}
    </p>
  );
}

function CommentItem(props: { c: Comment; ws: Workspace; people: Person[]; me: string | undefined; busy: boolean; act(work: () => Promise<unknown>): Promise<boolean> }) {
  const { c } = props;
  const [editing, setEditing] = useState(false);
  const [text, setText] = useState(c.body);
  const own = c.author.id === props.me;
  return (
    <div className="comment" aria-label={`Comment by ${c.author.name}`} role="article">
      <div className="comment-meta">
        <strong>{c.author.name || "Former member"}</strong>{" "}
        <time className="muted" dateTime={c.created_at}>
          {new Date(c.created_at).toLocaleString()}
        </time>
        {c.updated_at !== c.created_at && <span className="muted"> (edited)</span>}
      </div>
      {editing ? (
        <form
          onSubmit={async (e) => {
            e.preventDefault();
            if (await props.act(() => editComment(c.id, text))) setEditing(false);
          }}
        >
          <MentionTextarea label="Edit comment" value={text} onChange={setText} people={props.people} onSubmit={() => void props.act(() => editComment(c.id, text)).then((ok) => ok && setEditing(false))} autoFocus />
          <div className="comment-actions">
            <button className="btn btn-small btn-primary" type="submit" disabled={props.busy || !text.trim()}>
              Save
            </button>
            <button className="btn btn-small" type="button" onClick={() => (setEditing(false), setText(c.body))}>
              Cancel
            </button>
          </div>
        </form>
      ) : (
        <Body text={c.body} people={props.people} mentions={c.mentions} />
      )}
      {!editing && (own || isAdmin(props.ws)) && (
        <div className="comment-actions">
          {own && (
            <button className="btn-link" type="button" onClick={() => setEditing(true)}>
              Edit
            </button>
          )}
          <button
            className="btn-link danger"
            type="button"
            onClick={() => {
              if (window.confirm(c.parent_id ? "Delete this reply?" : "Delete this comment and its replies?")) void props.act(() => deleteComment(c.id));
            }}
          >
            Delete
          </button>
        </div>
      )}
    </div>
  );
}

function Thread(props: { root: Comment; replies: Comment[]; ws: Workspace; people: Person[]; me: string | undefined; busy: boolean; act(work: () => Promise<unknown>): Promise<boolean> }) {
  const { root } = props;
  const [replying, setReplying] = useState(false);
  const [reply, setReply] = useState("");
  const send = async () => {
    if (!reply.trim()) return;
    if (await props.act(() => addComment(props.ws.id, { parent_id: root.id, body: reply }))) {
      setReply("");
      setReplying(false);
    }
  };
  return (
    <li className={`thread${root.resolved ? " resolved" : ""}`}>
      {root.resolved && <span className="badge">Resolved</span>}
      <CommentItem c={root} ws={props.ws} people={props.people} me={props.me} busy={props.busy} act={props.act} />
      {props.replies.length > 0 && (
        <ul className="replies" aria-label="Replies">
          {props.replies.map((r) => (
            <li key={r.id}>
              <CommentItem c={r} ws={props.ws} people={props.people} me={props.me} busy={props.busy} act={props.act} />
            </li>
          ))}
        </ul>
      )}
      {canComment(props.ws) && (
        <div className="thread-actions">
          {replying ? (
            <form
              onSubmit={(e) => {
                e.preventDefault();
                void send();
              }}
            >
              <MentionTextarea label={`Reply to ${root.author.name}`} value={reply} onChange={setReply} people={props.people} onSubmit={() => void send()} autoFocus placeholder="Reply… (@ to mention)" />
              <div className="comment-actions">
                <button className="btn btn-small btn-primary" type="submit" disabled={props.busy || !reply.trim()}>
                  Reply
                </button>
                <button className="btn btn-small" type="button" onClick={() => setReplying(false)}>
                  Cancel
                </button>
              </div>
            </form>
          ) : (
            <>
              <button className="btn btn-small" type="button" onClick={() => setReplying(true)}>
                Reply
              </button>
              <button className="btn btn-small" type="button" onClick={() => void props.act(() => toggleResolved(root.id, root.resolved))}>
                {root.resolved ? "Reopen" : "Resolve"}
              </button>
            </>
          )}
        </div>
      )}
    </li>
  );
}

export default function CommentsPanel({ workspace, path, onClose }: { workspace: Workspace; path: string; onClose(): void }) {
  const { user } = useAuth();
  const live = useLive();
  const people = usePeople(workspace.id);
  const readPage = useCallback(
    (cursor: string | null) => listComments(workspace.id, new URLSearchParams({ page: path, limit: "100", ...(cursor ? { cursor } : {}) })),
    [workspace.id, path],
  );
  const { items, error, busy, load, act } = useCommentList(readPage);
  const [draft, setDraft] = useState("");
  const [showResolved, setShowResolved] = useState(false);

  useEffect(
    () =>
      live?.onEvent((e) => {
        if (e.type.startsWith("comment-") && e.payload?.workspace_id === workspace.id && e.payload?.page_path === path) void load();
      }),
    [live, load, workspace.id, path],
  );

  const roots = (items ?? []).filter((c) => c.parent_id === null);
  const open = roots.filter((r) => !r.resolved);
  const resolved = roots.filter((r) => r.resolved);
  const thread = (r: Comment): ReactNode => (
    <Thread key={r.id} root={r} replies={(items ?? []).filter((c) => c.parent_id === r.id)} ws={workspace} people={people} me={user?.id} busy={busy} act={act} />
  );
  const submit = async () => {
    if (!draft.trim()) return;
    if (await act(() => addComment(workspace.id, { page_path: path, body: draft }))) setDraft("");
  };

  return (
    <aside className="comments-panel" aria-label="Comments">
      <div className="comments-head">
        <h2>Comments</h2>
        <button type="button" className="btn btn-ghost btn-small" aria-label="Close comments" onClick={onClose}>
          ✕
        </button>
      </div>
      {error !== null && <Notice kind="error">{messageOf(error)}</Notice>}
      {canComment(workspace) && (
        <form
          className="new-thread"
          onSubmit={(e) => {
            e.preventDefault();
            void submit();
          }}
        >
          <MentionTextarea label="New comment" value={draft} onChange={setDraft} people={people} onSubmit={() => void submit()} placeholder="Comment… (@ to mention, Ctrl+Enter to send)" />
          <button className="btn btn-small btn-primary" type="submit" disabled={busy || !draft.trim()}>
            {busy ? "Sending…" : "Comment"}
          </button>
        </form>
      )}
      {items === null ? (
        <Spinner label="Loading comments" />
      ) : (
        <>
          {open.length === 0 && <p className="muted">No open comments on this page.</p>}
          <ul className="threads" aria-label="Open threads">
            {open.map(thread)}
          </ul>
          {resolved.length > 0 && (
            <>
              <button type="button" className="btn-link" aria-expanded={showResolved} onClick={() => setShowResolved(!showResolved)}>
                {showResolved ? "Hide" : "Show"} {resolved.length} resolved
              </button>
              {showResolved && (
                <ul className="threads" aria-label="Resolved threads">
                  {resolved.map(thread)}
                </ul>
              )}
            </>
          )}
        </>
      )}
    </aside>
  );
}
