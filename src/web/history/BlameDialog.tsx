/**
 * "Who wrote each line": the page's current file, each run of lines headed by the version that last
 * wrote it (author, time, commit). Read on demand — a blame reads every version of the page.
 */
import { useEffect, useState } from "react";
import { messageOf } from "../api/client.ts";
import { blamePage, type PageBlame } from "../api/history.ts";
import { Dialog, Notice, Spinner } from "../ui/controls.tsx";
import { shortCommit, when } from "./format.ts";

export function BlameDialog({ workspaceId, path, onClose }: { workspaceId: string; path: string; onClose(): void }) {
  const [blame, setBlame] = useState<PageBlame | null>(null);
  const [error, setError] = useState<unknown>(undefined);
  useEffect(() => {
    let live = true;
    blamePage(workspaceId, path).then(
      (b) => live && setBlame(b),
      (e) => live && setError(e),
    );
    return () => {
      live = false;
    };
  }, [workspaceId, path]);

  const lines = blame ? blame.content.replace(/\n$/, "").split("\n") : [];
  const commits = new Map((blame?.commits ?? []).map((c) => [c.commit, c]));
  return (
    <Dialog open title={`Who wrote each line of ${path}`} onClose={onClose}>
      {error !== undefined ? (
        <Notice kind="error">{messageOf(error)}</Notice>
      ) : !blame ? (
        <Spinner label="Reading every version of the page" />
      ) : (
        <>
          {blame.truncated && <Notice>The page has more versions than were read: its oldest lines are credited to the oldest version read.</Notice>}
          <table className="blame" aria-label="Lines and the versions that wrote them">
            <thead>
              <tr>
                <th scope="col">Version</th>
                <th scope="col">Line</th>
                <th scope="col">Text</th>
              </tr>
            </thead>
            <tbody>
              {blame.ranges.flatMap((r) =>
                lines.slice(r.start - 1, r.start - 1 + r.count).map((text, i) => {
                  const c = r.commit ? commits.get(r.commit) : undefined;
                  return (
                    <tr key={r.start + i} className={i === 0 ? "blame-first" : undefined}>
                      <td className="blame-who">
                        {i === 0 &&
                          (c ? (
                            <>
                              <strong>{c.author.name || c.author.email}</strong> <time dateTime={c.at}>{when(c.at)}</time> <code>{shortCommit(c.commit)}</code>
                            </>
                          ) : (
                            <em>Not committed yet</em>
                          ))}
                      </td>
                      <td className="blame-line">{r.start + i}</td>
                      <td className="blame-text">
                        <code>{text}</code>
                      </td>
                    </tr>
                  );
                }),
              )}
            </tbody>
          </table>
        </>
      )}
      <div className="dialog-actions">
        <button type="button" className="btn" onClick={onClose}>
          Close
        </button>
      </div>
    </Dialog>
  );
}
