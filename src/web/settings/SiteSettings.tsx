/**
 * The Site screen (admins): the publish switch, who may read the site, the theme (with a live
 * preview in light and dark), the custom domain with its TXT record and status, named versions
 * and a link to the live site. Everything here calls the site's API (src/publish/).
 */
import { useEffect, useState } from "react";
import { createSiteVersion, deleteSiteVersion, makeDefaultVersion, readSite, removeCustomDomain, saveSettings, setCustomDomain, verifyCustomDomain, type SiteStatus, type SiteVersion } from "../api/settings.ts";
import type { Workspace } from "../api/types.ts";
import { Field, Notice, Spinner } from "../ui/controls.tsx";
import { CopyButton, fmtDate, useAction, useResource } from "./common.tsx";
import { SITE_THEMES, type ThemeSwatch } from "./site-themes.ts";

type Version = SiteVersion;

export function SiteSettings({ workspace }: { workspace: Workspace }) {
  const { data, error, reload } = useResource(workspace.id, () => readSite(workspace.id));
  const action = useAction();
  const [notice, setNotice] = useState<string | null>(null);
  const [theme, setTheme] = useState<string | null>(null);
  useEffect(() => {
    if (data) setTheme(data.theme);
  }, [data]);
  if (error) return <Notice kind="error">{String((error as Error).message)}</Notice>;
  if (!data || theme === null) return <Spinner label="Loading the site" />;

  const save = async (patch: Record<string, unknown>, done: string) => {
    setNotice(null);
    const ok = await action.run(() => saveSettings(workspace.id, patch));
    if (ok !== undefined) {
      setNotice(done);
      await reload();
    }
  };

  return (
    <div className="site-settings">
      {action.error && <Notice kind="error">{action.error}</Notice>}
      {notice && <Notice kind="success">{notice}</Notice>}
      {data.problems.length > 0 && (
        <Notice kind="warning">
          Some site files are ignored until they are fixed:
          <ul>
            {data.problems.map((p) => (
              <li key={p}>{p}</li>
            ))}
          </ul>
        </Notice>
      )}

      <section className="site-block" aria-labelledby="site-publish">
        <h3 id="site-publish">Publishing</h3>
        <div className="check">
          <input
            id="site-published"
            type="checkbox"
            checked={data.published}
            disabled={action.busy}
            onChange={(e) => save({ published: e.target.checked }, e.target.checked ? "The site is live." : "The site is offline.")}
          />
          <label htmlFor="site-published">Publish this workspace as a site</label>
        </div>
        <p className="hint">
          Pages marked <code>publish: true</code> appear on the site ({data.page_count} now).{" "}
          {data.published ? (
            <a href={data.url} target="_blank" rel="noopener" className="site-live-link">
              Open the live site ↗
            </a>
          ) : (
            <span>The site answers “not found” while it is off.</span>
          )}
        </p>
        <fieldset className="checks">
          <legend>Who may read it</legend>
          {(["authenticated", "public"] as const).map((v) => (
            <div className="check" key={v}>
              <input
                id={`site-vis-${v}`}
                type="radio"
                name="site-visibility"
                checked={data.visibility === v}
                disabled={action.busy || data.require_auth}
                onChange={() => save({ visibility: v }, v === "public" ? "Anyone with the link can read the site." : "Only members can read the site.")}
              />
              <label htmlFor={`site-vis-${v}`}>{v === "public" ? "Anyone (public)" : "Members of this workspace"}</label>
            </div>
          ))}
          {data.require_auth && <p className="hint">This instance keeps every site for members only (PUBLISH_REQUIRE_AUTH).</p>}
        </fieldset>
      </section>

      <section className="site-block" aria-labelledby="site-theme">
        <h3 id="site-theme">Theme</h3>
        <div className="theme-grid" role="radiogroup" aria-label="Theme">
          {Object.entries(SITE_THEMES).map(([id, t]) => (
            <button
              key={id}
              type="button"
              role="radio"
              aria-checked={theme === id}
              className={theme === id ? "theme-choice selected" : "theme-choice"}
              onClick={() => setTheme(id)}
            >
              <span className="theme-dots" aria-hidden="true">
                <span style={{ background: t.light.accent }} />
                <span style={{ background: t.light.bg, borderColor: t.light.border }} />
                <span style={{ background: t.dark.bg }} />
              </span>
              <span className="theme-name">{t.label}</span>
              <span className="hint">{t.note}</span>
            </button>
          ))}
        </div>
        <div className="theme-previews" aria-label={`Preview of ${SITE_THEMES[theme]?.label ?? theme}`}>
          <ThemePreview name={workspace.name} swatch={SITE_THEMES[theme] ?? SITE_THEMES.default!} mode="light" />
          <ThemePreview name={workspace.name} swatch={SITE_THEMES[theme] ?? SITE_THEMES.default!} mode="dark" />
        </div>
        <button className="btn btn-primary" type="button" disabled={action.busy || theme === data.theme} onClick={() => save({ theme }, `Theme set to ${SITE_THEMES[theme]?.label ?? theme}.`)}>
          {theme === data.theme ? "Theme in use" : "Use this theme"}
        </button>
      </section>

      <CustomDomain workspaceId={workspace.id} domain={data.custom_domain} onChanged={reload} />
      <Versions workspaceId={workspace.id} versions={data.versions} onChanged={reload} />
    </div>
  );
}

