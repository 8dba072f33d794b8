/**
 * One diff three ways: rendered (what a reader sees, added and removed blocks marked), unified
 * source and side by side, both with word highlights inside lines changed one for one. Frontmatter
 * changes are listed as fields above. The HTML comes from the server's site renderer, sanitized.
 */
import { useState } from "react";
import type { PageDiff } from "../api/history.ts";
import { sideBySide, unifiedLines, type DiffLine } from "./diff-model.ts";

type Mode = "rendered" | "unified" | "split";
const MODES: Array<[Mode, string]> = [
  ["rendered", "Rendered"],
  ["unified", "Unified"],
  ["split", "Side by side"],
];
const SIGN = { added: "+", removed: "−", same: " ", hunk: "" } as const;
const KIND_LABEL = { added: "Added", removed: "Removed", same: "" } as const;

function LineText({ line }: { line: DiffLine }) {
  if (!line.parts) return <>{line.text || "\u00a0"}</>;
  return (
    <>
      {line.parts.map((p, i) =>
        p.kind === "same" ? <span key={i}>{p.text}</span> : p.kind === "added" ? <ins key={i}>{p.text}</ins> : <del key={i}>{p.text}</del>,
      )}
    </>
  );
}

const showValue = (v: unknown) => (v === undefined || v === null ? "—" : typeof v === "string" ? v : JSON.stringify(v));

export function DiffView({ diff, label }: { diff: PageDiff; label: string }) {
  const [mode, setMode] = useState<Mode>(diff.rendered ? "rendered" : "unified");
  const lines = unifiedLines(diff);
  const empty = diff.unified === "";
  return (
    <section className="diff-view" aria-label={label}>
      <div className="diff-head">
        <div className="diff-modes" role="group" aria-label="Diff view">
          {MODES.filter(([m]) => m !== "rendered" || diff.rendered).map(([m, text]) => (
            <button key={m} type="button" className={`btn btn-small${mode === m ? " active" : ""}`} aria-pressed={mode === m} onClick={() => setMode(m)}>
              {text}
            </button>
          ))}
        </div>
        <span className="diff-stats">
          <span className="added-count">+{diff.added}</span> <span className="removed-count">−{diff.removed}</span>
          <span className="visually-hidden">
            {diff.added} lines added, {diff.removed} removed
          </span>
        </span>
      </div>
      {diff.frontmatter_changes.length > 0 && (
        <table className="fm-changes">
          <caption>Page settings changed</caption>
          <thead>
            <tr>
              <th scope="col">Field</th>
              <th scope="col">Before</th>
              <th scope="col">After</th>
            </tr>
          </thead>
          <tbody>
            {diff.frontmatter_changes.map((c) => (
              <tr key={c.field}>
                <th scope="row">{c.field}</th>
                <td>{showValue(c.before)}</td>
                <td>{showValue(c.after)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {empty ? (
        <p className="muted">No differences.</p>
      ) : mode === "rendered" && diff.rendered ? (
        <div className="diff-rendered">
          {diff.rendered.map((b, i) => (
            <div key={i} className={`diff-block diff-${b.kind}`} aria-label={KIND_LABEL[b.kind] || undefined} role={b.kind === "same" ? undefined : "group"}>
              <div dangerouslySetInnerHTML={{ __html: b.html }} />
            </div>
          ))}
        </div>
      ) : mode === "unified" ? (
        <pre className="diff-source" role="table" aria-label="Unified diff">
          {lines.map((l, i) => (
            <div key={i} role="row" className={`diff-line diff-${l.kind}`}>
              <span className="diff-no" aria-hidden="true">{l.oldNo ?? ""}</span>
              <span className="diff-no" aria-hidden="true">{l.newNo ?? ""}</span>
              <span className="diff-sign" aria-hidden="true">{SIGN[l.kind]}</span>
              <span role="cell">
                {l.kind === "added" || l.kind === "removed" ? <span className="visually-hidden">{KIND_LABEL[l.kind]}: </span> : null}
                <LineText line={l} />
              </span>
            </div>
          ))}
        </pre>
      ) : (
        <div className="diff-split" role="table" aria-label="Side-by-side diff">
          {sideBySide(lines).map((row, i) =>
            row.hunk !== undefined ? (
              <div key={i} role="row" className="diff-split-row diff-hunk">
                <span role="cell">{row.hunk}</span>
              </div>
            ) : (
              <div key={i} role="row" className="diff-split-row">
                {[row.left, row.right].map((side, k) => (
                  <span key={k} role="cell" className={`diff-split-cell diff-${side ? side.kind : "none"}`}>
                    <span className="diff-no" aria-hidden="true">{side ? (k === 0 ? side.oldNo : side.newNo) : ""}</span>
                    <span className="diff-text">
                      {side && (side.kind === "added" || side.kind === "removed") && <span className="visually-hidden">{KIND_LABEL[side.kind]}: </span>}
                      {side && <LineText line={side} />}
                    </span>
                  </span>
                ))}
              </div>
            ),
          )}
        </div>
      )}
    </section>
  );
}
