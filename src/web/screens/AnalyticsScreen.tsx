/**
 * Analytics for a workspace's writers: what readers open on the published site, what people search
 * for, and — the list writers most need — the searches that found nothing, over 7, 30 or 90 days.
 */
import { useEffect, useState } from "react";
import { ApiError, messageOf } from "../api/client.ts";
import type { Workspace } from "../api/types.ts";
import { linkClick, navigate, pageUrl, useLocation } from "../app/router.ts";
import { Notice, Spinner } from "../ui/controls.tsx";
import { analyticsReports } from "../api/reports.ts";

const WINDOWS = [7, 30, 90] as const;

type Reports = Awaited<ReturnType<typeof analyticsReports>>;

/** A site path (`/guide/intro`) as the page it names in the editor, when it looks like one. */
function editorLink(slug: string, path: string): string | null {
  if (path === "(other)") return null;
  const clean = path.replace(/^\/+/, "");
  if (clean === "") return null;
  return pageUrl(slug, clean.endsWith(".md") ? clean : `${clean}.md`);
}

export default function AnalyticsScreen({ workspace }: { workspace: Workspace }) {
  const { path, query } = useLocation();
  const requested = Number(query.get("days"));
  const days = (WINDOWS as readonly number[]).includes(requested) ? requested : 30;
  const [reports, setReports] = useState<Reports | null>(null);
  const [error, setError] = useState<unknown>(null);

  useEffect(() => {
    const controller = new AbortController();
    setReports(null);
    setError(null);
    analyticsReports(workspace.id, days, controller.signal)
      .then(setReports)
      .catch((e) => {
        if (!controller.signal.aborted) setError(e);
      });
    return () => controller.abort();
  }, [workspace.id, days]);

  const planLimit = error instanceof ApiError && error.code === "PLAN_LIMIT";

  return (
    <div className="analytics">
      <h1>Analytics · {workspace.name}</h1>
      <div className="analytics-windows" role="group" aria-label="Period">
        {WINDOWS.map((d) => (
          <button
            key={d}
            type="button"
            className={`btn${d === days ? " btn-primary" : ""}`}
            aria-pressed={d === days}
            onClick={() => navigate(`${path}?days=${d}`, { replace: true })}
          >
            {d} days
          </button>
        ))}
      </div>
      {error !== null &&
        (planLimit ? (
          <Notice kind="warning">Analytics is not part of this organization's plan. {messageOf(error)}</Notice>
        ) : (
          <Notice kind="error">{messageOf(error)}</Notice>
        ))}
      {error === null && reports === null && <Spinner label="Loading analytics" />}
      {reports && (
        <>
          <dl className="analytics-totals">
            <div>
              <dt>Page views</dt>
              <dd>{reports.overview.page_views.toLocaleString()}</dd>
            </div>
            <div>
              <dt>Visitors (with consent)</dt>
              <dd>{reports.overview.visitors.toLocaleString()}</dd>
            </div>
            <div>
              <dt>Searches</dt>
              <dd>{reports.overview.searches.toLocaleString()}</dd>
            </div>
            <div>
              <dt>Searches with no results</dt>
              <dd>{reports.overview.no_result_searches.toLocaleString()}</dd>
            </div>
          </dl>

          <section aria-labelledby="no-results-heading" className="analytics-section analytics-gaps">
            <h2 id="no-results-heading">Searches with no results</h2>
            <p className="muted">What readers looked for and did not find: pages worth writing, or words worth adding.</p>
            <Ranked label="Searches with no results" rows={reports.searches.no_results.map((r) => ({ key: r.query, name: r.query, count: r.searches }))} unit="searches" />
          </section>

          <section aria-labelledby="top-queries-heading" className="analytics-section">
            <h2 id="top-queries-heading">Top searches</h2>
            <Ranked
              label="Top searches"
              rows={reports.searches.items.map((r) => ({ key: r.query, name: r.query, count: r.searches, note: r.no_results > 0 ? `${r.no_results} found nothing` : undefined }))}
              unit="searches"
            />
          </section>

          <section aria-labelledby="top-pages-heading" className="analytics-section">
            <h2 id="top-pages-heading">Top pages</h2>
            <Ranked
              label="Top pages"
              rows={reports.pages.items.map((r) => ({ key: r.path, name: r.path, count: r.views, href: editorLink(workspace.slug, r.path) }))}
              unit="views"
            />
            {reports.pages.referrers.length > 0 && (
              <>
                <h3>Referring sites</h3>
                <Ranked label="Referring sites" rows={reports.pages.referrers.map((r) => ({ key: r.host, name: r.host, count: r.views }))} unit="views" />
              </>
            )}
          </section>
        </>
      )}
    </div>
  );
}

function Ranked(props: { label: string; unit: string; rows: { key: string; name: string; count: number; href?: string | null; note?: string | undefined }[] }) {
  if (props.rows.length === 0) return <p className="muted">Nothing in this period.</p>;
  const max = Math.max(...props.rows.map((r) => r.count), 1);
  return (
    <ol className="analytics-list" aria-label={props.label}>
      {props.rows.map((r) => (
        <li key={r.key}>
          <span className="analytics-name">
            {r.href ? (
              <a href={r.href} onClick={linkClick}>
                {r.name}
              </a>
            ) : (
              r.name
            )}
            {r.note && <span className="muted"> · {r.note}</span>}
          </span>
          <span className="analytics-count">
            {r.count.toLocaleString()} <span className="visually-hidden">{props.unit}</span>
          </span>
          <span className="analytics-bar" aria-hidden="true" style={{ width: `${Math.round((r.count / max) * 100)}%` }} />
        </li>
      ))}
    </ol>
  );
}