function ThemePreview({ name, swatch, mode }: { name: string; swatch: ThemeSwatch; mode: "light" | "dark" }) {
  const c = swatch[mode];
  const font = swatch.serif ? "Georgia, serif" : "inherit";
  return (
    <figure className="theme-preview" style={{ background: c.bg, color: c.text, borderColor: c.border }}>
      <div className="tp-header" style={{ background: c.header, color: c.headerText, borderColor: c.border }}>
        <span className="tp-logo" style={{ background: c.accent }} />
        <strong>{name}</strong>
        <span className="tp-search" style={{ background: c.surface, borderColor: c.border, color: c.muted }}>
          Search
        </span>
      </div>
      <div className="tp-body">
        <div className="tp-nav" style={{ borderColor: c.border }}>
          <span style={{ background: c.accentSoft, color: c.accent }}>Getting started</span>
          <span>Guides</span>
          <span>Reference</span>
        </div>
        <div className="tp-page">
          <div className="tp-title" style={{ fontFamily: font }}>
            Getting started
          </div>
          <p>
            Install it, then read the <span style={{ color: c.accent }}>guides</span>.
          </p>
          <div className="tp-code" style={{ background: c.surface, borderColor: c.border }}>
            quire serve
          </div>
          <div className="tp-callout" style={{ borderLeftColor: c.accent, background: c.surface }}>
            A tip for readers.
          </div>
        </div>
      </div>
      <figcaption style={{ color: c.muted }}>{mode === "light" ? "Light" : "Dark"}</figcaption>
    </figure>
  );
}

function CustomDomain({ workspaceId, domain, onChanged }: { workspaceId: string; domain: SiteStatus["custom_domain"]; onChanged(): Promise<void> }) {
  const [value, setValue] = useState(domain?.domain ?? "");
  const action = useAction();
  const status = domain?.status;
  return (
    <section className="site-block" aria-labelledby="site-domain">
      <h3 id="site-domain">Custom domain</h3>
      {action.error && <Notice kind="error">{action.error}</Notice>}
      <form
        className="inline-form"
        onSubmit={async (e) => {
          e.preventDefault();
          if ((await action.run(() => setCustomDomain(workspaceId, value))) !== undefined) await onChanged();
        }}
      >
        <Field label="Domain" placeholder="docs.example.com" value={value} onChange={(e) => setValue(e.target.value)} />
        <button className="btn" type="submit" disabled={action.busy || value.trim() === "" || value.trim() === domain?.domain}>
          Save domain
        </button>
      </form>
      {domain && (
        <div className="domain-status">
          <p>
            <strong>{domain.domain}</strong>{" "}
            <span className={status === "verified" ? "badge badge-ok" : "badge badge-warn"} data-status={status}>
              {status === "verified" ? "Verified" : status === "failed" ? "Not verified yet" : "Pending"}
            </span>
          </p>
          {status !== "verified" && (
            <>
              <p className="hint">Create this DNS record at your DNS provider, then check it. Point the domain itself (CNAME or A) at this server.</p>
              <table className="table dns-record">
                <thead>
                  <tr>
                    <th scope="col">Type</th>
                    <th scope="col">Name</th>
                    <th scope="col">Value</th>
                  </tr>
                </thead>
                <tbody>
                  <tr>
                    <td>TXT</td>
                    <td>
                      <code>{domain.verification.name}</code> <CopyButton text={domain.verification.name} />
                    </td>
                    <td>
                      <code>{domain.verification.value}</code> <CopyButton text={domain.verification.value} />
                    </td>
                  </tr>
                </tbody>
              </table>
            </>
          )}
          {domain.error && <p className="hint">Last check {fmtDate(domain.checked_at)}: {domain.error}</p>}
          <div className="row-actions">
            <button className="btn" type="button" disabled={action.busy} onClick={async () => (await action.run(() => verifyCustomDomain(workspaceId))) !== undefined && onChanged()}>
              {action.busy ? "Checking…" : "Check DNS now"}
            </button>
            <button
              className="btn btn-danger"
              type="button"
              disabled={action.busy}
              onClick={async () => {
                if (!confirm(`Stop serving the site on ${domain.domain}?`)) return;
                if ((await action.run(() => removeCustomDomain(workspaceId))) !== undefined) {
                  setValue("");
                  await onChanged();
                }
              }}
            >
              Remove
            </button>
          </div>
        </div>
      )}
    </section>
  );
}

