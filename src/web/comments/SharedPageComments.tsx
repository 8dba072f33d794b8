/**
 * The comments of a page opened through a comment-level share link (docs/decisions/restricted-folders.md,
 * "Share links"): the page's threads, a new-thread box and replies, for the signed-in person holding
 * the link. Nothing else: no edit, resolve or delete here (those stay with the workspace's own
 * comments panel, for people with access), and no @-autocomplete, since the workspace's people are
 * not the link holder's to list (a typed mention still reaches only people who see the page).
 */
import { useCallback, useState } from "react";
import { messageOf } from "../api/client.ts";
import type { Comment } from "../api/types.ts";
import { addLinkComment, listLinkComments } from "../api/shared-pages.ts";
import { Notice, Spinner } from "../ui/controls.tsx";
import { useCommentList } from "./use-comment-list.ts";

function Item({ c }: { c: Comment }) {
  return (
    <div className="comment" role="article" aria-label={`Comment by ${c.author.name}`}>
      <div className="comment-meta">
        <strong>{c.author.name || "Former member"}</strong>{" "}
        <time className="muted" dateTime={c.created_at}>
          {new Date(c.created_at).toLocaleString()}
        </time>
      </div>
      <p className="comment-body">{c.body}</p>
    </div>
  );
}

function Box(props: { label: string; action: string; busy: boolean; send(text: string): Promise<boolean>; onCancel?(): void }) {
  const [text, setText] = useState("");
  return (
    <form
      className="new-thread"
      onSubmit={async (e) => {
        e.preventDefault();
        if (text.trim() && (await props.send(text))) setText("");
      }}
    >
      <textarea aria-label={props.label} value={text} onChange={(e) => setText(e.target.value)} rows={3} maxLength={10_000} />
      <div className="comment-actions">
        <button className="btn btn-small btn-primary" type="submit" disabled={props.busy || !text.trim()}>
          {props.action}
        </button>
        {props.onCancel && (
          <button className="btn btn-small" type="button" onClick={props.onCancel}>
            Cancel
          </button>
        )}
      </div>
    </form>
  );
}

export function SharedPageComments({ token }: { token: string }) {
  const readPage = useCallback((cursor: string | null) => listLinkComments(token, cursor), [token]);
  const { items, error, busy, act } = useCommentList(readPage);
  const [replyTo, setReplyTo] = useState<string | null>(null);
  const send = (body: { body: string; parent_id?: string }) => act(() => addLinkComment(token, body));

  const roots = (items ?? []).filter((c) => c.parent_id === null);
  return (
    <section className="shared-page-comments" aria-label="Comments">
      <h2>Comments</h2>
      {error !== null && <Notice kind="error">{messageOf(error)}</Notice>}
      <Box label="New comment" action={busy ? "Sending…" : "Comment"} busy={busy} send={(text) => send({ body: text })} />
      {items === null ? (
        <Spinner label="Loading comments" />
      ) : (
        <>
          {roots.length === 0 && <p className="muted">No comments on this page yet.</p>}
          <ul className="threads" aria-label="Threads">
            {roots.map((root) => (
              <li key={root.id} className={`thread${root.resolved ? " resolved" : ""}`}>
                {root.resolved && <span className="badge">Resolved</span>}
                <Item c={root} />
                <ul className="replies" aria-label="Replies">
                  {(items ?? [])
                    .filter((c) => c.parent_id === root.id)
                    .map((r) => (
                      <li key={r.id}>
                        <Item c={r} />
                      </li>
                    ))}
                </ul>
                {replyTo === root.id ? (
                  <Box
                    label={`Reply to ${root.author.name}`}
                    action="Reply"
                    busy={busy}
                    send={async (text) => (await send({ body: text, parent_id: root.id })) && (setReplyTo(null), true)}
                    onCancel={() => setReplyTo(null)}
                  />
                ) : (
                  <button className="btn btn-small" type="button" onClick={() => setReplyTo(root.id)}>
                    Reply
                  </button>
                )}
              </li>
            ))}
          </ul>
        </>
      )}
    </section>
  );
}
