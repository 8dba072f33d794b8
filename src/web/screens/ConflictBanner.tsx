/**
 * Shown when a save met a newer version on the server (409). Both texts stay available: keep
 * mine (overwrite), take theirs (mine stays visible to copy), or merge by hand in the source editor.
 */
import { useMemo } from "react";
import { lineDiff } from "../markdown/line-diff.ts";

export interface ConflictState {
  mine: string;
  theirs: string;
  theirsHash: string;
  modifiedBy: string;
  modifiedAt: string;
  merging?: boolean;
}

export function ConflictBanner(props: {
  conflict: ConflictState;
  onKeepMine(): void;
  onTakeTheirs(): void;
  onMergeByHand(): void;
  onDoneMerging(): void;
}) {
  const { conflict } = props;
  const diff = useMemo(() => lineDiff(conflict.mine, conflict.theirs), [conflict.mine, conflict.theirs]);
  const when = conflict.modifiedAt ? new Date(conflict.modifiedAt).toLocaleString() : "";
  return (
    <section className="conflict" role="alert" aria-label="Edit conflict">
      <p>
        <strong>Someone else saved this page</strong> ({conflict.modifiedBy}
        {when ? `, ${when}` : ""}) while you were editing. Your text is not lost.
      </p>
      <details open={!conflict.merging}>
        <summary>What changed on the server</summary>
        <pre className="diff" aria-label="Differences: lines starting with - are yours, + are the server's">
          {diff.map((d, i) => (
            <span key={i} className={`diff-${d.op}`}>
              {d.op === "add" ? "+ " : d.op === "del" ? "- " : "  "}
              {d.line}
              {"\n"}
            </span>
          ))}
        </pre>
      </details>
      {conflict.merging ? (
        <div className="conflict-actions">
          <span>Edit your text below to include the server's changes, then:</span>
          <button type="button" className="btn btn-primary" onClick={props.onDoneMerging}>
            Save merged text
          </button>
        </div>
      ) : (
        <div className="conflict-actions">
          <button type="button" className="btn btn-primary" onClick={props.onKeepMine}>
            Keep mine
          </button>
          <button type="button" className="btn" onClick={props.onTakeTheirs}>
            Take theirs
          </button>
          <button type="button" className="btn" onClick={props.onMergeByHand}>
            Merge by hand
          </button>
        </div>
      )}
    </section>
  );
}
