/**
 * `/shared/:token`: the page a page share link opens, read-only, signed in or not, with its
 * comments where the link (or the reader's own access) allows `comment` and they are signed in
 * (docs/decisions/restricted-folders.md, "Share links"). A link that opens nothing says so in one
 * way, whatever the reason: revoked, expired, a deleted page, or a page not shared with the reader.
 */
import { useEffect, useState } from "react";
import { openSharedPage, type SharedPage } from "../api/shared-pages.ts";
import { Notice, Spinner } from "../ui/controls.tsx";
import { useAuth } from "../app/auth.tsx";
import { linkClick } from "../app/router.ts";
import { SharedPageComments } from "../comments/SharedPageComments.tsx";

export function SharedPageScreen({ token }: { token: string }) {
  const [shared, setShared] = useState<SharedPage | null>(null);
  const [failed, setFailed] = useState(false);
  const { status } = useAuth();

  useEffect(() => {
    let live = true;
    setShared(null);
    setFailed(false);
    openSharedPage(token).then(
      (s) => live && setShared(s),
      () => live && setFailed(true),
    );
    return () => {
      live = false;
    };
  }, [token]);

  useEffect(() => {
    document.title = shared ? `${shared.page.title} · Quire` : "Shared page · Quire";
  }, [shared]);

  if (failed) {
    return (
      <main className="auth-page">
        <div className="auth-card">
          <h1>This link opens no page</h1>
          <Notice kind="error">The link may have been revoked or have expired, or the page is not shared with you. Ask whoever sent it.</Notice>
        </div>
      </main>
    );
  }
  if (!shared) return <Spinner label="Opening the shared page" />;
  return (
    <main className="shared-page">
      <article aria-label={shared.page.title}>
        <p className="muted">Shared page{shared.via === "access" ? "" : ` · you can ${shared.level}`}</p>
        <h1>{shared.page.title}</h1>
        {/* Rendered and sanitized by the server, as the published site renders pages. */}
        <div className="shared-page-body" dangerouslySetInnerHTML={{ __html: shared.html }} />
      </article>
      {shared.level !== "view" &&
        (status === "signed-in" ? (
          <SharedPageComments token={token} />
        ) : (
          // No anonymous comments: a comment carries its author, for the page's people and their notifications.
          <p className="muted">
            <a href={`/login?next=${encodeURIComponent(`/shared/${token}`)}`} onClick={linkClick}>
              Sign in
            </a>{" "}
            to read and add comments.
          </p>
        ))}
    </main>
  );
}