function Versions({ workspaceId, versions, onChanged }: { workspaceId: string; versions: Version[]; onChanged(): Promise<void> }) {
  const [form, setForm] = useState({ slug: "", name: "", base_path: "", snapshot: true });
  const action = useAction();
  const run = async (work: () => Promise<unknown>) => {
    if ((await action.run(work)) !== undefined) await onChanged();
  };
  return (
    <section className="site-block" aria-labelledby="site-versions">
      <h3 id="site-versions">Versions</h3>
      <p className="hint">
        A version is a folder of pages served at <code>/{"{version}"}/</code>; the default one is served at the site's root. Without a default, the root shows the current pages.
      </p>
      {action.error && <Notice kind="error">{action.error}</Notice>}
      {versions.length === 0 ? (
        <p className="muted">No versions yet.</p>
      ) : (
        <table className="table">
          <thead>
            <tr>
              <th scope="col">Version</th>
              <th scope="col">Folder</th>
              <th scope="col">Created</th>
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {versions.map((v) => (
              <tr key={v.slug}>
                <td>
                  {v.name} <code>{v.slug}</code> {v.is_default && <span className="badge">Default</span>}
                </td>
                <td>
                  <code>{v.base_path}/</code>
                </td>
                <td>{fmtDate(v.created_at)}</td>
                <td className="row-actions">
                  {!v.is_default && (
                    <button className="btn btn-small" type="button" disabled={action.busy} onClick={() => run(() => makeDefaultVersion(workspaceId, v.slug))}>
                      Set default
                    </button>
                  )}
                  <button
                    className="btn btn-small btn-danger"
                    type="button"
                    disabled={action.busy}
                    onClick={() => confirm(`Delete version ${v.name}? Its pages stay in the workspace.`) && run(() => deleteSiteVersion(workspaceId, v.slug))}
                  >
                    Delete
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <form
        className="settings-form version-form"
        onSubmit={async (e) => {
          e.preventDefault();
          const body = { slug: form.slug.trim(), name: form.name.trim(), snapshot: form.snapshot, ...(form.base_path.trim() ? { base_path: form.base_path.trim() } : {}) };
          if ((await action.run(() => createSiteVersion(workspaceId, body))) !== undefined) {
            setForm({ slug: "", name: "", base_path: "", snapshot: true });
            await onChanged();
          }
        }}
      >
        <h4>New version</h4>
        <Field label="Slug" required placeholder="v1" value={form.slug} onChange={(e) => setForm({ ...form, slug: e.target.value })} />
        <Field label="Name" required placeholder="Version 1" value={form.name} onChange={(e) => setForm({ ...form, name: e.target.value })} />
        <Field label="Folder (optional)" placeholder={`versions/${form.slug || "v1"}`} value={form.base_path} onChange={(e) => setForm({ ...form, base_path: e.target.value })} />
        <div className="check">
          <input id="version-snapshot" type="checkbox" checked={form.snapshot} onChange={(e) => setForm({ ...form, snapshot: e.target.checked })} />
          <label htmlFor="version-snapshot">Snapshot: copy today's published pages into the folder</label>
        </div>
        <button className="btn btn-primary" type="submit" disabled={action.busy || !form.slug.trim() || !form.name.trim()}>
          {action.busy ? "Creating…" : "Create version"}
        </button>
      </form>
    </section>
  );
}
