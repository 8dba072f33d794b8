/**
 * Shown when a save met a newer version on the server (409). Both texts stay available: keep
 * mine (overwrite), take theirs (mine stays visible to copy), or merge by hand in the source editor.
 */
import { useMemo } from "react";
import { lineDiff } from "../markdown/line-diff.ts";

export interface ConflictState {
  /** The person's text when the save failed (what is on screen may have grown since). */
  mine: string;
  /** The last text this editor saved or loaded: both sides started from it. */
  base: string;
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
  // "What changed on the server" is the other person's change alone: from the text both sides
  // started from to the server's. Diffing the person's own text instead would list their edits as
  // removals, which reads as if the server had taken them out.
  const diff = useMemo(() => lineDiff(conflict.base, conflict.theirs), [conflict.base, conflict.theirs]);
  const when = conflict.modifiedAt ? new Date(conflict.modifiedAt).toLocaleString() : "";
  return (
    <section className="conflict" role="alert" aria-label="Edit conflict">
      <p>
        <strong>Someone else saved this page</strong> ({conflict.modifiedBy}
        {when ? `, ${when}` : ""}) while you were editing. Your text is not lost.
      </p>
      <details open={!conflict.merging}>
        <summary>What changed on the server</summary>
        <pre className="diff" aria-label="Changes saved on the server: lines starting with - were removed, + were added">
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
