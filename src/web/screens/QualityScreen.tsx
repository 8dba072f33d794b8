/**
 * The workspace's quality report (GET /api/v1/workspaces/:id/quality): the score, then the findings
 * grouped by page, worst pages first; each finding with a line opens the Markdown source at it.
 */
import { useCallback, useEffect, useState } from "react";
import { messageOf } from "../api/client.ts";
import type { Workspace } from "../api/types.ts";
import { linkClick, pageUrl } from "../app/router.ts";
import { Notice, Spinner } from "../ui/controls.tsx";
import { qualityReport, type QualityReport as Report } from "../api/reports.ts";

const KINDS: Record<string, string> = {
  dead_link: "Dead link",
  missing_title: "Missing title",
  missing_description: "Missing description",
  empty_page: "Empty page",
  orphan_page: "Orphan page",
  image_without_alt: "Image without alt text",
  heading_skip: "Skipped heading level",
  long_paragraph: "Long paragraph",
  readability: "Hard to read",
};

export default function QualityScreen({ workspace }: { workspace: Workspace }) {
  const [report, setReport] = useState<Report | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const [showClean, setShowClean] = useState(false);

  const load = useCallback(async () => {
    setBusy(true);
    try {
      setReport(await qualityReport(workspace.id));
      setError(null);
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  }, [workspace.id]);
  useEffect(() => {
    setReport(null);
    void load();
  }, [load]);

  const pages = report ? [...report.pages].sort((a, b) => a.score - b.score || (a.path < b.path ? -1 : 1)) : [];
  const withFindings = pages.filter((p) => p.findings.length > 0);
  const counts = { error: 0, warning: 0, info: 0 };
  for (const f of report?.findings ?? []) counts[f.severity]++;

  return (
    <div className="quality">
      <h1>Quality · {workspace.name}</h1>
      {error !== null && <Notice kind="error">{messageOf(error)}</Notice>}
      {report === null ? (
        <Spinner label="Scanning the pages" />
      ) : (
        <>
          <div className="quality-summary">
            <p className={`quality-score quality-score-${report.score >= 90 ? "good" : report.score >= 70 ? "fair" : "poor"}`} aria-label={`Score ${report.score} of 100`}>
              <strong>{report.score}</strong>
              <span className="muted">/ 100</span>
            </p>
            <p>
              {report.pages.length} page{report.pages.length === 1 ? "" : "s"} scanned: {counts.error} error{counts.error === 1 ? "" : "s"}, {counts.warning} warning
              {counts.warning === 1 ? "" : "s"}, {counts.info} suggestion{counts.info === 1 ? "" : "s"}.
            </p>
            <button type="button" className="btn" disabled={busy} onClick={() => void load()}>
              {busy ? "Scanning…" : "Scan again"}
            </button>
          </div>
          {withFindings.length === 0 ? (
            <p className="muted">Nothing to fix: every page passes.</p>
          ) : (
            <ul className="quality-pages" aria-label="Pages with findings">
              {withFindings.map((page) => (
                <li key={page.path} className="quality-page">
                  <h2>
                    <a href={pageUrl(workspace.slug, page.path)} onClick={linkClick}>
                      {page.path}
                    </a>{" "}
                    <span className="muted">{page.score} / 100</span>
                  </h2>
                  <ul className="quality-findings">
                    {page.findings.map((f, i) => (
                      <li key={i} className={`quality-finding severity-${f.severity}`}>
                        <span className="quality-kind">{KINDS[f.kind] ?? f.kind}</span>{" "}
                        {f.line !== undefined ? (
                          <a href={`${pageUrl(workspace.slug, page.path)}?line=${f.line}`} onClick={linkClick}>
                            line {f.line}
                          </a>
                        ) : null}{" "}
                        <span>{f.message}</span>
                      </li>
                    ))}
                  </ul>
                </li>
              ))}
            </ul>
          )}
          {pages.length > withFindings.length && (
            <button type="button" className="btn btn-small" onClick={() => setShowClean((v) => !v)} aria-expanded={showClean}>
              {showClean ? "Hide" : "Show"} the {pages.length - withFindings.length} page{pages.length - withFindings.length === 1 ? "" : "s"} without findings
            </button>
          )}
          {showClean && (
            <ul className="quality-clean">
              {pages
                .filter((p) => p.findings.length === 0)
                .map((p) => (
                  <li key={p.path}>
                    <a href={pageUrl(workspace.slug, p.path)} onClick={linkClick}>
                      {p.path}
                    </a>
                  </li>
                ))}
            </ul>
          )}
        </>
      )}
    </div>
  );
}
